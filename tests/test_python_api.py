"""The Python API and the example notebook (issue 24): the notebook's cells run as written,
offline, and its render cell's result displays as an inline video with its captions; the
API raises InputError with the CLI's own line."""
from __future__ import annotations

import ast
import json

import pytest

from tests.conftest import ROOT

NOTEBOOK = ROOT / "examples" / "explain.ipynb"


def run_cells(path, folder) -> list:
    """Each code cell executed in one namespace, in ``folder``, as a kernel would: the
    value of a cell's last expression is its output."""
    import os

    namespace, results = {}, []
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    here = os.getcwd()
    os.chdir(folder)
    try:
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            tree = ast.parse("".join(cell["source"]))
            last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            body = ast.Module(tree.body[:-1] if last else tree.body, type_ignores=[])
            exec(compile(body, "<cell>", "exec"), namespace)
            results.append(eval(compile(ast.Expression(last.value), "<cell>", "eval"),
                                namespace) if last else None)
    finally:
        os.chdir(here)
    return results


def test_the_example_notebook_runs_and_shows_the_film_inline(tmp_path):
    results = run_cells(NOTEBOOK, tmp_path)
    film = next(r for r in results if type(r).__name__ == "Film")
    shown = film._repr_html_()
    assert shown.startswith("<video controls") and "data:video/mp4;base64," in shown
    assert '<track kind="captions"' in shown and "data:text/vtt;base64," in shown
    stills = next(r for r in results if type(r).__name__ == "Stills")
    assert stills._repr_html_().count("<img") == len(stills.files) == 1
    atlas = next(r for r in results if type(r).__name__ == "Atlas")
    assert atlas._repr_png_().startswith(b"\x89PNG")
    assert (tmp_path / "she.mp4").is_file() and (tmp_path / "atlas.svg").is_file()


def test_the_api_raises_the_clis_line(tmp_path, run_cli):
    import attention_explainer as ae

    with pytest.raises(ae.InputError) as raised:
        ae.render("The cat ate the fish", tmp_path / "x.mp4", resolution="17x9")
    code, _, err = run_cli("render", "The cat ate the fish", "-o", tmp_path / "x.mp4",
                           "--resolution", "17x9")
    assert code == 2 and str(raised.value) in err
    with pytest.raises(ae.InputError, match="is not a run of whole tokens"):
        ae.trace("The cat ate the fish", focus="dog")
    assert not list(tmp_path.iterdir())


def test_the_stable_surface():
    import attention_explainer as ae
    from attention_explainer import explainer

    assert set(ae.__all__) >= {"trace", "render", "frames", "pack", "atlas", "InputError"}
    for name in ("trace", "render", "frames", "pack", "atlas"):
        function = getattr(ae, name)
        assert function.__doc__ and function.__annotations__, name
        assert function is getattr(explainer, name)
