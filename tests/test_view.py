"""The interactive view (issue 43): one self-contained HTML page of every layer and head,
opened in headless Chromium with every request blocked; hovering a query shows its lines
alone, hovering a key the query·key products; the numbers in the page are the model's."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tests.conftest import DEFAULT, run_warm
from tests.browser import browser_or_skip as browser


def opened(page_file, chromium, sync_playwright, check):
    """``check(page)`` on the page opened in Chromium with every request but the page's own
    refused; the requests made and the page's errors."""
    from tests.browser import launch

    asked, errors = [], []
    with sync_playwright() as p:
        b = launch(p, chromium)
        context = b.new_context()
        context.route("**/*", lambda route: (asked.append(route.request.url),
                                             route.continue_() if route.request.url
                                             == page_file.as_uri() else route.abort()))
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_file.as_uri())
        check(page)
        b.close()
    assert asked == [page_file.as_uri()] and not errors, (asked, errors)


VISIBLE = "Array.from(document.querySelectorAll('line')).filter(" \
          "l => l.parentNode.getAttribute('visibility') !== 'hidden' && " \
          "l.getAttribute('visibility') !== 'hidden').length"


def test_the_view_works_offline_and_its_numbers_are_the_models(tmp_path):
    import attention_explainer as ae

    chromium, sync_playwright = browser()
    page_file = tmp_path / "view.html"
    proc = run_warm("view", DEFAULT, "-o", page_file, "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    layers = ae.attentions(DEFAULT)
    L, H, T, _ = layers.q.shape
    found = {}

    def check(page):
        assert page.evaluate(VISIBLE) == H * T * T         # every head's lines
        page.hover("svg text.query >> nth=3")
        assert page.evaluate(VISIBLE) == H * T             # its lines alone, every head's
        page.hover("svg text.key >> nth=2")
        found["detail"] = page.inner_text("#detail")
        for layer, head, i, j in [(0, 0, 1, 2), (L - 1, H - 1, 3, 2), (2, 5, T - 1, 0)]:
            shown = page.evaluate(f"viewWeight({layer}, {head}, {i}, {j})")
            assert shown == float(np.float32(layers.weights[layer, head, i, j]))

    opened(page_file, chromium, sync_playwright, check)
    film_layer, film_head = (int(v) for v in
                             re.match(r"Layer (\d+), head (\d+)", found["detail"]).groups())
    dot = float(layers.q[film_layer, film_head, 3] @ layers.k[film_layer, film_head, 2])
    assert f"= {dot:.3f};" in found["detail"] and "after softmax its weight is" in found["detail"]


@pytest.mark.parametrize("model", ["minilm", "gpt2"])
def test_heads_toggle_thumbnails_open_and_silence_says_what_inspect_prints(model, tmp_path):
    """The head view draws every head in its colour, a checkbox each (data-head): unticked,
    its lines go; the model view holds a thumbnail of every layer x head (data-layer,
    data-head): a click opens that head alone above; a head's "silence" button says the
    effect `inspect --ablation` prints for it, to its digits."""
    from tests import tiny_models

    chromium, sync_playwright = browser()
    folder = "minilm" if model == "minilm" else str(tiny_models.build("gpt2", tmp_path / "m"))
    sentence = "The animal didn't cross the street because it was tired"
    page_file = tmp_path / "view.html"
    proc = run_warm("view", sentence, "--model", folder, "-o", page_file, "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    ablation = run_warm("inspect", sentence, "--model", folder, "--ablation", "--json")
    assert ablation.returncode == 0, ablation.stderr[-2000:]
    import json

    doc = json.loads(ablation.stdout)
    rows = {r["head"]: r for r in doc["influence"]}
    measured_layer = doc["influence"][0]["layer"]
    found = {}

    def check(page):
        H = page.evaluate("D.H")
        T = page.evaluate("D.T")
        L = page.evaluate("D.L")
        assert page.locator("#model [data-layer][data-head] canvas").count() == L * H
        assert page.locator("input[type=checkbox][data-head]").count() == H
        every = page.evaluate(VISIBLE)
        page.uncheck("input[type=checkbox][data-head='1']")
        assert page.evaluate(VISIBLE) == every - T * T
        assert page.evaluate("Array.from(document.querySelectorAll(\"g[data-head='1']\"))"
                             ".every(g => g.getAttribute('visibility') === 'hidden')")
        page.check("input[type=checkbox][data-head='1']")
        assert page.evaluate(VISIBLE) == every
        # a hovered query draws its own lines; the mouse gone, every query's come back
        page.hover("svg text.query >> nth=1")
        page.hover("svg text.key >> nth=4")
        assert page.evaluate(VISIBLE) == H * T
        if model == "gpt2":                 # a later key: masked, and said so
            assert "is masked for this query" in page.inner_text("#detail")
        page.mouse.move(1, 1)
        assert page.evaluate(VISIBLE) == every
        # a key hovered alone: the lines into it, one per query and head (bertviz's)
        page.hover("svg text.key >> nth=2")
        assert page.evaluate(VISIBLE) == H * T
        page.mouse.move(1, 1)
        # the head picked in the select is the head drawn
        page.select_option("#head", "1")
        assert page.evaluate(VISIBLE) == T * T
        page.click("#all")
        assert page.evaluate(VISIBLE) == every
        # a thumbnail opens its head: that layer, that head alone
        last = H - 1
        page.click(f"#model [data-layer='0'][data-head='{last}']")
        assert page.input_value("#layer") == "0" and page.input_value("#head") == str(last)
        assert page.evaluate(VISIBLE) == T * T
        ticked = page.evaluate("Array.from(document.querySelectorAll("
                               "'input[type=checkbox][data-head]')).filter(b => b.checked)"
                               ".map(b => +b.dataset.head)")
        assert ticked == [last]
        # silencing is measured in inspect's layer: open it, silence each head in turn
        page.click(f"#model [data-layer='{measured_layer}'][data-head='0']")
        for head in range(H):
            page.click(f"button.silence[data-head='{head}']")
            found[head] = page.inner_text("#effect [data-effect]")

    opened(page_file, chromium, sync_playwright, check)
    assert sorted(found) == sorted(rows) and len(rows) > 1
    kl = model == "gpt2"
    for head, said in found.items():
        r = rows[head]
        printed = r["kl"] if kl else __import__("math").degrees(
            __import__("math").acos(max(-1.0, min(1.0, r["cosine"]))))
        assert said == f"{printed:.5f}", (head, said, printed)
    shown = run_warm("inspect", sentence, "--model", folder, "--ablation")
    for head, said in found.items():        # the digits inspect prints, head by head
        assert re.search(rf"^\s*{head}\s+{re.escape(said)}\s", shown.stdout, re.M), said


def test_a_page_that_exists_is_refused_and_the_api_shows_it_inline(tmp_path):
    import attention_explainer as ae

    shown = ae.view(DEFAULT, tmp_path / "v.html")
    assert shown._repr_html_().startswith("<iframe srcdoc=")
    with pytest.raises(ae.InputError, match="exists"):
        ae.view(DEFAULT, tmp_path / "v.html")
    with pytest.raises(ae.InputError, match="html"):
        ae.view(DEFAULT, tmp_path / "v.png")


def test_in_a_notebook_the_view_shows_inline_twice_and_writes_nothing(tmp_path):
    """In a Jupyter kernel (nbclient), `ae.view(...)` with no path displays the page in the
    cell (its own frame, the cell's width) and writes no file; run again, it shows again."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    cells = ["import os\nimport attention_explainer as ae\nbefore = sorted(os.listdir('.'))",
             f"ae.view({DEFAULT!r})", f"ae.view({DEFAULT!r})",
             "assert sorted(os.listdir('.')) == before, os.listdir('.')"]
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(book, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    for cell in book.cells[1:3]:
        shown = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert len(shown) == 1, cell.outputs
        page = shown[0]["data"]["text/html"]
        assert page.startswith("<iframe srcdoc=") and "width:100%" in page
        assert "data-layer" in page and "D.silencing" in page
    assert list(tmp_path.iterdir()) == []


def test_two_sentences_side_by_side_keep_one_layer_and_head(tmp_path):
    """`view --versus`: both sentences' views in one offline file, under what `compare`
    prints for the pair, opened at the layer and head it explains; a head picked, a
    thumbnail clicked or a head's box unticked in one view is done in the other."""
    chromium, sync_playwright = browser()
    a, b = "The doctor called the nurse because she was late", \
        "The doctor called the nurse because he was late"
    page_file = tmp_path / "pair.html"
    proc = run_warm("view", a, "--versus", b, "-o", page_file, "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pair.html"]
    printed = run_warm("compare", a, b)
    assert printed.returncode == 0, printed.stderr[-2000:]
    layer, head = (int(v) for v in re.search(r"layer (\d+), head (\d+)", printed.stdout).groups())
    found = {}

    def state(frame):
        return (int(frame.locator("#layer").input_value()),
                int(frame.locator("#head").input_value()),
                [frame.locator(f'input[data-head="{h}"]').is_checked() for h in range(12)])

    def check(page):
        found["compare"] = page.inner_text("#compare")
        page.wait_for_function("() => document.getElementById('b').contentWindow.viewState && "
                               f"document.getElementById('b').contentWindow.viewState()[1] "
                               f"=== {head}")
        one, two = page.frame_locator("#a"), page.frame_locator("#b")
        assert state(one) == state(two) == (layer, head, [h == head for h in range(12)])
        assert a in one.locator("h3").inner_text() and b in two.locator("h3").inner_text()
        one.locator("#head").select_option(str((head + 1) % 12))
        assert state(two) == state(one) and state(two)[1] == (head + 1) % 12
        two.locator('#model .cell[data-layer="0"][data-head="1"]').click()
        assert state(one)[:2] == (0, 1) and state(one) == state(two)
        one.locator("#toggles button").click()                    # all heads
        assert state(two)[2] == [True] * 12
        one.locator('input[data-head="3"]').uncheck()
        assert state(two)[2] == [h != 3 for h in range(12)] == state(one)[2]

    opened(page_file, chromium, sync_playwright, check)
    assert found["compare"].strip() == printed.stdout.strip()
