"""Shared by every test: offline, the repository root, the command line run in-process
or as a real process, the real model's default trace, and small synthetic traces."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")      # no network, ever
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# the beat cache of every render in the tests (and of the processes they start) is one
# private folder per test process (each xdist worker its own), never the user's ~/.cache.
# Made once per process: test modules import this file as `conftest` and as
# `tests.conftest`, and a second folder would leave the first behind
import tempfile  # noqa: E402

_OWNER = "ATTENTION_EXPLAINER_TESTS_CACHE_PID"
if os.environ.get(_OWNER) != str(os.getpid()):
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="attention-explainer-tests-cache-")
    os.environ[_OWNER] = str(os.getpid())
SESSION_CACHE = os.environ["XDG_CACHE_HOME"]


def pytest_unconfigure(config):
    """The process's beat cache goes with it: a suite run leaves nothing in the temporary
    folder; so does the warm command line (``run_warm``)."""
    import shutil

    if "tests.warm_cli" in sys.modules:
        sys.modules["tests.warm_cli"].close_shared()
    shutil.rmtree(SESSION_CACHE, ignore_errors=True)


DEFAULT = "The cat ate the fish"


def documentation() -> list[Path]:
    """The README, then every page of the documentation site in the order of its nav
    (mkdocs.yml): what a reader reads, in that order. Generated pages are not files."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(nav):
        for entry in nav:
            for value in (entry.values() if isinstance(entry, dict) else [entry]):
                if isinstance(value, list):
                    yield from pages(value)
                else:
                    yield value

    found = [ROOT / config["docs_dir"] / page for page in pages(config["nav"])]
    return [ROOT / "README.md"] + [page for page in found if page.is_file()]


def documentation_page(name: str) -> str:
    """One page of the documentation site (docs/NAME), as written."""
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


CLI = [sys.executable, "-m", "attention_explainer.cli"]     # the real command, as a process


