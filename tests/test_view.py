"""The interactive view (issue 43): one self-contained HTML page of every layer and head,
opened in headless Chromium with every request blocked; hovering a query shows its lines
alone, hovering a key the query·key products; the numbers in the page are the model's."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tests.conftest import DEFAULT, run_process
from tests.browser import browser_or_skip as browser


def test_the_view_works_offline_and_its_numbers_are_the_models(tmp_path):
    import attention_explainer as ae

    chromium, sync_playwright = browser()
    page_file = tmp_path / "view.html"
    proc = run_process("view", DEFAULT, "-o", page_file, "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    layers = ae.attentions(DEFAULT)
    L, H, T, _ = layers.q.shape
    asked, errors = [], []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        context = b.new_context()
        context.route("**/*", lambda route: (asked.append(route.request.url),
                                             route.continue_() if route.request.url
                                             == page_file.as_uri() else route.abort()))
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_file.as_uri())
        visible = "Array.from(document.querySelectorAll('line')).filter(" \
                  "l => l.parentNode.getAttribute('visibility') !== 'hidden').length"
        assert page.evaluate(visible) == T * T
        page.hover("svg text.query >> nth=3")
        assert page.evaluate(visible) == T                 # its lines alone
        page.hover("svg text.key >> nth=2")
        detail = page.inner_text("#detail")
        for layer, head, i, j in [(0, 0, 1, 2), (L - 1, H - 1, 3, 2), (2, 5, T - 1, 0)]:
            shown = page.evaluate(f"viewWeight({layer}, {head}, {i}, {j})")
            assert shown == float(np.float32(layers.weights[layer, head, i, j]))
        b.close()
    assert asked == [page_file.as_uri()] and not errors, (asked, errors)
    film_layer, film_head = (int(v) for v in re.match(r"Layer (\d+), head (\d+)", detail).groups())
    dot = float(layers.q[film_layer, film_head, 3] @ layers.k[film_layer, film_head, 2])
    assert f"= {dot:.3f};" in detail and "after softmax its weight is" in detail


def test_a_page_that_exists_is_refused_and_the_api_shows_it_inline(tmp_path):
    import attention_explainer as ae

    shown = ae.view(DEFAULT, tmp_path / "v.html")
    assert shown._repr_html_().startswith("<iframe srcdoc=")
    with pytest.raises(ae.InputError, match="exists"):
        ae.view(DEFAULT, tmp_path / "v.html")
    with pytest.raises(ae.InputError, match="html"):
        ae.view(DEFAULT, tmp_path / "v.png")
