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

    assert set(ae.__all__) >= {"trace", "attentions", "render", "frames", "pack", "atlas",
                               "InputError"}
    for name in ("trace", "attentions", "render", "frames", "pack", "atlas", "flow"):
        function = getattr(ae, name)
        assert function.__doc__ and function.__annotations__, name
        assert function is getattr(explainer, name)


def test_notebook_manners():
    """What a notebook user reaches for: dir() lists the API (loaded lazily), `in` asks a
    result for a hook name as a cache is asked, and the words print as words."""
    import attention_explainer as ae

    assert set(ae.__all__) <= set(dir(ae))
    layers = ae.attentions("The cat ate the fish")
    assert "blocks.0.attn.hook_pattern" in layers and "blocks.5.attn.hook_z" in layers
    assert "blocks.6.attn.hook_pattern" not in layers          # MiniLM has layers 0 to 5
    assert "blocks.0.attn.hook_nothing" not in layers and 3 not in layers
    assert repr(layers.words) == ("WordModel(7 words: [CLS] [0], The [1], cat [2], ate [3], "
                                  "the [4], fish [5], [SEP] [6])")


# ---- every argument's type, checked before any work (issue 36) -------------------------------
NOT_TEXT = [42, b"x", ["a"], 1.5]
NOT_WHOLE = ["30", 2.5, True, None, [1]]
NOT_PATH = [42, b"x", ["a"]]
BAD = {
    "sentence": NOT_TEXT + [None], "source": NOT_TEXT + [None],
    "sentence_a": NOT_TEXT + [None], "sentence_b": NOT_TEXT + [None], "versus": NOT_TEXT,
    "resolution": NOT_TEXT, "quality": NOT_TEXT,
    "mask": NOT_TEXT + [None], "device": NOT_TEXT + [None], "dtype": NOT_TEXT + [None],
    "theme": NOT_TEXT, "focus": NOT_TEXT,
    "output": NOT_PATH, "out": NOT_PATH, "narration": NOT_PATH, "captions": NOT_PATH, "length": [b"x", ["short"], True], "format": NOT_TEXT, "model": NOT_PATH + [None],
    "fps": [v for v in NOT_WHOLE if v is not None], "d_model": NOT_WHOLE, "num_heads": NOT_WHOLE, "seed": NOT_WHOLE,
    "max_tokens": NOT_WHOLE, "width_mm": ["120", True, [120], 0.5, 1e6],
    "force": ["no", 1, None, "True"], "burn_captions": ["yes", 1, None], "pace": NOT_TEXT, "pauses": NOT_TEXT, "as_torch": ["yes", 1, None], "progress": [42, "bar", [print]],
    "beats": [42, b"x", [1], []], "at": [True, b"x", [], [None]],
    "layer": [1.5, None, b"x", True, [1]], "heads": [[], 1.5, [True], None, b"x"],
}


def _bad_setting(name: str) -> list:
    """Wrong types for a film setting (``FilmSettings``) no table above names: by the type
    of its default."""
    from attention_explainer.scenes.film.settings import setting_specs

    default = next(spec.default for spec in setting_specs() if spec.name == name)
    return {bool: ["yes", 1], int: NOT_WHOLE[:3], str: NOT_TEXT}.get(type(default), [])


TRACE_OPTIONS = ("model", "focus", "layer", "heads", "mask", "device", "dtype", "d_model",
                 "num_heads", "seed")


