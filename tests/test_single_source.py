"""Shared facts live once, in ``facts.py``: no other module of the project writes out a
list of themes, qualities, resolutions, beats or dtypes, a beat's title, a drawing limit,
a range or an option's default again (it reads them from ``facts``)."""
from __future__ import annotations

import ast

import pytest

from attention_explainer import facts
from tests.test_architecture import MODULES

GROUPS = {
    "themes": set(facts.THEMES), "qualities": set(facts.QUALITIES),
    "resolutions": set(facts.RESOLUTIONS), "beats": set(facts.BEAT_NAMES),
    "dtypes": set(facts.DTYPES),
    "trace options": set(facts.TRACE_DECIDES) | {o.replace("_", "-") for o in facts.TRACE_DECIDES},
}
# how many members make a list a copy: beat names and trace options are also common words
# ("mask", "heads", "title"), so a pair of them is not yet a copy
ENOUGH = {"beats": 3, "trace options": 4}
# trace options are also the names of a trace file's fields: only a list of options alone
ONLY_MEMBERS = {"trace options"}
TEXTS = {b.title: f"the {b.name} beat's title" for b in facts.BEATS} | {
    b.shows: f"what the {b.name} beat shows" for b in facts.BEATS}
RANGES = {tuple(facts.FPS_RANGE): "FPS_RANGE", tuple(facts.MAX_TOKENS_RANGE): "MAX_TOKENS_RANGE"}
DEFAULTS = {**facts.TRACE_DEFAULTS, "theme": facts.DEFAULT_THEME,
            "quality": facts.DEFAULT_QUALITY, "resolution": facts.DEFAULT_RESOLUTION,
            "fps": facts.DEFAULT_FPS, "max_tokens": facts.DEFAULT_MAX_TOKENS}
LIMITS = {facts.MAX_TOKENS_DRAWN: "MAX_TOKENS_DRAWN"}
SOURCES = {name: path for name, path in MODULES.items() if not name.endswith(".facts")}


def _strings(node) -> list[str]:
    return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _option_name(call: ast.Call) -> str | None:
    """The parameter a click.option declares: its last "--long" name, as click names it."""
    flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    plain = [f for f in flags if not f.startswith("-")]
    longs = [f for f in flags if f.startswith("--")]
    if plain:
        return plain[0]
    return longs[0][2:].replace("-", "_") if longs else None


def copies_in(tree: ast.AST) -> list[str]:
    """What a module's syntax writes out that ``facts`` holds."""
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        # a table keyed by the members (a palette per theme) is data about them, not a copy
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = _strings(node)
            for group, members in GROUPS.items():
                if group in ONLY_MEMBERS and not set(items) <= members:
                    continue
                if len(set(items) & members) >= ENOUGH.get(group, 2):
                    found.append(f"line {line}: the {group} listed again")
            numbers = tuple(e.value for e in getattr(node, "elts", []) if isinstance(e, ast.Constant))
            if numbers in RANGES and len(numbers) == len(getattr(node, "elts", [])):
                found.append(f"line {line}: {RANGES[numbers]} written out")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in TEXTS:
                found.append(f"line {line}: {TEXTS[node.value]} written out")
        elif isinstance(node, ast.Call):
            found += _call_copies(node, line)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant)
                                               and isinstance(node.value, str)):
            parts = [node.value] if isinstance(node, ast.Constant) else [
                v.value for v in node.values if isinstance(v, ast.Constant)]
            for part in parts:
                for number, name in LIMITS.items():
                    words = part.replace("(", " ").replace(")", " ").split()
                    if str(number) in words and "token" in part:
                        found.append(f"line {node.lineno}: {name} ({number}) written in a text")
    return found


def _call_copies(node: ast.Call, line: int) -> list[str]:
    found = []
    func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    numbers = tuple(a.value for a in node.args if isinstance(a, ast.Constant))
    if func in ("IntRange", "range_check") and numbers in RANGES and len(numbers) == len(node.args):
        found.append(f"line {line}: {RANGES[numbers]} written out")
    if func == "option":
        name = _option_name(node)
        for kw in node.keywords:
            if kw.arg == "default" and isinstance(kw.value, ast.Constant) and name in DEFAULTS:
                found.append(f"line {line}: the default of --{name} written out")
    if func in ("get", "setdefault", "pop") and len(node.args) == 2 \
            and all(isinstance(a, ast.Constant) for a in node.args):
        key, value = (a.value for a in node.args)
        if key in DEFAULTS and value == DEFAULTS[key]:
            found.append(f"line {line}: the default of {key} written out")
    return found


@pytest.mark.parametrize("module", sorted(SOURCES))
def test_no_module_writes_out_a_shared_fact_again(module):
    tree = ast.parse(SOURCES[module].read_text(encoding="utf-8"))
    assert copies_in(tree) == [], f"{module}: read these from facts.py"


def test_the_check_finds_a_copy():
    """The test above can fail: each kind of copy is found."""
    code = ("THEMES = ['3b1b', 'illustrated']\n"
            "BEATS = ('title', 'embed', 'mask')\n"
            "click.option('--fps', default=30, type=click.IntRange(1, 120))\n"
            "TITLE = " + repr(facts.BEATS[0].title) + "\n"
            "MESSAGE = f'more than {16} tokens'\n"
            "NOTE = 'more than 16 tokens are drawn as a window'\n"
            "theme = merged.get('theme', '3b1b')\n")
    found = copies_in(ast.parse(code))
    assert len(found) == 7, found


def test_every_theme_has_a_palette_and_every_palette_a_theme():
    from attention_explainer.scenes.vocabulary import style
    assert set(style.PALETTES) == set(facts.THEMES)
