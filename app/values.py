"""Every setting the faces share, as values: its parser (the same one for the command line's
text, a settings file's TOML value and the Python API's argument) and its built-in default.
The Python API and the course resolve and check their options here, without click; the
command line's option types read the same facts (ranges, choices, defaults)."""
from __future__ import annotations

import numbers
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..attention_core.errors import InputError
from ..facts import (DEFAULT_FPS, DEFAULT_MAX_TOKENS, DEFAULT_OUTPUT_DIR,
                     DEFAULT_PAUSES, DEFAULT_QUALITY, DEFAULT_RESOLUTION, DEFAULT_THEME, DTYPES, FPS_RANGE,
                     JOBS_RANGE, LENGTH_RANGE, LENGTHS, MAX_NEW_TOKENS_RANGE, MAX_TOKENS_RANGE,
                     PAUSES, QUALITIES, SEED_RANGE, THEMES, TRACE_DEFAULTS, TRANSLATION_DEFAULTS,
                     WRITING_DEFAULTS, WRITING_TOKENS_RANGE)
from ..scenes.film.registry import parse_beats
from ..scenes.film.settings import setting_specs
from ..scenes.pipeline.formats import parse_resolution
from .settings_file import ENV_PREFIX, ConfigFile, inside_settings_folder

__all__ = ["D_MODEL_RANGE", "NUM_HEADS_RANGE", "SEED_RANGE", "SETTINGS", "Setting",
           "parse_beats", "parse_heads", "parse_layer", "parse_millimetres", "parse_length", "parse_resolution", "parse_times", "resolved",
           "setting_value", "shared_values"]

D_MODEL_RANGE = (1, 8192)      # the scratch model: wider cannot be drawn or allocated sensibly
NUM_HEADS_RANGE = (1, 512)
# a layer's or a head's number, before the model is read: above any model's (the model
# checks its own count); below it, the number is a number (Python's int() takes it)
INDEX_LIMIT = 10_000


@dataclass(frozen=True)
class Setting:
    """One option as settings give it: ``parse`` takes it as written (text, or a TOML or
    Python value) and returns the value the application uses, or raises InputError."""
    parse: Callable[[object], object]
    default: object
    output: bool = False       # names an output place: a settings file's stays in its folder


def _whole(low: int, high: int):
    def parse(value):
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
                or not low <= value <= high:
            raise InputError(f"{value!r} is not a whole number from {low} to {high}.")
        return int(value)
    return parse


def _choice(choices):
    def parse(value):
        if value not in choices:
            raise InputError(f"{value!r} is not one of {', '.join(map(str, choices))}.")
        return value
    return parse


def _text(value):
    if not isinstance(value, str):
        raise InputError(f"{value!r} is not text.")
    return value


def _word(value):
    """Text as the command line takes it: a TOML or Python whole number as its digits (a
    layer 3, heads 5); the core checks it against the model."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(value)
    return _text(value)


def _flag(value):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise InputError(f"{value!r} is not true or false.")


def _optional(parse):
    return lambda value: None if value in (None, "") else parse(value)


def _index_text(value) -> str:
    """A --layer or --heads value as text: a TOML or Python whole number as its digits."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    if not isinstance(value, str):
        raise InputError(f"{value!r} is not text or a whole number.")
    return value.strip().lower()


def _indices_below_limit(numbers_text: list[str], what: str, spec) -> list[int]:
    if any(len(n) > len(str(INDEX_LIMIT)) or int(n) >= INDEX_LIMIT for n in numbers_text):
        raise InputError(f"{str(spec)[:20]!r} names a {what.rstrip('s')} no model has "
                         f"(they are numbered from 0, below {INDEX_LIMIT}).")
    return [int(n) for n in numbers_text]


def parse_millimetres(value) -> float:
    """--width-mm: a length on paper from 1 to 10000 millimetres (text or a number)."""
    try:
        number = float(value.strip()) if isinstance(value, str) else value
    except ValueError:
        number = None
    if isinstance(number, bool) or not isinstance(number, numbers.Real) \
            or not 1 <= float(number) <= 10000:          # NaN is no number here either
        raise InputError(f"{str(value)[:20]!r} is not a width from 1 to 10000 millimetres.")
    return float(number)


def parse_layer(spec) -> str:
    """--layer: auto, or a layer's number (the model checks that it has it); as text."""
    text = _index_text(spec)
    if text == "auto":
        return text
    if not re.fullmatch(r"\d+", text):
        raise InputError(f"{str(spec)[:40]!r} is malformed; use auto or a layer's "
                         "number, counted from 0 (e.g. 3).")
    return str(_indices_below_limit([text], "layer", spec)[0])


def parse_heads(spec) -> str:
    """--heads: auto, all, or heads' numbers, comma-separated, each once (the model checks
    that it has them); as text ("0,5")."""
    text = _index_text(spec)
    if text in ("auto", "all"):
        return text
    if not re.fullmatch(r"\d+(\s*,\s*\d+)*", text):
        raise InputError(f"{str(spec)[:40]!r} is malformed; use auto, all or heads' "
                         "numbers like 0,5,11 (counted from 0).")
    heads = _indices_below_limit(re.split(r"\s*,\s*", text), "heads", spec)
    if len(set(heads)) != len(heads):
        raise InputError(f"{str(spec)[:40]!r} names a head twice; list each head once.")
    return ",".join(map(str, heads))


