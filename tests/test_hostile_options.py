"""What a hostile user found in the options (issue 58, classes 3 to 8), through the real
command line and the Python API.

Every refusal: exit 2 (the API: InputError), one short line, no traceback, nothing written.
The API's films drawn whole (translate, generate) check their options by the command line's
own specs; a value the CLI's parser would take is never a crash (exit 1); an option a
command cannot honour for the model it is given is refused; sizes are bounded before the
work they would make; the user's text reaches a terminal escaped; a documented command runs.
"""
from __future__ import annotations

import json
import shutil
import warnings

import pytest

from attention_explainer.attention_core.api import model_files
from tests import tiny_models
from tests.conftest import DEFAULT
from tests.make_golden import TRACE

SEVENTY_WORDS = " ".join(["word"] * 70)              # 72 tokens: above the drawing limit


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A tiny Marian folder, and a GPT-2 folder whose config.json outgrew its weights."""
    root = tmp_path_factory.mktemp("models")
    mismatched = tiny_models.build("gpt2", root / "gpt2-mismatched")
    tiny_models.write_config(mismatched, n_positions=128)      # its weights hold 64 positions
    return {"marian": tiny_models.build_marian(root / "marian"), "gpt2": mismatched}


def _srt(captions) -> str:
    return "".join(f"{n}\n00:00:{n:02d},000 --> 00:00:{n:02d},500\n{text}\n\n"
                   for n, text in enumerate(captions, 1))


@pytest.fixture
def hostile(tmp_path, models):
    """The files the rows read: a trace, settings folders, captions and labelled text."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "kept.mp4").write_bytes(b"a lecturer's film")
    shutil.copy(TRACE, tmp_path / "t.npz")
    settings = {"deep": "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
                "experiment-size": "d-model = 2\n",
                "experiment-table": "[experiment]\nd-model = 8\n"}
    for folder, text in settings.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "attention-explainer.toml").write_text(text)
    (tmp_path / "long.srt").write_text(_srt(["a caption " * 100_000]))
    (tmp_path / "many.srt").write_text(_srt(["a caption"] * 1000))
    (tmp_path / "garbage.srt").write_text("not a subtitle " * 70_000)
    rows = "".join(f"review number {n},{'good' if n % 2 else 'bad'}\n" for n in range(40))
    (tmp_path / "big-cell.csv").write_text('text,label\n"' + "x" * (2 << 20) + '",good\n' + rows)
    return tmp_path, out


def _translate(*options):
    return ["translate", "the cat sat", "--target", "le chat", *options, "-o", "{o}"]


def _atlas(*options):
    return ["atlas", "the cat sat", "--model", "{marian}", *options, "--out", "{o}.png"]


# (row name, argv template, fragment of the one line); {t}: the hostile files, {o}: an MP4
# in a folder that must stay as it was, {marian}: the tiny Marian folder. docs/errors.md's
# table lists every name.
ROWS = [
    # 4: what exited 1 ("unexpected failure")
    ("translate layer malformed", _translate("--layer", "abc"), "malformed"),
    ("encoder–decoder heads malformed",
     ["inspect", "the cat sat", "--model", "{marian}", "--heads", "xyz"], "malformed"),
    ("translate heads malformed", _translate("--heads", "xyz"), "malformed"),
    ("versus with a saved trace",
     ["render", "--trace", "{t}/t.npz", "--versus", "The dog ate the fish", "-o", "{o}"],
     "not a saved trace"),
    ("experiment seed too large",
     ["experiment", "heads", "--seed", "1" + "0" * 29, "--out", "{t}/out/sweep"],
     "0<=x<=9223372036854775807"),
    ("settings nested too deeply", ["inspect", DEFAULT], "nest too deeply"),
    # 5: what was silently ignored
    ("encoder–decoder atlas with a layer", _atlas("--layer", "1"), "--layer 1: the atlas"),
    ("encoder–decoder atlas with heads", _atlas("--heads", "0,1,3"), "--heads 0,1,3: the atlas"),
    ("encoder–decoder atlas with a focus word", _atlas("--focus", "zebra"), "--focus zebra"),
    ("encoder–decoder atlas with a mask", _atlas("--mask", "topk:2"), "--mask topk:2"),
    ("heads named twice", _atlas("--heads", "0,0,7"), "names a head twice"),
    ("scratch translate past its one layer", _translate("--layer", "99"), "has one layer"),
    ("experiment setting out of its own range",
     ["experiment", "heads", "--out", "{t}/out/sweep"], "d-model = 2"),
    ("experiment setting outside its command's table",
     ["experiment", "heads", "--out", "{t}/out/sweep"], "[experiment.heads]"),
    # 6: sizes
    ("caption too long",
     ["render", DEFAULT, "--captions", "{t}/long.srt", "--dry-run", "-o", "{o}"],
     "more than the 600 a caption may be"),
    ("captions too many",
     ["render", DEFAULT, "--captions", "{t}/many.srt", "--dry-run", "-o", "{o}"],
     "more than 400 captions"),
    ("captions not SubRip",
     ["render", DEFAULT, "--captions", "{t}/garbage.srt", "--dry-run", "-o", "{o}"],
     "not a SubRip (.srt) file"),
    ("labelled text cell too large",
     ["experiment", "heads", "--data", "{t}/big-cell.csv", "--out", "{t}/out/sweep"],
     "line 2 is longer than"),
    ("translation too long to draw", ["translate", SEVENTY_WORDS, "--target", "le chat",
                                      "-o", "{o}"], "at most 64"),
    # 7: messages
    ("model weights' shapes differ from its config",
     ["inspect", DEFAULT, "--model", "{gpt2}"], "has shape (64, 32) but its config.json"),
    ("heads variable malformed", ["inspect", DEFAULT], "ATTENTION_EXPLAINER_HEADS='zz'"),
    ("heads variable out of range", ["inspect", DEFAULT], "ATTENTION_EXPLAINER_HEADS='99'"),
    ("ablate variable out of range", ["inspect", DEFAULT], "ATTENTION_EXPLAINER_ABLATE='9:0'"),
    ("translate focus empty", _translate("--focus", ""), "--focus is empty"),
]
IN_FOLDER = {"settings nested too deeply": "deep",
             "experiment setting out of its own range": "experiment-size",
             "experiment setting outside its command's table": "experiment-table"}
