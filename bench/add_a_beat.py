"""Proof that a beat is one unit: add a trivial beat to a copy of the tree and run the suite.

The copy is the tracked tree (``git ls-files``) in a temporary folder, under its own git
repository so that what the beat touches is read from ``git status``. The beat, ``recap``,
closes the film with one line; adding it means writing:

- its module, ``scenes/film/beats/recap.py`` (its script),
- its entry in the storyboard, ``facts.BEATS`` (its name, title, seconds, question),
- its golden key frame, made by ``make golden`` (every other golden must stay byte-equal).

The documentation's storyboard page, the tests that walk every beat, the estimates and the
pack read the beat from ``facts.BEATS``; nothing else names it.

The copy's tests then run against the copy (``PYTHONPATH`` puts it first): ``--full`` runs
the whole suite, else ``make check``'s tests and the tests that walk every beat. The result
(files touched, tests passed) goes to bench/results/add-a-beat.json and bench/RESULTS.md.

    python bench/add_a_beat.py [--full]
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "bench" / "results" / "add-a-beat.json"
MOST_FILES = 3          # issue 36: a beat is its module, its storyboard entry, its golden

BEAT_MODULE = '''"""Beat recap: one line over the summary's picture (a trivial beat: the proof that
adding a beat is its module, its entry in facts.BEATS and its golden)."""
from __future__ import annotations

from ...vocabulary.headers import beat_line
from ..beat import Beat
from .summary import SummaryBeat

__all__ = ["RecapBeat"]


class RecapBeat(Beat):
    name = "recap"

    @classmethod
    def leaves(cls, film):
        return SummaryBeat.leaves(film)      # the stage it was given, handed on unchanged

    def script(self):
        self.open(beat_line("What this head does, in one line"), None)
        self.say("Before the payoff: what does this head do, in one line?")
        self.wait()
'''
BEAT_ENTRY = '''
    BeatFacts("recap", seconds=6, title="Recap", shows="one line over the whole matrix",
              ask="What would you tell a friend this head does?"),'''
# the tests that walk every beat (their key frames, their stages, a film, a pack) besides
# make check's own
EVERY_BEAT_TESTS = ["tests/test_beats.py", "tests/test_video.py", "tests/test_lecture_pack.py",
                    "tests/test_film.py", "tests/test_estimate.py", "tests/test_one_truth.py",
                    "tests/test_docs.py"]


def run(command: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)


def copy_tree(into: Path) -> Path:
    """The tracked files of this checkout under ``into``/attention_explainer, committed."""
    tree = into / "attention_explainer"
    files = run(["git", "ls-files", "-z"], ROOT).stdout.split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    for step in (["git", "init", "-q"], ["git", "add", "-A"],
                 ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost",
                  "commit", "-qm", "copy"]):
        run(step, tree).check_returncode()
    return tree


def add_the_beat(tree: Path) -> None:
    """The beat's module, and its entry in the storyboard between summary and update (in
    the default film: the film around it must hold as it did)."""
    (tree / "scenes/film/beats/recap.py").write_text(BEAT_MODULE, encoding="utf-8")
    facts = tree / "facts.py"
    text = facts.read_text(encoding="utf-8")
    at = text.index('    BeatFacts("update"')
    facts.write_text(text[:at] + BEAT_ENTRY.lstrip("\n") + "\n" + text[at:], encoding="utf-8")


def check_tests() -> list[str]:
    """The tests `make check` runs (the Makefile's CHECK_TESTS)."""
    return re.search(r"CHECK_TESTS := (.*?)\ncheck:", (ROOT / "Makefile").read_text(),
                     re.S).group(1).replace("\\\n", " ").split()


def run_copy_tests(tree: Path, tests: list[str]):
    """``tests`` of the copy ``tree`` run against the copy (``PYTHONPATH`` puts it first):
    (pytest's process, its seconds, its last line)."""
    python = str(Path(sys.prefix) / "bin" / "python")
    env = {**os.environ, "PYTHONPATH": str(tree.parent)}
    found = run([python, "-c", "import attention_explainer as a; print(a.__file__)"], tree,
                env).stdout.strip()
    assert found.startswith(str(tree.parent)), f"the copy is not what runs: {found}"
    started = time.perf_counter()
    suite = run([python, "-m", "pytest", "-q", "-n", str(os.cpu_count() + 1),
                 "--dist", "loadfile", "-p", "no:cacheprovider", *tests], tree, env)
    seconds = time.perf_counter() - started
    return suite, seconds, (suite.stdout.strip().splitlines()[-1] if suite.stdout.strip()
                            else "")


def record(report: Path, section: str, title: str, what: str, touched: list[str],
           most: int, tests: list[str], run_result) -> bool:
    """The result written to ``report`` (JSON) and to bench/RESULTS.md's ``section``;
    whether it holds (the tests passed and at most ``most`` files were touched)."""
    suite, seconds, summary = run_result
    result = {"touched": touched, "most_files": most, "tests": tests, "pytest": summary,
              "passed": suite.returncode == 0, "seconds": round(seconds),
              "machine": machine()}
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    ok = suite.returncode == 0 and len(touched) <= most
    update_section(section, "\n".join([
        title, "", what, "",
        f"- files touched: {len(touched)} (at most {most}): "
        + ", ".join(f"`{t}`" for t in touched),
        f"- tests: {'the whole suite' if tests == ['tests'] else ', '.join(tests)}",
        f"- pytest: {summary} ({seconds:.0f} s)",
        f"- result: {'holds' if ok else 'FAILS'}",
        f"- machine: {machine()}"]))
    print(json.dumps(result, indent=2))
    if suite.returncode:
        print(suite.stdout[-4000:])
    return ok


def touched_files(tree: Path) -> list[str]:
    """The files of the copy changed or added since it was committed (``git status``)."""
    return sorted(line[3:] for line in run(["git", "status", "--porcelain",
                                            "--untracked-files=all"], tree).stdout
                  .splitlines())


def main(argv: list[str]) -> int:
    python = str(Path(sys.prefix) / "bin" / "python")
    with tempfile.TemporaryDirectory(prefix="add-a-beat-") as tmp:
        tree = copy_tree(Path(tmp))
        add_the_beat(tree)
        env = {**os.environ, "PYTHONPATH": tmp}
        made = run([python, "-m", "tests.make_golden"], tree, env)
        made.check_returncode()
        touched = touched_files(tree)
        tests = ["tests"] if "--full" in argv else sorted(set(check_tests() + EVERY_BEAT_TESTS))
        ran = run_copy_tests(tree, tests)
    ok = record(REPORT, "add a beat", "## add a beat: the files a new beat touches",
                f"`bench/add_a_beat.py{' --full' if '--full' in argv else ''}`: a trivial "
                "beat, `recap`, added to a copy of the tree (its module, its `facts.BEATS` "
                "entry, its golden from `make golden`), then the copy's tests run against "
                "the copy.", touched, MOST_FILES, tests, ran)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
