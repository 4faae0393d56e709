"""What the drawing code is made of: every file of the package that the scenes import.

A beat's pixels depend on the scenes' source and on every module of ours they reach: the
numbers a beat draws come from ``attention_core`` (derived, projection, ...), its texts
from the style and the fonts' configuration. The beat cache's keys and the kept texts'
names carry :func:`scenes_source_hash`, so a change to any of those files makes them new,
and a change to a file the drawing never imports (the course runner, the CLI) does not.

The files are found by reading the imports in each file's syntax tree (at the top and
inside functions, relative ones resolved), from every module of ``scenes`` (beats are
imported lazily by name, so each is a start), transitively. Manim-free.
"""
from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

__all__ = ["DATA_FILES", "PACKAGE", "all_import_statements", "drawing_sources", "import_statements",
           "package_root", "scenes_source_hash"]

PACKAGE = "attention_explainer"
DATA_FILES = ("scenes/vocabulary/fonts.conf",)     # read by the drawing, not imported: hashed too


def package_root() -> Path:
    """The installed package's folder (the repository root in an editable install)."""
    return Path(__file__).resolve().parents[2]


def scenes_source_hash(root: Path | str | None = None) -> str:
    """A hash of the relative paths and bytes of every file the drawing imports under
    ``root`` (default: the installed package, computed once per process) and of
    :data:`DATA_FILES`."""
    if root is None:
        return _installed_hash()
    return _hash(Path(root))


@lru_cache(maxsize=1)
def _installed_hash() -> str:
    return _hash(package_root())


def _hash(root: Path) -> str:
    digest = hashlib.sha256()
    files = drawing_sources(root) + [root / name for name in DATA_FILES
                                     if (root / name).is_file()]
    for path in sorted(set(files), key=lambda p: p.relative_to(root).as_posix()):
        data = path.read_bytes()
        name = path.relative_to(root).as_posix().encode()
        # lengths first: no two different sets of files hash the same stream
        digest.update(b"%d:%s%d:" % (len(name), name, len(data)))
        digest.update(data)
    return digest.hexdigest()


def drawing_sources(root: Path) -> list[Path]:
    """Every .py file of the package under ``root`` that the scenes reach by importing,
    the scenes' own included (and the ``__init__`` of each package on the way)."""
    todo = [_module_name(root, path) for path in sorted((root / "scenes").rglob("*.py"))
            if "__pycache__" not in path.parts]
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(root, name)
        if path is None:
            continue
        seen[name] = path
        todo += _parents(name) + sorted(_imports(root, name, path))
    return sorted(seen.values())


def _module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE,) + parts)


def _module_file(root: Path, name: str) -> Path | None:
    """The file of module ``name`` of our package under ``root``, or None (not ours, or
    an attribute rather than a module)."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    folder = root.joinpath(*name.split(".")[1:])
    for path in (folder.with_suffix(".py") if folder != root else None,
                 folder / "__init__.py"):
        if path is not None and path.is_file():
            return path
    return None


def _parents(name: str) -> list[str]:
    """Importing a.b.c runs a and a.b first."""
    parts = name.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def _imports(root: Path, name: str, path: Path) -> set[str]:
    """The absolute names a module imports, anywhere in it; ``from X import y`` gives X
    and X.y (y may be a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    # the package root's functions are its lazy API (explainer, the CLI): they never run
    # when the drawing imports its modules, so only its module-level imports count
    for node in import_statements(path.read_bytes(), top_level=name == PACKAGE):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                if not base:
                    continue
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.add(prefix)
            names |= {f"{prefix}.{alias.name}" for alias in node.names if alias.name != "*"}
    return names


def import_statements(source: bytes, top_level: bool = False) -> list:
    """The import statements of a module's source (with ``top_level``, those at its top
    level alone), parsed from the lines that start one: a statement begins a line, so
    only those lines (and their continuations) need parsing, not the whole file (most of
    a process's time to key the beat cache). A line in a string that reads like an import
    adds a name at worst, hashing a file more; tests/test_code_layout.py checks that every
    file of ours states its imports so (none after ``;`` or ``if x:`` on one line)."""
    try:
        lines = source.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return []
    found = []
    n = 0
    while n < len(lines):
        line = lines[n]
        stripped = line.lstrip()
        start, n = n, n + 1
        if not stripped.startswith(("import ", "from ")) or (top_level and stripped != line):
            continue
        statement = [stripped]
        while n < len(lines) and (statement[-1].rstrip().endswith("\\")
                                  or _unclosed("\n".join(statement))):
            statement.append(lines[n])
            n += 1
        try:
            found += ast.parse("\n".join(statement)).body
        except (SyntaxError, ValueError):
            n = start + 1     # prose in a string: the lines it took are read as lines
    return [node for node in found if isinstance(node, (ast.Import, ast.ImportFrom))]


def _unclosed(text: str) -> bool:
    return text.count("(") > text.count(")")


def all_import_statements(source: bytes, top_level: bool = False) -> list:
    """The import statements :func:`import_statements` must find, from the whole syntax
    tree (the tests compare the two)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    nodes = tree.body if top_level else _statements(tree.body)
    return [node for node in nodes if isinstance(node, (ast.Import, ast.ImportFrom))]


def _statements(body: list):
    """Every statement in ``body``, nested ones too (an import is a statement, never part
    of an expression: walking the statements alone finds them all, several times faster
    than walking every node)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
            yield from _statements(part.body)