ENVIRONMENT = {"heads variable malformed": ("ATTENTION_EXPLAINER_HEADS", "zz"),
               "heads variable out of range": ("ATTENTION_EXPLAINER_HEADS", "99"),
               "ablate variable out of range": ("ATTENTION_EXPLAINER_ABLATE", "9:0")}


def _files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("name, argv, fragment", ROWS, ids=[r[0] for r in ROWS])
def test_a_hostile_option_is_refused_in_one_short_line(name, argv, fragment, hostile, models,
                                                       run_cli, monkeypatch):
    tmp, out = hostile
    monkeypatch.chdir(tmp / IN_FOLDER.get(name, "."))
    if name in ENVIRONMENT:
        monkeypatch.setenv(*ENVIRONMENT[name])
    before = _files(out)
    model_files.cache_clear()
    code, stdout, stderr = run_cli(*[a.format(t=tmp, o=out / "film.mp4", **models)
                                     for a in argv])
    model_files.cache_clear()
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, stderr[-2000:])
    assert "Traceback" not in stderr + stdout and "above report" not in stderr
    assert fragment in lines[0], lines[0]
    assert len(lines[0]) < 600, len(lines[0])        # an excerpt of what it quotes, never all
    assert _files(out) == before                     # nothing new, nothing changed


def test_the_error_page_lists_every_row():
    from tests.conftest import documentation_page

    page = documentation_page("errors.md")
    assert [name for name, _, _ in ROWS if name not in page] == []


# ---- 3: the API's films drawn whole check their options by the command line's specs -------
# (option, values): each is refused by the command line, or taken by it, and so by the API
SPECS = {"fps": [0, 1, 121, 10 ** 6], "theme": ["bogus", "light"],
         "d_model": [0, 64, 10 ** 9], "seed": [-1, 0, 2 ** 63], "layer": ["abc", "0", 10 ** 100],
         "heads": ["xyz", "0,0", "1"], "max_new_tokens": [0, 8, 65],
         "resolution": ["huge", "96x54"], "max_tokens": [1, 64]}


def test_translate_takes_and_refuses_what_the_command_line_does(run_cli, monkeypatch, tmp_path):
    """Every value of SPECS is refused by `ae.translate` exactly when `translate` refuses it
    (one line naming the option, as the command line names it); a value both take reaches
    the model (stopped there)."""
    import attention_explainer as ae
    from attention_explainer.attention_core import translation

    def reached(*args, **kwargs):
        raise ae.InputError("the model was reached")

    monkeypatch.setattr(translation, "cross_view", reached)
    monkeypatch.chdir(tmp_path)
    for option, values in SPECS.items():
        for value in values:
            code, _, err = run_cli(*_translate(f"--{option.replace('_', '-')}", value)[:-2],
                                   "-o", tmp_path / "cli.mp4")
            with pytest.raises(ae.InputError) as raised:
                ae.translate("the cat sat", tmp_path / "api.mp4", target="le chat",
                             **{option: value})
            by_cli, by_api = "model was reached" not in err, "model was reached" not in str(
                raised.value)
            assert code == 2 and by_cli == by_api, (option, value, err, raised.value)
            if by_api:
                assert f"'--{option.replace('_', '-')}'" in str(raised.value), raised.value
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_generate_is_the_api_of_the_command_and_checks_its_options(models, tmp_path,
                                                                  monkeypatch):
    import attention_explainer as ae
    from attention_explainer.attention_core import generation

    monkeypatch.setattr(generation, "generate",
                        lambda *a, **k: pytest.fail("the model ran"))
    monkeypatch.chdir(tmp_path)
    for bad in ({"tokens": 0}, {"tokens": 9}, {"fps": 0}, {"theme": "bogus"},
                {"layer": "last"}, {"heads": "0,0"}, {"max_tokens": 3}, {"tokens": "2"},
                {"colour": "red"}):
        with pytest.raises(ae.InputError) as raised:
            ae.generate("The cat sat", tmp_path / "writes.mp4", model=models["gpt2"], **bad)
        line, option = str(raised.value), next(iter(bad))
        assert "\n" not in line and (option in line or option.replace("_", "-") in line
                                     or "prompt" in line), line
    assert "generate" in ae.__all__ and not list(tmp_path.iterdir())