def parse_length(spec) -> float | None:
    """--length: short, full (None: the film as it is) or seconds ("75", "75s", 75)."""
    text = str(spec).strip().lower() if spec is not None else "full"
    if text in LENGTHS:
        return LENGTHS[text]
    try:
        seconds = float(text.rstrip("s"))
    except ValueError:
        seconds = -1.0
    if not LENGTH_RANGE[0] <= seconds <= LENGTH_RANGE[1]:
        raise InputError(f"{spec!r} is not a length; use {' or '.join(LENGTHS)}, or seconds "
                         f"from {LENGTH_RANGE[0]:.0f} to {LENGTH_RANGE[1]:.0f} (e.g. 120).")
    return seconds


def parse_times(spec) -> list:
    """--at: seconds from the beat's start, key or end, comma-separated."""
    times = []
    for part in (p.strip().lower() for p in (str(spec) if spec is not None else "key").split(",")):
        if part in ("key", "end"):
            times.append(part)
            continue
        try:
            seconds = float(part.rstrip("s")) + 0.0      # + 0.0: "-0" is 0
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds < 3600:
            raise InputError(f"{part!r} is not a time; use seconds from the beat's start "
                             "(e.g. 1.5), key (the beat's key frame) or end, comma-separated.")
        times.append(seconds)
    return list(dict.fromkeys(times))


_RANGES = {"d-model": D_MODEL_RANGE, "num-heads": NUM_HEADS_RANGE, "seed": SEED_RANGE}
_PARSERS = {"dtype": _choice(DTYPES), "layer": parse_layer, "heads": parse_heads}
_TRACE = {name.replace("_", "-"): Setting(
    _whole(*_RANGES[name.replace("_", "-")]) if name.replace("_", "-") in _RANGES
    else _PARSERS.get(name, _word), default)
    for name, default in TRACE_DEFAULTS.items()}

# by setting name (a command line option's long name); the frames command's own names
# (beat, at, out) beside the render's (beats, output, output-dir)
SETTINGS: dict[str, Setting] = {
    "resolution": Setting(parse_resolution, DEFAULT_RESOLUTION),
    "fps": Setting(_whole(*FPS_RANGE), DEFAULT_FPS),
    "beats": Setting(parse_beats, "all"),
    "beat": Setting(parse_beats, "all"),
    "at": Setting(parse_times, "key"),
    "theme": Setting(_choice(tuple(THEMES)), DEFAULT_THEME),
    "quality": Setting(_choice(QUALITIES), DEFAULT_QUALITY),
    "pauses": Setting(_choice(PAUSES), DEFAULT_PAUSES),
    "max-tokens": Setting(_whole(*MAX_TOKENS_RANGE), DEFAULT_MAX_TOKENS),
    "jobs": Setting(_optional(_whole(*JOBS_RANGE)), None),
    "no-cache": Setting(_flag, False),
    "output-dir": Setting(_text, DEFAULT_OUTPUT_DIR, output=True),
    "narration": Setting(_optional(_text), None),
    "captions": Setting(_optional(_text), None),
    "length": Setting(parse_length, "full"),
    "output": Setting(_optional(_text), None, output=True),
    "focus": Setting(_text, ""),
    **_TRACE,
    # the film's settings (--pace, ...), as film.settings declares them
    **{spec.option: Setting(spec.parse, spec.default) for spec in setting_specs()},
    # translate's and generate's own
    "max-new-tokens": Setting(_whole(*MAX_NEW_TOKENS_RANGE),
                              TRANSLATION_DEFAULTS["max_new_tokens"]),
    "tokens": Setting(_whole(*WRITING_TOKENS_RANGE), WRITING_DEFAULTS["tokens"]),
}


def shared_values(names, config: ConfigFile) -> dict[str, object]:
    """The settings that apply to every command, for ``names``: each one's variable if set,
    else the settings file's top-level key; as written (text from the environment), for
    the caller to check (a course's explainers take them below its own [defaults])."""
    found = {}
    for name in names:
        variable = ENV_PREFIX + name.replace("-", "_").upper()
        written = [config.table[key] for key in (name, name.replace("-", "_"))
                   if key in config.table and not isinstance(config.table[key], dict)]
        if variable in os.environ:
            found[name] = os.environ[variable]
        elif written:
            found[name] = written[0]
    return found


def setting_value(name: str, value, where: str):
    """``value`` of setting ``name`` parsed, a refusal naming ``where`` it came from."""
    try:
        return SETTINGS[name].parse(value)
    except InputError as exc:
        raise InputError(f"{where}: {str(exc).rstrip('.')}; give a valid value.") from None


def resolved(command: str, name: str, given, config: ConfigFile, *, default=None):
    """The value of setting ``name`` for ``command`` as the command line would take it:
    ``given`` (not None), else its ATTENTION_EXPLAINER_ variable, else the settings file's
    [command] key, else its top-level key, else ``default`` (None: the built-in one);
    parsed and checked. A refusal names where the value came from; a value given, as the
    command line's refusal of the option names it."""
    setting = SETTINGS[name]
    if given is not None:
        try:
            return setting.parse(given)
        except InputError as exc:
            raise InputError(f"Invalid value for '--{name}': {exc}") from None
    variable = ENV_PREFIX + name.replace("-", "_").upper()
    if variable in os.environ:
        return setting_value(name, os.environ[variable],
                             f"{variable}={os.environ[variable]!r} (from the environment)")
    own = config.table.get(command)
    for table, key_of in ((own if isinstance(own, dict) else {}, f"[{command}] "),
                          (config.table, "")):
        for key in (name, name.replace("-", "_")):
            if key in table and not isinstance(table[key], dict):
                value = table[key]
                if setting.output and config.path is not None:
                    value = inside_settings_folder(str(value), config, key)
                return setting_value(name, value, f"{config.label}: {key_of}{key} = {value!r}")
    return setting.parse(setting.default if default is None else default)
