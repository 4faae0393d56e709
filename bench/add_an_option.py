"""Proof that an option is declared once: add one to a copy of the tree and run the suite.

As ``add_a_beat.py`` does for a beat: the copy is the tracked tree (``git ls-files``) in a
temporary folder under its own git repository, so what the option touches is read from
``git status``. The option, ``--credit TEXT``, sets a line under the title (a lecturer's
name, a course); adding it means writing:

- its field in ``scenes/film/settings.py`` (its default, parser and help),
- the code that reads it, in ``scenes/film/beats/title.py``,
- its test, ``tests/test_credit_option.py``.

From the field alone the option reaches ``render``, ``pack``, ``frames`` and
``narration-script`` (click's options are made from the fields), the Python API (``ae.render(credit=...)``,
checked by type, in its signature), a settings file and ``ATTENTION_EXPLAINER_CREDIT``, a
course's keys and its outputs' fingerprints, and the beat cache's key; the test checks
each of these in the copy.

The copy's tests then run against the copy (``PYTHONPATH`` puts it first): ``--full``
runs the whole suite, else ``make check``'s tests, the new test and the tests of the
faces (the API, the settings, the course). ``--files-only`` adds the option, prints the
files touched and, last, their count ("N files"), and runs nothing. The result goes to
bench/results/add-an-option.json and bench/RESULTS.md.

    python bench/add_an_option.py [--full | --files-only]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from add_a_beat import check_tests, copy_tree, record, run_copy_tests, touched_files  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "bench" / "results" / "add-an-option.json"
MOST_FILES = 4          # issue 59: an option reaching CLI, API, settings and course

# the field, and its parser, in scenes/film/settings.py
PARSER = '''

def one_line(value) -> str:
    """A line of text: its runs of white space as one space, at most 80 characters."""
    if not isinstance(value, str):
        raise InputError(f"{str(value)[:40]!r} is not text.")
    line = " ".join(value.split())
    if len(line) > 80:
        raise InputError(f"{line[:20]!r}... is {len(line)} characters; give at most 80.")
    return line
'''
FIELD = '''
    credit: str = setting(
        "", parse=one_line, metavar="TEXT",
        help="A line under the title: who gives the lecture, the course (at most 80 "
             "characters).")
'''
# where the title beat reads it: under the heading, in the small dim line's style
USE = '''        if self.film.settings.credit:
            credit = user_text(self.film.settings.credit, style.FONT_SMALL,
                               style.PALETTE.dim)
            heading = VGroup(heading, credit.next_to(heading, DOWN, buff=0.12))
'''
TEST = '''"""--credit (bench/add_an_option.py): one field of FilmSettings reaches every face."""
from __future__ import annotations

import numpy as np
from PIL import Image

from tests.conftest import run_warm

SENTENCE = "The cat ate the fish"
STILL = ["--beat", "title", "--at", "3", "--resolution", "320x180"]   # the heading is up


def _still(folder):
    return np.asarray(Image.open(folder / "title-3.00s.png").convert("RGB"), dtype=int)


def test_the_credit_reaches_the_command_line_the_api_and_the_settings(tmp_path):
    import attention_explainer as ae

    plain, credited = tmp_path / "plain", tmp_path / "credited"
    assert run_warm("frames", SENTENCE, *STILL, "--out", plain).returncode == 0
    made = run_warm("frames", SENTENCE, *STILL, "--out", credited, "--credit", "Prof. Ada")
    assert made.returncode == 0, made.stderr
    assert np.abs(_still(plain) - _still(credited)).sum() > 0
    # the API draws the same still, and refuses a credit that is not text
    ae.frames(SENTENCE, tmp_path / "api", beats="title", at="3", resolution="320x180",
              credit="Prof. Ada")
    assert np.array_equal(_still(tmp_path / "api"), _still(credited))
    try:
        ae.render(SENTENCE, tmp_path / "x.mp4", credit=42)
    except ae.InputError as exc:
        assert str(exc).startswith("credit ")
    else:
        raise AssertionError("a credit of 42 was taken")
    # a variable sets it where the command line does not
    env = {"ATTENTION_EXPLAINER_CREDIT": "Prof. Ada"}
    assert run_warm("frames", SENTENCE, *STILL, "--out", tmp_path / "env",
                    env=env).returncode == 0
    assert np.array_equal(_still(tmp_path / "env"), _still(credited))
    assert "--credit TEXT" in run_warm("render", "--help").stdout


def test_a_course_takes_the_credit_and_its_fingerprint_keeps_it(tmp_path):
    from attention_explainer.app import fingerprints
    from attention_explainer.app.course import load_course

    path = tmp_path / "course.toml"
    path.write_text('[[explainer]]\\nsentence = "The cat ate the fish"\\n'
                    'credit = "Prof.   Ada"\\n', encoding="utf-8")
    plan, = load_course(path)
    assert plan.settings.credit == "Prof. Ada"
    assert fingerprints.made_from(plan)["credit"] == "Prof. Ada"
'''


def add_the_option(tree: Path) -> None:
    """The field and its parser, the title beat's reading of it, its test."""
    settings = tree / "scenes/film/settings.py"
    text = settings.read_text(encoding="utf-8")
    at = text.index("\n\n@dataclass(frozen=True)\nclass FilmSettings")
    text = text[:at] + PARSER + text[at:]
    at = text.index("\n    def __post_init__(self):")
    settings.write_text(text[:at] + FIELD + text[at:], encoding="utf-8")
    title = tree / "scenes/film/beats/title.py"
    text = title.read_text(encoding="utf-8")
    at = text.index("        self.heading = heading\n")
    title.write_text(text[:at] + USE + text[at:], encoding="utf-8")
    (tree / "tests/test_credit_option.py").write_text(TEST, encoding="utf-8")


# the faces' tests (the API's, the settings', the course's, the captions' pace) beside make
# check's own and the new one
FACE_TESTS = ["tests/test_python_api.py", "tests/test_settings.py", "tests/test_course.py",
              "tests/test_captions.py", "tests/test_credit_option.py"]


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="add-an-option-") as tmp:
        tree = copy_tree(Path(tmp))
        add_the_option(tree)
        touched = touched_files(tree)
        if "--files-only" in argv:
            print("\n".join(touched))
            print(f"{len(touched)} files")
            return 0 if len(touched) <= MOST_FILES else 1
        tests = ["tests"] if "--full" in argv else sorted(set(check_tests() + FACE_TESTS))
        ran = run_copy_tests(tree, tests)
    ok = record(REPORT, "add an option", "## add an option: the files a new option touches",
                f"`bench/add_an_option.py{' --full' if '--full' in argv else ''}`: an "
                "option, `--credit TEXT` (a line under the title), added to a copy of the "
                "tree (its field in `FilmSettings` with its parser, the title beat's reading "
                "of it, its test), then the copy's tests run against the copy; its test "
                "finds it in `render --help`, `frames`, `ae.frames` and `ae.render`, a "
                "variable, a course and a course's fingerprint.", touched, MOST_FILES, tests,
                ran)
    print(f"{len(touched)} files")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
