"""DESIGN.md's "Bad input and safety" table, row by row, through the real command line.

Every row: exit 2 (or 1 where stated), exactly one line on stderr, no traceback, and no new
or changed file at the output path. Rows are refused before the model or the renderer runs.
"""
import json
import os
import shutil

import numpy as np
import pytest
import torch

from attention_explainer.attention_core import bert
from attention_explainer.attention_core.api import model_files
from attention_explainer.attention_core.trace import NPZ_KEYS
from tests.conftest import DEFAULT, ROOT
from tests.make_golden import TRACE
from tests.test_hostile_traces_and_models import ROWS as TRACE_AND_MODEL_ROWS

LONG_FOR_DRAWING = " ".join(["word"] * 70)          # 72 tokens: above the drawing limit
LONG_FOR_MODEL = " ".join(["word"] * 600)           # 602 tokens: above 512 positions


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.exists() else {}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """Files some rows need: a foreign npz, a pickled npz, a corrupt npz, a GPT-2 folder,
    a file standing where a folder should be."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "existing.mp4").write_bytes(b"a good render")
    (out / "results.json").write_text('{"an earlier sweep": "kept"}')
    (out / "talk.srt").write_text("a lecturer's own captions")
    (tmp_path / "side" / "talk.png").mkdir(parents=True)
    (tmp_path / "gold").mkdir()
    shutil.copy(TRACE, tmp_path / "good.npz")
    np.savez(tmp_path / "foreign.npz", x=np.zeros(3))
    pickled = {k: np.zeros(1) for k in NPZ_KEYS}
    pickled["meta"] = np.array([{"evil": True}], dtype=object)
    np.savez(tmp_path / "pickled.npz", **pickled)
    (tmp_path / "corrupt.npz").write_bytes(b"PK\x03\x04 not really a zip")
    gpt2 = tmp_path / "gpt2"
    gpt2.mkdir()
    (gpt2 / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    (gpt2 / "model.safetensors").write_bytes(b"")
    (gpt2 / "tokenizer.json").write_text("{}")
    t5 = tmp_path / "t5"
    t5.mkdir()
    (t5 / "config.json").write_text(json.dumps({"model_type": "t5"}))
    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "settings-folder" / "attention-explainer.toml").mkdir(parents=True)
    (tmp_path / "settings-pyproject").mkdir()
    (tmp_path / "settings-pyproject" / "pyproject.toml").write_text(
        "[tool]\nattention-explainer = 5\n")
    (tmp_path / "settings-outside").mkdir()
    (tmp_path / "settings-outside" / "attention-explainer.toml").write_text(
        '[render]\noutput = "../out/existing.mp4"\n')
    (tmp_path / "zebra.toml").write_text('[[explainer]]\nsentence = "The cat sat"\nfocus = "zebra"\n')
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "talk.png").symlink_to(tmp_path / "a-file")
    _labelled_files(tmp_path)
    return tmp_path, out


def _tampered_minilm(tmp_path):
    """A MiniLM copy with one bit of its weights flipped: 88 MB, so made for its row only."""
    tampered = tmp_path / "tampered"
    shutil.copytree(bert.minilm_dir(), tampered)
    data = bytearray((tampered / "model.safetensors").read_bytes())
    data[1000] ^= 0x01
    (tampered / "model.safetensors").write_bytes(bytes(data))
    return tampered


def _labelled_files(tmp_path) -> None:
    """The experiment's --data rows: one label, no text column, a FIFO, 2 GB (sparse),
    not UTF-8, one object per line without a label."""
    rows = "".join(f"review number {n},good\n" for n in range(40))
    (tmp_path / "one-label.csv").write_text("text,label\n" + rows)
    (tmp_path / "no-text.csv").write_text("sentence,label\n" + rows)
    os.mkfifo(tmp_path / "fifo.csv")
    with open(tmp_path / "huge.csv", "wb") as fh:
        fh.truncate(2 * 2 ** 30)
    (tmp_path / "latin1.tsv").write_bytes("text\tlabel\ncaf\u00e9 cr\u00e8me\tgood\n"
                                          .encode("latin-1"))
    (tmp_path / "unlabelled.jsonl").write_text('{"text": "a fine film"}\n')


# (id, argv template, expected fragment of the one line). {o} = output mp4, {t} = tmp dir
ROWS = [
    ("empty sentence", ["render", "", "-o", "{o}"], "empty"),
    ("blank sentence", ["render", "   \t ", "-o", "{o}"], "empty"),
    ("over 512 positions", ["inspect", LONG_FOR_MODEL, "--npz", "{t}/out/t.npz"], "512 positions"),
    ("too long to draw", ["render", LONG_FOR_DRAWING, "-o", "{o}"], "at most 64"),
    ("sentence without a glyph", ["render", "Smiles \U0001FAE0 all round", "-o", "{o}"],
     "no glyph for"),
    ("sentence read as unknown tokens only",
     ["frames", "\u0e41\u0e21\u0e27\u0e01\u0e34\u0e19\u0e1b\u0e25\u0e32", "--beat", "title",
      "--out", "{t}/out/stills"],
     "unknown token"),
    ("focus not in sentence", ["render", DEFAULT, "--focus", "dog", "-o", "{o}"], "choose words from"),
    ("focus token out of the span", ["inspect", "我爱北京", "--focus", "北京[5]"], "[0] to [1]"),
    ("sentence not valid text", ["inspect", "The cat \udcff ate"], "not valid UTF-8"),
    ("seed too large", ["inspect", DEFAULT, "--model", "scratch", "--seed", str(2 ** 64)],
     "not in the range"),
    ("d-model too large", ["render", DEFAULT, "--model", "scratch", "--d-model", "1000000000",
                           "-o", "{o}"], "not in the range"),
    ("num-heads too many", ["inspect", DEFAULT, "--model", "scratch", "--num-heads", "100000"],
     "not in the range"),
    ("heads out of range", ["render", DEFAULT, "--heads", "0,12", "-o", "{o}"], "0 to 11"),
    ("heads malformed", ["render", DEFAULT, "--heads", "two", "-o", "{o}"], "malformed"),
    ("layer out of range", ["render", DEFAULT, "--layer", "9", "-o", "{o}"], "0 to 5"),
    ("layer malformed", ["frames", DEFAULT, "--layer", "last", "--out", "{t}/out"], "malformed"),
    ("num-heads not dividing", ["render", DEFAULT, "--model", "scratch", "--num-heads", "7",
                                "-o", "{o}"], "does not divide"),
    ("unknown resolution", ["render", DEFAULT, "--resolution", "8k", "-o", "{o}"], "1080p"),
    ("odd resolution", ["render", DEFAULT, "--resolution", "1921x1080", "-o", "{o}"], "even"),
    ("fps zero", ["render", DEFAULT, "--fps", "0", "-o", "{o}"], "not in the range 1<=x<=120"),
    ("fps absurd", ["render", DEFAULT, "--fps", "10000", "-o", "{o}"], "not in the range 1<=x<=120"),
    ("cuda without cuda", ["render", DEFAULT, "--device", "cuda", "-o", "{o}"], "no CUDA"),
    ("output exists", ["render", DEFAULT, "-o", "{t}/out/existing.mp4"], "--force"),
    ("a sidecar exists", ["render", DEFAULT, "-o", "{t}/out/talk.mp4"], "talk.srt already exists"),
    ("a sidecar is a folder", ["render", DEFAULT, "-o", "{t}/side/talk.mp4", "--force"],
     "talk.png is a folder"),
    ("option with --trace", ["render", "--trace", "{t}/good.npz", "--focus", "cat", "-o", "{o}"],
     "cannot be used with --trace"),
    ("width on paper of a png still", ["frames", DEFAULT, "--width-mm", "120", "--out", "{t}/out"],
     "add --format svg"),
    ("width on paper not a number", ["frames", DEFAULT, "--format", "svg", "--width-mm", "nan",
                                     "--out", "{t}/out"], "1 to 10000 millimetres"),
    ("out is the golden folder", ["frames", "--trace", "{t}/good.npz", "--out", "{t}/gold",
                                  "--check", "{t}/gold"], "golden folder"),
    ("time past the end", ["frames", "--trace", "{t}/good.npz", "--beat", "title", "--at", "500",
                           "--resolution", "160x90", "--fps", "5", "--out", "{t}/out"], "long"),
    ("contact sheet format", ["frames", "--trace", "{t}/good.npz", "--beat", "title",
                              "--out", "{t}/out", "--contact-sheet", "{t}/sheet.gif"],
     ".png, .jpg or .webp"),
    ("output folder is a file", ["render", DEFAULT, "-o", "{t}/a-file/x.mp4"], "output folder"),
    ("output folder not writable", ["render", DEFAULT, "-o", "/proc/x.mp4"], "not writable"),
    ("model path missing", ["render", DEFAULT, "--model", "{t}/nothing", "-o", "{o}"],
     "neither a known model"),
    ("hub id not in the cache", ["render", DEFAULT, "--model",
                                 "attention-explainer-tests/no-such-model", "-o", "{o}"],
     "not in the local Hugging Face cache"),
    ("model of no supported family", ["render", DEFAULT, "--model", "{t}/t5", "-o", "{o}"],
     "is a 't5' model, not of a supported family"),
    ("model's files broken", ["render", DEFAULT, "--model", "{t}/gpt2", "-o", "{o}"],
     "tokenizer.json is not readable"),
    ("tampered weights", ["render", DEFAULT, "-o", "{o}"], "tampered"),
    ("corrupt trace", ["frames", "--trace", "{t}/corrupt.npz", "--out", "{t}/out"], "trace"),
    ("foreign trace", ["render", "--trace", "{t}/foreign.npz", "-o", "{o}"], "not an attention trace"),
    ("pickled trace", ["frames", "--trace", "{t}/pickled.npz", "--out", "{t}/out"], "pickled"),
    ("missing trace", ["render", "--trace", "{t}/none.npz", "-o", "{o}"], "does not exist"),
    ("unknown beat (render)", ["render", DEFAULT, "--beats", "title,dance", "-o", "{o}"], "not a beat"),
    ("unknown beat (frames)", ["frames", DEFAULT, "--beat", "dance", "--out", "{t}/out"], "not a beat"),
    ("bad mask", ["inspect", DEFAULT, "--mask", "window:0"], "not a mask"),
    ("bad mask (top-k of none)", ["inspect", DEFAULT, "--mask", "topk:0"], "not a mask"),
    ("bad mask (global with no window)", ["inspect", DEFAULT, "--mask", "global:0"], "not a mask"),
    ("global token not in the sentence", ["inspect", DEFAULT, "--mask", "global:dog+window:2"],
     "no token is 'dog'"),
    ("global position past the sentence", ["inspect", DEFAULT, "--mask", "global:40+window:2"],
     "past the sentence"),
    ("bad approximation", ["inspect", DEFAULT, "--approx", "lowrank:x"],
     "not an approximation"),
    ("ablation of a head that does not exist", ["inspect", DEFAULT, "--ablate", "1:12"],
     "head 12 does not exist"),
    ("ablation of a layer that does not exist", ["inspect", DEFAULT, "--ablate", "6:all"],
     "layer 6 does not exist"),
    ("ablation not a list of heads", ["inspect", DEFAULT, "--ablate", "1-2"],
     "not a list of heads"),
    ("ablation of the scratch model", ["inspect", DEFAULT, "--model", "scratch", "--ablate",
                                       "0:0"], "no trained output"),
    ("flow method unknown", ["inspect", DEFAULT, "--flow", "gradient"], "is not a method"),
    ("why on a post-norm model", ["inspect", DEFAULT, "--why"], "norms after each layer"),
    ("patch of a pair of other lengths", ["compare", DEFAULT, "The big cat ate the fish",
                                          "--patch"], "give a pair of the same number"),
    ("patch at a layer that does not exist", ["compare", DEFAULT, "The dog ate the fish",
                                              "--layer", "9", "--patch"], "out of range"),
    ("flow of the scratch model", ["inspect", DEFAULT, "--model", "scratch", "--flow",
                                   "rollout"], "scratch model is one seeded layer"),
    ("approximation rank too large", ["inspect", DEFAULT, "--approx", "lowrank:7"],
     "less than the sentence's 7 tokens"),
    ("not an mp4", ["render", DEFAULT, "-o", "{t}/out/video.avi"], ".mp4"),
    ("cache cap not a whole number", ["render", DEFAULT, "-o", "{o}"], "ATTENTION_EXPLAINER_CACHE_MB"),
    ("cache cap negative", ["frames", DEFAULT, "--out", "{t}/out"], "ATTENTION_EXPLAINER_CACHE_MB"),
    ("scheduler address malformed", ["batch", "{course}", "--scheduler", "render-box:8786",
                                     "--out", "{t}/out"], "not a Dask scheduler address"),
    ("output folder variable not writable", ["render", DEFAULT, "--beats", "title"],
     "ATTENTION_EXPLAINER_OUTPUT_DIR='/proc/x' (from the environment)"),
    ("option variable out of range", ["frames", DEFAULT, "--out", "{t}/out"],
     "ATTENTION_EXPLAINER_FPS='0' (from the environment)"),
    ("beat cache unusable for a course", ["batch", "{course}", "--out", "{t}/out"],
     "the beat cache"),
    ("course manifest not a regular file", ["batch", "/dev/zero", "--dry-run"],
     "not a regular file"),
    ("course entry the model refuses", ["batch", "{t}/zebra.toml", "--out", "{t}/out"],
     "explainer 1 (line 1)"),
    ("cache off for a course", ["batch", "{course}", "--out", "{t}/out", "--dry-run"],
     "a course keeps its beats"),
    ("output through a symbolic link", ["render", DEFAULT, "-o", "{t}/linked/talk.mp4", "--force"],
     "symbolic link"),
    ("settings file not a regular file", ["inspect", DEFAULT], "not a regular file"),
    ("settings table not a table", ["inspect", DEFAULT], "not a table"),
    ("settings output outside its folder", ["render", DEFAULT, "--force"], "lies outside"),
    ("output inside the beat cache", ["render", DEFAULT, "-o", "{t}/xdg/attention-explainer/x.mp4"],
     "inside the beat cache"),
    ("labelled data with one label", ["experiment", "heads", "--data", "{t}/one-label.csv",
                                      "--out", "{t}/out/sweep"], "1 label (good)"),
    ("labelled data without a text column", ["experiment", "heads", "--data", "{t}/no-text.csv",
                                             "--out", "{t}/out/sweep"], "no text column"),
    ("labelled data not a regular file", ["experiment", "heads", "--data", "{t}/fifo.csv",
                                          "--out", "{t}/out/sweep"], "not a regular file"),
    ("labelled data over 256 MB", ["experiment", "heads", "--data", "{t}/huge.csv",
                                   "--out", "{t}/out/sweep"], "more than the 256 MB"),
    ("labelled data not UTF-8", ["experiment", "heads", "--data", "{t}/latin1.tsv",
                                 "--out", "{t}/out/sweep"], "not UTF-8"),
    ("labelled data line without a label", ["experiment", "heads", "--data",
                                            "{t}/unlabelled.jsonl", "--out", "{t}/out/sweep"],
     "line 1 has no text and label"),
    ("translation without a target", ["translate", DEFAULT, "-o", "{o}"],
     "cannot translate; give the translation with --target"),
    ("translation focus not in the target", ["translate", DEFAULT, "--target", "Le chat",
                                             "--focus", "chien", "-o", "{o}"],
     "is not a word of the translation"),
    ("translation by an encoder-only model", ["translate", DEFAULT, "--model", "minilm",
                                              "--target", "Le chat", "-o", "{o}"],
     "is no encoder–decoder folder"),
    ("burnt captions in a GIF", ["render", DEFAULT, "--burn-captions", "-o",
                                 "{t}/out/film.gif"], "is a GIF, whose 256 colours"),
    ("unknown pace", ["render", DEFAULT, "--pace", "x", "-o", "{o}"],
     "'x' is not one of 'normal', 'slow'"),
    ("unknown pauses", ["pack", DEFAULT, "--pauses", "x", "--out", "{t}/out/pack"],
     "'x' is not one of 'none', 'beats', 'steps'"),
    ("burnt captions without room", ["render", DEFAULT, "--burn-captions", "--resolution",
                                     "64x36", "-o", "{o}"], "give a --resolution of at least"),
    ("burnt captions in a pack without room", ["pack", DEFAULT, "--burn-captions",
                                               "--resolution", "64x36", "--out",
                                               "{t}/out/pack"], "give a --resolution of at least"),
    ("translation film not a video", ["translate", DEFAULT, "--target", "Le chat", "-o",
                                      "{t}/out/film.txt"], "must end in .mp4, .webm or .gif"),
    ("writing by an encoder", ["generate", DEFAULT, "--model", "minilm", "-o", "{o}"],
     "is an encoder"),
    ("writing film not a video", ["generate", DEFAULT, "--model", "minilm", "-o",
                                  "{t}/out/film.txt"], "must end in .mp4, .webm or .gif"),
    ("labelled data of another format", ["experiment", "heads", "--data", "{t}/a-file",
                                         "--out", "{t}/out/sweep"], ".csv, .tsv or .jsonl"),
    ("head count not dividing d-model", ["experiment", "heads", "--heads", "1,3", "--out",
                                         "{t}/out/sweep"], "does not divide --d-model 512"),
    ("experiment output exists", ["experiment", "heads", "--out", "{t}/out"],
     "already exist"),
]
# rows run in a folder of their own (its settings file is the bad input)
IN_FOLDER = {"settings file not a regular file": "settings-folder",
             "settings table not a table": "settings-pyproject",
             "settings output outside its folder": "settings-outside"}
# rows whose bad input is an environment variable: (variable, value)
ENVIRONMENT = {"cache cap not a whole number": ("ATTENTION_EXPLAINER_CACHE_MB", "1e400"),
               "cache cap negative": ("ATTENTION_EXPLAINER_CACHE_MB", "-1"),
               "cache off for a course": ("ATTENTION_EXPLAINER_CACHE_MB", "0"),
               "beat cache unusable for a course": ("XDG_CACHE_HOME", "{t}/a-file/deeper"),
               "output folder variable not writable": ("ATTENTION_EXPLAINER_OUTPUT_DIR", "/proc/x"),
               "option variable out of range": ("ATTENTION_EXPLAINER_FPS", "0"),
               "output inside the beat cache": ("XDG_CACHE_HOME", "{t}/xdg")}


@pytest.mark.parametrize("name, argv, fragment", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input_row(name, argv, fragment, setup, run_cli, monkeypatch):
    tmp, out = setup
    model_files.cache_clear()
    if name == "cuda without cuda":
        monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    if name == "tampered weights":
        monkeypatch.setenv(bert.MINILM_DIR_ENV, str(_tampered_minilm(tmp)))
    if name in IN_FOLDER:
        monkeypatch.chdir(tmp / IN_FOLDER[name])
    if name in ENVIRONMENT:
        variable, value = ENVIRONMENT[name]
        monkeypatch.setenv(variable, value.format(t=tmp))
    before = _files(out)
    args = [a.format(o=out / "video.mp4", t=tmp, course=ROOT / "examples" / "course.toml")
            for a in argv]
    code, stdout, stderr = run_cli(*args)
    model_files.cache_clear()
    assert code == 2, (code, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr + stdout
    assert fragment in lines[0], lines[0]
    assert _files(out) == before            # nothing new, nothing changed


def test_unexpected_failure_is_one_line_and_debug_shows_traceback(run_cli, monkeypatch):
    import attention_explainer.attention_core.api

    def broken(request):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(attention_explainer.attention_core.api, "trace_for", broken)
    monkeypatch.setenv("ATTENTION_EXPLAINER_CACHE_MB", "0")    # no kept trace: the model runs
    code, out, err = run_cli("inspect", DEFAULT)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "--debug" in err and "simulated bug" in err
    code, out, err = run_cli("--debug", "inspect", DEFAULT)
    assert code == 1 and "Traceback" in err


@pytest.mark.parametrize("sentence", ["../../etc/passwd", "/abs/path", "a\x00b", "..", "我爱你",
                                      "<b>&amp;</b> $x$ \\input{x}"])
def test_slugs_are_safe_names(sentence):
    from attention_explainer.files.outputs import slugify

    slug = slugify(sentence)
    assert slug and set(slug) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert "/" not in slug and ".." not in slug and not slug.startswith("-")


def test_nul_in_sentence_is_refused(run_cli):
    code, out, err = run_cli("inspect", "The cat\x00 ate")
    assert code == 2 and "NUL" in err and len(err.strip().splitlines()) == 1


def test_the_error_page_lists_every_row():
    from tests.conftest import documentation_page

    section = documentation_page("errors.md")
    for name, _, _ in ROWS + TRACE_AND_MODEL_ROWS:
        assert name in section, f"docs/errors.md's table lacks the row {name!r}"


def test_sizes_are_refused_before_anything_is_parsed(run_cli, tmp_path):
    """A sentence of more than 100,000 characters, and a model's tokenizer.json larger than
    any released one, are refused by their size at once (a 10 MB sentence was tokenized
    for 28 s and 2.6 GB before it was called too long)."""
    import os

    from attention_explainer.attention_core import bert
    from attention_explainer.attention_core.api import model_files

    code, _, err = run_cli("inspect", "cat " * 25001)
    assert code == 2 and "characters long, more than the 100000 read" in err, err
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copyfile(bert.minilm_dir() / name, folder / name)
    (folder / "tokenizer.json").write_bytes(b"")
    os.truncate(folder / "tokenizer.json", 100 << 20)       # sparse: nothing written
    model_files.cache_clear()
    code, _, err = run_cli("inspect", "The cat ate the fish", "--model", folder)
    model_files.cache_clear()
    assert code == 2 and "tokenizer.json is 100 MB, more than the 64 MB it may be" in err, err
    assert len(err.strip().splitlines()) == 1


def test_control_characters_of_the_users_text_never_reach_the_terminal(run_cli, tmp_path):
    code, _, err = run_cli("frames", "--contact-sheet", "a\x07b\x1b[31m.bmp",
                           "--out", tmp_path / "stills")
    assert code == 2 and "a\\x07b\\x1b[31m.bmp" in err, err
    assert not any(ord(ch) < 32 and ch != "\n" for ch in err), repr(err)


def test_a_settings_file_or_shard_index_too_large_is_refused_unread(run_cli, tmp_path,
                                                                      monkeypatch):
    """The one rule for a user's file (attention_core.user_files) on the settings file and
    a model's shard index: larger than any real one, refused by its size, never read."""
    import json
    import os
    import shutil

    from attention_explainer.attention_core.api import model_files
    from tests import tiny_models

    monkeypatch.chdir(tmp_path)
    (tmp_path / "attention-explainer.toml").write_bytes(b"")
    os.truncate(tmp_path / "attention-explainer.toml", 5 << 20)
    code, _, err = run_cli("inspect", "The cat ate the fish")
    assert code == 2 and "attention-explainer.toml is 5 MB, more than the 4 MB" in err, err
    os.remove(tmp_path / "attention-explainer.toml")
    folder = tiny_models.build("llama", tmp_path / "model")
    shutil.move(folder / "model.safetensors", folder / "own.safetensors")
    index = folder / "model.safetensors.index.json"
    index.write_text(json.dumps({"weight_map": {"norm.weight": "own.safetensors"}}))
    os.truncate(index, 2 << 20)
    model_files.cache_clear()
    code, _, err = run_cli("inspect", "The cat ate the fish", "--model", folder)
    model_files.cache_clear()
    assert code == 2 and "model.safetensors.index.json is 2 MB, more than the 1 MB" in err, err
    assert len(err.strip().splitlines()) == 1
