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

__all__ = ["DATA_FILES", "PACKAGE", "drawing_sources", "package_root", "scenes_source_hash"]

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
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        return set()          # cannot run either; its bytes are hashed all the same
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    # the package root's functions are its lazy API (explainer, the CLI): they never run
    # when the drawing imports its modules, so only its module-level imports count
    nodes = tree.body if name == PACKAGE else _statements(tree.body)
    for node in nodes:
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
