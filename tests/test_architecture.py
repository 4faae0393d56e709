"""The tree is the architecture: which package may import which, walked from the syntax
of every module of the project (imports inside functions included), and no cycles."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = "attention_explainer"
VOCABULARY = f"{PACKAGE}.scenes.vocabulary"
FILM = f"{PACKAGE}.scenes.film"
PIPELINE = f"{PACKAGE}.scenes.pipeline"
CORE = f"{PACKAGE}.attention_core"
COMMAND_LINE = (f"{PACKAGE}.cli", f"{PACKAGE}.commands", "click", "rich", "dask",
                "distributed")
MODEL_CODE = ("torch", "safetensors", "tokenizers", "transformers", f"{CORE}.api",
              f"{CORE}.bert", f"{CORE}.scratch", f"{CORE}.hf_models", f"{CORE}.model_kinds")
SKIPPED = {".venv", "build", "tests", "bench", "docs", "__pycache__", "renders", "media",
           "examples"}


def project_modules() -> dict[str, Path]:
    """Every module of the installed package: dotted name -> file."""
    modules = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if SKIPPED & set(rel.parts) or any(p.endswith(".egg-info") for p in rel.parts):
            continue
        parts = rel.with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        modules[".".join((PACKAGE,) + parts)] = path
    return modules


MODULES = project_modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def imports_of(name: str) -> set[str]:
    """The modules ``name`` imports (ours resolved to modules, others by their name), with
    the packages a dotted import runs first, except the importer's own ancestors (they are
    running already when it is imported)."""
    path = MODULES[name]
    here = name if _is_package(name) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[:len(here.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            subs = {f"{module}.{a.name}" for a in node.names} & MODULES.keys()
            found |= subs or {module}
            if len(subs) < len(node.names):
                found.add(module)
    ancestors = {".".join(name.split(".")[:n]) for n in range(1, name.count(".") + 1)}
    with_parents = set()
    for module in found:
        parts = module.split(".")
        with_parents |= {".".join(parts[:n]) for n in range(1, len(parts) + 1)}
    return {m for m in with_parents - ancestors - {name}
            if m in MODULES or not m.startswith(PACKAGE)}


GRAPH = {name: imports_of(name) for name in MODULES}


def _starts(name: str, prefixes) -> bool:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _breaking(importer_prefix, forbidden) -> list[str]:
    return sorted(f"{m} imports {i}" for m, imported in GRAPH.items()
                  if _starts(m, importer_prefix) for i in imported if _starts(i, forbidden))


def test_the_walk_sees_the_whole_tree():
    assert {VOCABULARY, FILM, PIPELINE, CORE, f"{PACKAGE}.cli", f"{PACKAGE}.facts"} <= MODULES.keys()
    assert f"{VOCABULARY}.style" in GRAPH[f"{VOCABULARY}.text"]
    assert f"{FILM}.registry" in GRAPH[f"{FILM}.scene"]
    # a function-level import counts: the registry loads a beat's module lazily
    assert f"{FILM}.beat" in GRAPH[f"{FILM}.registry"]


def test_the_vocabulary_imports_neither_the_film_nor_the_pipeline():
    assert _breaking(VOCABULARY, (FILM, PIPELINE)) == []


def test_the_film_never_imports_the_pipeline():
    assert _breaking(FILM, PIPELINE) == []


def test_the_drawing_never_imports_the_command_line_settings_rich_or_dask():
    assert _breaking(f"{PACKAGE}.scenes", COMMAND_LINE) == []


def test_the_core_imports_neither_manim_nor_the_drawing_nor_the_command_line():
    assert _breaking(CORE, ("manim", "manimpango", f"{PACKAGE}.scenes", *COMMAND_LINE)) == []


def test_the_drawing_never_imports_model_code():
    assert _breaking(f"{PACKAGE}.scenes", MODEL_CODE) == []


def test_the_facts_import_nothing_of_ours_and_no_drawing():
    assert {m for m in GRAPH[f"{PACKAGE}.facts"]
            if m.startswith(PACKAGE) or _starts(m, ("manim", "numpy"))} == set()


def test_the_course_never_imports_the_command_line_nor_click():
    """The course is run by `batch`, never the other way round: its watcher (bars, lines)
    is handed to it, and its entries are checked by the application's parsers
    (``app.values``), not by click's options."""
    assert _breaking(f"{PACKAGE}.course", COMMAND_LINE[:3] + ("click",)) == []


APPLICATION = f"{PACKAGE}.app"
FILES = f"{PACKAGE}.files"
FACES = (f"{PACKAGE}.cli", f"{PACKAGE}.commands", f"{PACKAGE}.explainer",
         f"{PACKAGE}.testing", "click", "rich")
# the layers, top to bottom: a module imports only its own layer's and those below it
LAYERS = [FACES[:4], (APPLICATION,), (f"{PACKAGE}.scenes",), (FILES,), (CORE,),
          (f"{PACKAGE}.facts",)]