# ---- 7: messages -------------------------------------------------------------------------------
def test_a_librarys_warning_never_reaches_the_users_terminal(run_cli, monkeypatch):
    """A torch UserWarning raised during a command is not printed."""
    from attention_explainer.attention_core import report

    summary = report.summary_lines

    def warning(trace):
        warnings.warn("a library's note for its developers", UserWarning)
        return summary(trace)

    monkeypatch.setattr(report, "summary_lines", warning)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code, _, err = run_cli("inspect", DEFAULT)
    assert code == 0 and err == "" and not seen, (err, [str(w.message) for w in seen])


def test_the_users_text_reaches_the_terminal_escaped(run_cli):
    """A bell and a right-to-left override in a sentence are printed as their escapes, in
    compare's text and JSON alike (the JSON still reads back as the sentence)."""
    sentence = "The cat\x07 ate the \u202efish"
    code, out, _ = run_cli("compare", sentence, "The dog ate the fish", "--focus", "ate")
    assert code == 0 and "The cat\\x07 ate the \\u202efish" in out, out
    assert "\x07" not in out and "\u202e" not in out
    code, out, _ = run_cli("compare", sentence, "The dog ate the fish", "--focus", "ate", "--json")
    assert code == 0 and "\x07" not in out and "\u202e" not in out
    assert json.loads(out)["a"] == sentence


def test_a_captions_control_characters_are_stripped(tmp_path):
    from attention_explainer.app.captions import read_captions

    (tmp_path / "mine.srt").write_text(_srt(["a \x1b[31mred\x07 cat", "\x07"]))
    with pytest.raises(Exception, match="an empty caption"):
        read_captions(tmp_path / "mine.srt")
    (tmp_path / "mine.srt").write_text(_srt(["a \x1b[31mred\x07 cat"]))
    assert read_captions(tmp_path / "mine.srt") == ["a [31mred cat"]


def test_render_draws_the_beats_it_is_given_as_a_list(monkeypatch, tmp_path):
    import attention_explainer as ae
    from attention_explainer.app import work

    class Asked(Exception):
        pass

    def film(request, **kwargs):
        raise Asked(request)

    monkeypatch.setattr(work, "film", film)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Asked) as asked:
        ae.render(DEFAULT, tmp_path / "title.mp4", beats=["title"])
    assert asked.value.args[0].video.beats == ["title"]


# ---- 8: the documented command ----------------------------------------------------------------
def test_compare_takes_a_global_mask_named_by_its_text(run_cli):
    """--mask global:cat+window:1 makes cat global in both sentences, at whatever position
    it stands (token 2 of A, 5 of B): the same mask, and the comparison is printed."""
    code, out, err = run_cli("compare", "The cat ate the fish", "The fish ate the cat",
                             "--mask", "global:cat+window:1", "--json")
    assert code == 0, err
    assert {w["word"] for w in json.loads(out)["words"]} >= {"cat", "fish", "ate"}
    code, _, err = run_cli("compare", "The cat ate the fish", "The fish ate the cat",
                           "--mask", "global:2+window:1")
    assert code == 0, err                  # by position: cat in A, fish in B, as asked


def test_sigterm_during_ae_translate_leaves_nothing_behind(tmp_path):
    """ae.translate killed politely (SIGTERM, as a scheduler does) while it draws: the
    output set's staging folder and claim go with it, as a render's do (every output set
    turns SIGTERM into an interrupt while it is open)."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    out.mkdir()
    script = ("import attention_explainer as ae\n"
              f"ae.translate('The cat ate the fish', {str(out / 'film.mp4')!r}, "
              "target='Die Katze hat den Fisch gegessen', model='scratch', "
              "resolution='160x90', fps=30)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if any(p.name.startswith(".") for p in out.iterdir()):      # the set is open
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the film was written before it could be stopped"
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    assert proc.returncode != 0
    assert list(out.iterdir()) == []
