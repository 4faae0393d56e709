"""Rules of the code base that a reader relies on: numbers and drawing stay apart, files
and functions stay short, beats do no bookkeeping of their own, the plain-manim scenes
work, and a lecture repo with its own `scenes/` and `cli.py` can use our frame helper."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.make_golden import TRACE

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
NOT_OURS = {".venv", "build", "__pycache__", "renders", "media"}


def sources():
    """Every Python file of the project: the package, its tests, benchmarks and tools."""
    return [path for path in sorted(ROOT.rglob("*.py"))
            if not NOT_OURS & set(path.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in path.relative_to(ROOT).parts)]


def test_importing_every_scene_module_loads_no_model():
    code = ("import sys, pkgutil, importlib\n"
            "import attention_explainer.scenes as s\n"
            "for m in pkgutil.walk_packages(s.__path__, s.__name__ + '.'):\n"
            "    if not m.name.endswith('plain_manim'):\n"
            "        importlib.import_module(m.name)\n"
            "bad = [m for m in ('torch', 'safetensors', 'tokenizers', 'transformers',\n"
            "       'attention_explainer.attention_core.bert') if m in sys.modules]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-1500:]


def test_files_and_functions_stay_short():
    """Every file of the project, tests and benchmarks included, with no exceptions."""
    long = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > MAX_FILE_LINES:
            long.append(f"{rel} has {len(lines)} lines")
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{rel}:{node.lineno} {node.name} has {length} lines")
    assert long == []


def test_the_beat_keys_quick_import_scan_finds_every_import():
    """The beat cache's key hashes every file the drawing imports, found by parsing only
    the lines that begin an import (sources.import_statements): in every file of ours it
    finds every import statement the whole syntax tree holds (none written after ``;``
    or ``if x:`` on one line), at the top level and anywhere."""
    from attention_explainer.scenes.pipeline.sources import (all_import_statements,
                                                             import_statements)

    missed = []
    for path in sources():
        source = path.read_bytes()
        for top_level in (True, False):
            quick = {ast.dump(n) for n in import_statements(source, top_level)}
            whole = {ast.dump(n) for n in all_import_statements(source, top_level)}
            missed += [f"{path.relative_to(ROOT)}: {d[:80]}" for d in whole - quick]
    assert missed == []
    # and it is the check that catches one: an import after a colon on its line
    hidden = b"import os\nif True: import json\n"
    assert len(import_statements(hidden)) < len(all_import_statements(hidden))


def test_the_walk_reaches_the_modules_once_skipped():
    names = {path.relative_to(ROOT).as_posix() for path in sources()}
    assert {"app/course.py", "app/lecture_pack.py", "commands/settings.py", "cli.py", "facts.py",
            "tests/conftest.py", "bench/bench_course.py"} <= names


def test_beats_leave_their_bookkeeping_to_the_film():
    """Key frame, hold, captions and clearing the stage are done once, by the film."""
    for path in sorted((ROOT / "scenes" / "film" / "beats").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for word in ("mark_key_frame", "clear_stage", "hold_captions", "caption_count"):
            assert word not in text, f"{path.name} does the film's bookkeeping ({word})"


def test_plain_manim_renders_a_generated_beat_scene(tmp_path):
    manim = Path(sys.executable).parent / "manim"
    env = dict(os.environ, ATTENTION_EXPLAINER_TRACE=str(TRACE))
    proc = subprocess.run([str(manim), "render", "-r", "160,90", "--fps", "5",
                           "--disable_caching", "--media_dir", str(tmp_path),
                           str(ROOT / "scenes" / "plain_manim.py"), "SoftmaxBeat"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    videos = [p for p in tmp_path.rglob("SoftmaxBeat.mp4") if "partial" not in str(p)]
    assert videos and videos[0].stat().st_size > 1000


def test_the_shipped_default_trace_is_the_golden_one():
    from attention_explainer.attention_core.trace import DEFAULT_TRACE
    assert DEFAULT_TRACE.read_bytes() == TRACE.read_bytes()


def readme_frame_test() -> str:
    """The documentation's example pytest file for a lecture repo (docs/goldens.md), as
    written there."""
    from tests.conftest import documentation_page

    readme = documentation_page("goldens.md")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    tests = [b for b in blocks if "assert_frame_matches" in b]
    assert len(tests) == 1, "docs/goldens.md should show one lecture-repo frame test"
    return tests[0]


@pytest.mark.slow
def test_readme_frame_test_passes_in_a_lecture_repo_with_its_own_scenes_and_cli(tmp_path):
    repo = tmp_path / "lecture"
    (repo / "scenes").mkdir(parents=True)
    (repo / "scenes" / "__init__.py").write_text("LECTURE = 'my own manim scenes'\n")
    (repo / "cli.py").write_text("def main():\n    print('the lecture repo\\'s own cli')\n")
    (repo / "golden").mkdir()
    test = readme_frame_test()
    beats = re.search(r"parametrize\(\"beat\", \[(.*?)\]\)", test).group(1)
    sentence = re.search(r'sentence="([^"]+)"', test).group(1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # step 1 of the README: the lecture's golden stills, written once on this machine
    wrote = subprocess.run([str(Path(sys.executable).parent / "attention-explainer"), "frames",
                            sentence, "--beat", ",".join(re.findall(r'"(\w+)"', beats)),
                            "--at", "key", "--resolution", "320x180", "--out", "golden"],
                           cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    assert wrote.returncode == 0, wrote.stderr[-2000:]
    (repo / "test_lecture_frames.py").write_text(test)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_lecture_frames.py"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "passed" in proc.stdout


def test_the_vocabularys_examples_run(tmp_path):
    """Every public noun's docstring example (doctest) works as written."""
    code = ("import doctest, importlib, pkgutil, sys\n"
            "from manim import config\n"
            "config.verbosity = 'ERROR'\n"
            "import attention_explainer.scenes as s\n"
            "from attention_explainer.scenes.vocabulary import style\n"
            "style.register_fonts()\n"
            "failed = 0\n"
            "for m in pkgutil.walk_packages(s.__path__, s.__name__ + '.'):\n"
            "    if m.name.endswith(('plain_manim',)) or '.beats' in m.name:\n"
            "        continue\n"
            "    failed += doctest.testmod(importlib.import_module(m.name)).failed\n"
            "sys.exit(1 if failed else 0)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]


def test_the_code_passes_the_linter():
    """ruff, as pyproject's [tool.ruff] configures it and `make check` runs it: no unused
    import or variable, no undefined name, no import below the code that needs it."""
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is installed with the dev extras (make setup)")
    proc = subprocess.run([str(ruff), "check", "--no-cache", "--quiet", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]