def run_process(*args, timeout=600, **kwargs) -> subprocess.CompletedProcess:
    """`attention-explainer ARGS` as a separate process (signals, audit hooks, timing)."""
    return subprocess.run(CLI + [str(a) for a in args], cwd=kwargs.pop("cwd", ROOT),
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def run_warm(*args, timeout=600, cwd=ROOT, env=None) -> subprocess.CompletedProcess:
    """`attention-explainer ARGS` as a process of its own (its folder, variables, exit code
    and output), forked from one that imported torch and manim once (``tests.warm_cli``):
    for the tests whose subject is what a command does, not how a process starts or takes
    a signal (those use :func:`run_process`). Saves each command the ~1.5 s of CPU those
    imports cost."""
    from tests.warm_cli import shared

    return shared().run(*[str(a) for a in args], cwd=cwd, env=env, timeout=timeout)


@pytest.fixture
def our_manim():
    """Our changes to manim's classes in place for the test (as while a film draws:
    ``patches.our_drawing``), for mobjects built and audited outside a render."""
    from attention_explainer.scenes.vocabulary.patches import our_drawing

    with our_drawing():
        yield


@pytest.fixture(scope="session")
def default_trace():
    from attention_explainer.attention_core import compute_trace

    return compute_trace(DEFAULT)


@pytest.fixture
def run_cli(capsys):
    """Run the real CLI entry point in-process; returns (exit code, stdout, stderr)."""
    from attention_explainer import cli

    def run(*args):
        code = 0
        try:
            cli.main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return run


def synthetic_trace(words=("the", "cat", "ate", "the", "fish"), focus=2, heads=(3, 0),
                    d_model=24, d_k=8, seed=0):
    """A small, consistent trace made from seeded random numbers (no model)."""
    from attention_explainer.attention_core.trace import AttentionTrace

    rng = np.random.default_rng(seed)
    tokens = ("[CLS]",) + tuple(words) + ("[SEP]",)
    T, H = len(tokens), len(heads)
    emb = rng.normal(size=(T, d_model)).astype(np.float32)
    wq, wk, wv = (rng.normal(size=(H, d_model, d_k)) / np.sqrt(d_model) for _ in range(3))
    q = np.einsum("td,hdk->htk", emb, wq).astype(np.float32)
    k = np.einsum("td,hdk->htk", emb, wk).astype(np.float32)
    v = np.einsum("td,hdk->htk", emb, wv).astype(np.float32)
    scores = (q @ k.transpose(0, 2, 1) / np.sqrt(d_k)).astype(np.float32)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = (e / e.sum(-1, keepdims=True)).astype(np.float32)
    context = (weights @ v).astype(np.float32)
    special = [True] + [False] * len(words) + [True]
    meta = dict(model="synthetic", weights_sha256="none", layer=2, heads=list(heads),
                primary_head=heads[0], focus=tokens[focus + 1], focus_index=focus + 1,
                device="cpu", dtype="float32", sentence=" ".join(words), special=special,
                display_tokens=list(tokens), words=list(words), mask="none")
    trace = AttentionTrace(tokens=tokens, embeddings=emb, q=q, k=k, v=v, scores=scores,
                           mask=np.zeros((T, T), bool), weights=weights, context=context,
                           output=emb.copy(), meta=meta)
    trace.validate()
    return trace


def assert_numbers_rederive(trace, shown):
    """Every number drawn re-derives from the trace alone, as the same text."""
    from attention_explainer.attention_core.derived import lookup
    from attention_explainer.scenes.film.readouts import format_number

    assert shown, "no numbers were recorded"
    for n in shown:
        expected = format_number(lookup(trace, n.kind, n.index), n.decimals, n.signed)
        assert n.text == expected, n


def assert_refused(proc: subprocess.CompletedProcess, *fragments: str) -> str:
    """``proc`` exited 2 with one line on stderr, no traceback, holding every fragment."""
    err = proc.stderr.strip()
    assert proc.returncode == 2, (proc.returncode, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err
    return err


# The files that take minutes, longest first (measured on 2 cores with --durations): `make
# test` gives each worker whole files in the order collected (--no-loadscope-reorder), so
# these start first and the short ones fill in around them, rather than one long file
# starting last and running on alone. The corpus's films are independent and long: each
# goes out on its own, so the workers share them.
LONGEST_FILES = ("test_readme_examples.py", "test_course.py", "test_layout_corpus.py",
                 "test_course_rerun.py", "test_beat_tasks.py", "test_sacred_files.py",
                 "test_interrupts.py", "test_video.py", "test_film.py", "test_full_disk.py",
                 "test_frames_and_goldens.py", "test_beats.py", "test_lecture_pack.py",
                 "test_beat_cache_integrity.py", "test_cache_location.py",
                 "test_code_layout.py", "test_sentence_sweep.py", "test_course_failures.py",
                 "test_hostile_seq2seq_folders.py")
SPREAD_FILES = {"test_layout_corpus.py", "test_sentence_sweep.py"}


def pytest_collection_modifyitems(config, items):
    rank = {name: n for n, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))     # stable


def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, but each test of SPREAD_FILES on its own (xdist's loadgroup would
    do it by marks, but with pytest 9 its groups never reach the scheduler)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesAndSpreadTests(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if Path(path).name in SPREAD_FILES else path

    return FilesAndSpreadTests(config, log)


# where the suite's time goes, test by test and worker by worker: with
# ATTENTION_EXPLAINER_TEST_TIMELINE=FILE each test appends "worker start end nodeid" (wall
# seconds) to FILE (bench/slow_tests.py --timeline reads it: which file ran last and alone)
_TIMELINE = os.environ.get("ATTENTION_EXPLAINER_TEST_TIMELINE")

if _TIMELINE:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        import time

        start = time.time()
        yield
        with open(_TIMELINE, "a", encoding="utf-8") as fh:
            fh.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {start:.2f} "
                     f"{time.time():.2f} {item.nodeid}\n")