def test_every_public_function_refuses_a_wrong_type_in_one_line(tmp_path, monkeypatch):
    """`ae.trace(42)`, `ae.render(None)`, `ae.render(["a"])`, `ae.render(b"x")`,
    `force="no"` and every other parameter of every public function given a value of a
    wrong type: InputError, one line naming the parameter, before any work (nothing
    written, the model never run)."""
    import inspect

    import attention_explainer as ae
    from attention_explainer.attention_core import api

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(api, "trace_for", lambda *a, **k: pytest.fail("the model ran"))
    tried = 0
    for name in ("trace", "attentions", "compare", "render", "frames", "pack", "atlas", "view"):
        function = getattr(ae, name)
        parameters = [p for p in inspect.signature(function).parameters.values()
                      if p.kind is not p.VAR_KEYWORD]
        names = [p.name for p in parameters] + list(
            TRACE_OPTIONS[-3:] if name in ("trace", "attentions", "compare") else TRACE_OPTIONS)
        names += ["max_tokens"] if name in ("render", "frames", "pack") else []
        for parameter in names:
            for value in BAD.get(parameter) or _bad_setting(parameter):
                with pytest.raises(ae.InputError) as raised:
                    function(**{parameter: value})
                line = str(raised.value)
                assert "\n" not in line and len(line) <= 200, line
                assert line.split()[0].strip("'") in (parameter, "source", "sentence"), \
                    (name, parameter, value, line)
                tried += 1
        with pytest.raises(ae.InputError, match="not an option"):
            function(bogus=1)
    assert tried > 250
    assert not list(tmp_path.iterdir())


