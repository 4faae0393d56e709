"""The Layout section of the internals page (docs/internals.md) is the tree: every file and folder it names exists where it
says, every package of the project is named there, and its one-hop pointers lead to the
code they name."""
from __future__ import annotations

import re

from tests.conftest import ROOT, documentation_page

README = documentation_page("internals.md")
SECTION = README.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
TREE = re.search(r"```\n(.*?)```", SECTION, re.S).group(1)
NAME = re.compile(r"[\w.-]+/?")


def named_paths() -> set[str]:
    """The paths the tree block names: an entry's first column, nested by two spaces."""
    paths, folders = set(), {}
    for line in TREE.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        entry = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        names = [n for n in NAME.findall(entry)
                 if ("." in n or n.endswith("/")) and n.strip(".")]   # "..." is no name
        if indent % 2 or indent > 8 or not names or entry.startswith("`"):
            continue                         # a description's continuation line
        level = indent // 2
        parent = folders.get(level - 1, "") if level else ""
        for name in names:
            paths.add(parent + name.rstrip("/") if not name.endswith("/") else parent + name)
            if name.endswith("/"):
                folders[level] = parent + name
        for deeper in [k for k in folders if k > level]:
            del folders[deeper]
    return paths


def test_every_path_the_layout_names_exists():
    missing = sorted(p for p in named_paths() if not (ROOT / p.rstrip("/")).exists())
    assert missing == []


def test_every_package_of_the_project_is_in_the_layout():
    named = {p.rstrip("/") for p in named_paths()}
    packages = {init.parent.relative_to(ROOT).as_posix() for init in ROOT.rglob("__init__.py")
                if not {".venv", "build", "tests"} & set(init.relative_to(ROOT).parts)
                and init.parent != ROOT}
    assert sorted(packages - named) == []


def test_the_one_hop_pointers_lead_to_the_code():
    """"where the softmax is computed", "where a spark is drawn", "where a beat is cached"."""
    hops = dict(re.findall(r"(the softmax is computed|a spark is drawn|a beat is cached)"
                           r"[^`]*`([^`]+)`", " ".join(SECTION.split())))
    assert set(hops) == {"the softmax is computed", "a spark is drawn", "a beat is cached"}
    expected = {"the softmax is computed": r"def softmax|softmax\(",
                "a spark is drawn": r"class Spark\b", "a beat is cached": r"class BeatCache\b"}
    for what, where in hops.items():
        path, _, symbol = where.partition(":")
        text = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(expected[what], text), f"{what}: not in {path}"
        if symbol:
            assert re.search(rf"(def|class) {re.escape(symbol)}\b", text), where