def layer_of(name: str) -> int | None:
    return next((n for n, layer in enumerate(LAYERS) if _starts(name, layer)), None)


def test_the_root_holds_only_the_faces_and_the_shared_facts():
    """Everything else lives in a package that says its layer."""
    root = sorted(n for n in MODULES if n.count(".") == 1 and not _is_package(n))
    assert root == sorted([*FACES[:4:2], f"{PACKAGE}.testing", f"{PACKAGE}.facts"]), root


def test_the_drawing_never_writes_a_users_file():
    """The drawing draws into what it is handed (staging paths, a scratch folder, pictures
    in memory); opening, checking and committing the user's output set is the
    application's (``app.film``, ``app.stills``, ``app.work``)."""
    users_files = ("OutputSet", "video_outputs", "pack_outputs", "output_path",
                   "check_place", "refuse_links")
    found = sorted(f"{name} uses {node.names[0].name}" for name, path in MODULES.items()
                   if _starts(name, f"{PACKAGE}.scenes")
                   for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("outputs")
                   and any(a.name in users_files for a in node.names))
    assert found == []


def test_no_layer_imports_one_above_it():
    """faces -> application -> drawing -> the user's files -> numbers -> facts: no arrow
    points up (the files never import the drawing: the cache's folder lives in
    ``files.places``)."""
    upward = sorted(f"{m} imports {i}" for m, imported in GRAPH.items()
                    for i in imported if i in MODULES
                    and layer_of(m) is not None and layer_of(i) is not None
                    and layer_of(i) < layer_of(m))
    assert upward == []
    assert all(layer_of(m) is not None for m in MODULES if m != PACKAGE), \
        sorted(m for m in MODULES if m != PACKAGE and layer_of(m) is None)


def reached_from(name: str) -> set[str]:
    """Every module of ours that importing ``name`` may run (function-level imports
    included), and ``name`` itself."""
    seen, todo = set(), [name]
    while todo:
        module = todo.pop()
        if module in seen or module not in MODULES:
            continue
        seen.add(module)
        todo += GRAPH[module]
    return seen


def test_the_application_imports_none_of_its_faces():
    """The command line, the Python API and the pytest helper call the application; it
    calls none of them, and not click (its requests are values, its results too)."""
    assert _breaking(APPLICATION, FACES) == []


def test_the_faces_import_only_the_application_and_the_shared_facts():
    """The command line's commands and the Python API ask the application (``app``) for
    everything; of ours they import besides only the shared facts, the errors they refuse
    with, and each other's helpers (issue 59: a capability has one home, reached one way)."""
    allowed = (APPLICATION, f"{PACKAGE}.facts", f"{CORE}.errors", f"{PACKAGE}.commands",
               f"{PACKAGE}.explainer")
    found = sorted(f"{m} imports {i}" for m, imported in GRAPH.items()
                   if _starts(m, (f"{PACKAGE}.commands", f"{PACKAGE}.explainer"))
                   for i in imported if i.startswith(PACKAGE + ".") and i != CORE
                   and not _starts(i, allowed))
    assert found == []


def test_the_python_api_reaches_neither_click_nor_the_command_line():
    """``explainer`` asks the application, never the command line: no module it may import
    is the CLI's or imports click (issue 36: no argv, no stdout swapped)."""
    reached = reached_from(f"{PACKAGE}.explainer")
    assert sorted(m for m in reached if _starts(m, FACES[:2])) == []
    assert sorted(m for m in reached if any(_starts(i, ("click", "rich")) for i in GRAPH[m])) == []


def test_a_film_is_planned_in_one_place():
    """A render, a dry run, a film's timing and a course's workers plan with ``plan_film``:
    no module of the project makes a segment job of its own (a second maker would drift
    from the cache keys and the stage hand-offs the first one decides)."""
    makers = sorted(name for name, path in MODULES.items()
                    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(node, ast.Call) and getattr(node.func, "id",
                                                              getattr(node.func, "attr", None))
                    == "SegmentJob")
    assert makers == [f"{PIPELINE}.plan"], makers


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in GRAPH.get(node, ()):
            if nxt not in MODULES:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(MODULES):
        if name not in index:
            visit(name)
    return found


def test_no_import_cycles_anywhere():
    assert _cycles() == []


def _top_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [e.value for e in node.value.elts]
    return None


def test_every_public_module_says_what_it_exports():
    """``__all__`` in each module (packages' ``__init__`` and plain-manim's generated
    scenes aside), naming only what the module defines or imports."""
    missing, wrong = [], []
    for name, path in MODULES.items():
        if path.name == "__init__.py" or name.endswith("plain_manim"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exported = _declared_all(tree)
        if exported is None:
            missing.append(name)
        else:
            wrong += [f"{name}.{n}" for n in exported if n not in _top_level_names(tree)]
    assert missing == [] and wrong == []