def test_two_threads_each_get_their_own_files_and_theme_and_stdout_stays(tmp_path):
    """Two renders and two frames calls at once from threads of one process, with
    different sentences and themes: each returns its own files, drawn in its own theme
    (the light stage is white, the dark one black), and sys.stdout is the same object
    afterwards (the API prints nothing and never swaps it)."""
    import sys
    import threading

    import numpy as np
    from PIL import Image

    import attention_explainer as ae

    stdout = sys.stdout
    tiny = {"resolution": "64x36", "beats": "title"}
    calls = {
        "render-dark": lambda: ae.render("The cat ate the fish", tmp_path / "dark.mp4",
                                         fps=2, theme="3b1b", **tiny),
        "render-light": lambda: ae.render("Le chat a mangé le poisson", tmp_path / "light.mp4",
                                          fps=2, theme="light", **tiny),
        "frames-dark": lambda: ae.frames("小猫吃了一条鱼", tmp_path / "dark-stills",
                                         theme="3b1b", **tiny),
        "frames-light": lambda: ae.frames("We saw her duck", tmp_path / "light-stills",
                                          theme="light", **tiny),
    }
    results: dict = {}

    def run(name, call):
        try:
            results[name] = call()
        except BaseException as exc:        # noqa: BLE001 - reported by the assertion
            results[name] = exc

    threads = [threading.Thread(target=run, args=item) for item in calls.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert sys.stdout is stdout
    failed = {n: r for n, r in results.items() if isinstance(r, BaseException)}
    assert len(results) == 4 and not failed, failed

    def brightness(path) -> float:
        with Image.open(path) as image:
            return float(np.asarray(image.convert("L")).mean())

    for theme in ("dark", "light"):
        film, stills = results[f"render-{theme}"], results[f"frames-{theme}"]
        assert film.video == (tmp_path / f"{theme}.mp4").absolute() or \
            film.video.resolve() == (tmp_path / f"{theme}.mp4").resolve()
        assert all(p.resolve().parent == (tmp_path / f"{theme}-stills").resolve()
                   for p in stills.files) and stills.files
        for picture in (film.video.with_suffix(".png"), stills.files[0]):
            shade = brightness(picture)
            assert (shade > 150) if theme == "light" else (shade < 100), (picture, shade)
    from attention_explainer.attention_core.trace import AttentionTrace

    assert AttentionTrace.load(results["render-light"].video.with_suffix(".npz")).sentence \
        == "Le chat a mangé le poisson"


def test_a_call_leaves_the_processes_theme_as_it_found_it(tmp_path):
    """The light theme of one call never reaches a later drawing in the process (a text
    drawn after it came out dark ink on the dark stage: 'emoji drew nothing')."""
    import attention_explainer as ae
    from attention_explainer.scenes.vocabulary import style

    before = style.theme_name()
    ae.frames("The cat ate the fish", tmp_path / "stills", beats="title", resolution="64x36",
              theme="light")
    assert style.theme_name() == before


def test_the_api_takes_its_defaults_where_the_command_line_does(tmp_path, monkeypatch):
    """An option left out is the command line's: the settings file of the working folder
    (here a tiny one-beat film), else the command line's own default; what the call
    gives wins."""
    from PIL import Image

    import attention_explainer as ae

    monkeypatch.chdir(tmp_path)
    (tmp_path / "attention-explainer.toml").write_text(
        'resolution = "64x36"\nfps = 2\nbeats = "title"\n[frames]\nbeat = "title"\nat = "end"\n')
    film = ae.render("The cat ate the fish", "film.mp4")
    assert Image.open(film.video.with_suffix(".png")).size == (64, 36)
    stills = ae.frames("The cat ate the fish", "stills")
    assert [p.name for p in stills.files] == ["title-end.png"]
    assert Image.open(stills.files[0]).size == (64, 36)
    stills = ae.frames("The cat ate the fish", "stills2", at="key", resolution="96x54")
    assert [p.name for p in stills.files] == ["title-key.png"]
    assert Image.open(stills.files[0]).size == (96, 54)


# the API's arguments named otherwise than their command's options, and those on purpose
# its own: a sentence the command line requires, a view shown inline in a notebook
API_NAMES = {("frames", "out"): "out_dir", ("frames", "beats"): "beat",
             ("frames", "at"): "times", ("frames", "format"): "still_format",
             ("pack", "out"): "out_dir", ("atlas", "output"): "out_path",
             ("view", "output"): "out_path"}
API_OWN = {("compare", "sentence_a"): "the command requires both sentences",
           ("view", "output"): "a notebook shows the page inline, no file written",
           ("flow", "method"): "inspect --flow takes no default method",
           ("attentions", "as_torch"): "no command gives torch tensors",
           ("render", "progress"): "a notebook's own bar, called back",
           ("pack", "progress"): "a notebook's own bar, called back",
           ("translate", "progress"): "a notebook's own bar, called back",
           ("generate", "progress"): "a notebook's own bar, called back"}
API_COMMAND = {"trace": "inspect", "compare": "compare", "flow": "inspect",
               "attentions": "inspect", "render": "render", "frames": "frames",
               "pack": "pack", "atlas": "atlas", "view": "view", "translate": "translate",
               "generate": "generate"}


def test_every_api_default_is_the_command_lines():
    """Every argument of every API function that has a command defaults to what that
    command's option defaults to, or to None, which is resolved as the command line
    resolves it (a variable, the settings file, the same default, the same output name);
    the few that differ on purpose are listed with why."""
    import inspect

    import click

    import attention_explainer as ae
    from attention_explainer.cli import cli
    from attention_explainer.commands.settings import commands_of

    commands = commands_of(cli)
    differ = []
    for function, command in API_COMMAND.items():
        options = {p.name: p for p in commands[command].params}
        for name, parameter in inspect.signature(getattr(ae, function)).parameters.items():
            if parameter.default is parameter.empty or (function, name) in API_OWN:
                continue
            option = options.get(API_NAMES.get((function, name), name)) or \
                options.get("sentence" if name in ("source", "sentence_a") else name)
            if option is None:
                differ.append(f"{function}({name}=): `{command}` has no such option")
            elif parameter.default is not None:
                given = False if option.default is click.core.UNSET else option.default
                if given != parameter.default:
                    differ.append(f"{function}({name}={parameter.default!r}), but "
                                  f"`{command}` defaults to {option.default!r}")
    assert differ == [], "\n".join(differ)


def test_a_render_tells_a_progress_callback_of_each_beat(tmp_path):
    """progress(done, total, beat) once per beat, as each is ready: a notebook's own bar."""
    import attention_explainer as ae

    seen = []
    ae.render("The dog ran home", tmp_path / "dog.mp4", resolution="64x36", fps=1,
              beats="title,embed", progress=lambda *told: seen.append(told))
    assert [(done, total) for done, total, _ in seen] == [(1, 2), (2, 2)]
    assert sorted(beat for _, _, beat in seen) == ["embed", "title"]
