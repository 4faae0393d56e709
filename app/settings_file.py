"""The settings file of the working folder, read without click: ``attention-explainer.toml``
(or ``[tool.attention-explainer]`` in ``pyproject.toml``) as a table, and the rule that an
output a settings file names stays inside its folder. ``settings`` (the command line's) and
``values`` (the API's and the course's) both read it here."""
from __future__ import annotations

import contextlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..attention_core.errors import InputError, quoted_reason
from ..attention_core.user_files import opened_checked

__all__ = ["CONFIG_FILE", "ConfigFile", "ENV_PREFIX", "PYPROJECT_TABLE", "check_output_place",
           "find_config",
           "find_config_upward", "inside_settings_folder", "read_config"]

CONFIG_FILE = "attention-explainer.toml"
PYPROJECT_TABLE = ("tool", "attention-explainer")
ENV_PREFIX = "ATTENTION_EXPLAINER_"
MAX_SETTINGS_BYTES = 4 << 20     # a settings file, or a pyproject.toml holding them


@dataclass
class ConfigFile:
    """The settings file found (or none) and its table, as read."""
    path: Path | None          # None: no config file found
    table: dict                # {key: value} and {command: {key: value}}

    @property
    def label(self) -> str:
        """How the settings' source is named to the user."""
        if self.path is None:
            return "no config file"
        return str(self.path) + (" [tool.attention-explainer]"
                                 if self.path.name == "pyproject.toml" else "")


def find_config(folder: Path | None = None) -> ConfigFile:
    """The config of the working folder: attention-explainer.toml, else the
    [tool.attention-explainer] table of pyproject.toml, else none. A settings file that is
    not a regular file (a folder, a FIFO) is refused unopened; a pyproject.toml that cannot
    be parsed is ours to report only if it mentions us (else it cannot hold our table)."""
    folder = Path.cwd() if folder is None else folder
    own = folder / CONFIG_FILE
    if os.path.lexists(own):
        if not own.is_file():
            raise InputError(f"{own} is not a regular file; attention-explainer reads its "
                             "settings from a TOML file of that name: remove it or make it one.")
        return ConfigFile(own, _read(own))
    pyproject = folder / "pyproject.toml"
    if not pyproject.is_file():
        return ConfigFile(None, {})
    return _pyproject_config(pyproject)


def find_config_upward(folder: Path) -> ConfigFile:
    """The config of ``folder`` or of the nearest folder above it that has one, as pytest
    finds its own: a lecture's golden frames check with its settings wherever pytest runs."""
    folder = Path(folder).resolve()
    for place in (folder, *folder.parents):
        config = find_config(place)
        if config.path is not None:
            return config
    return ConfigFile(None, {})


def read_config(path: Path) -> ConfigFile:
    """The settings of the file ``path`` names: an attention-explainer TOML file, or a
    pyproject.toml's [tool.attention-explainer] table."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path} is not a regular file; attention-explainer reads its "
                         "settings from a TOML file: remove it or make it one.")
    if path.name == "pyproject.toml":
        return _pyproject_config(path)
    return ConfigFile(path, _read(path))


def _pyproject_config(pyproject: Path) -> ConfigFile:
    try:
        tool = _read(pyproject).get(PYPROJECT_TABLE[0], {})
    except InputError:
        with contextlib.suppress(OSError):
            if PYPROJECT_TABLE[1] not in pyproject.read_text(encoding="utf-8", errors="replace"):
                return ConfigFile(None, {})
        raise
    table = tool.get(PYPROJECT_TABLE[1], {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise InputError(f"{pyproject} [tool.attention-explainer] is {type(table).__name__} "
                         f"{table!r}, not a table; write it as a [tool.attention-explainer] "
                         "table of settings.")
    return ConfigFile(pyproject, table) if table else ConfigFile(None, {})


def _read(path: Path) -> dict:
    with opened_checked(path, what="settings", max_bytes=MAX_SETTINGS_BYTES,
                        fix="; make it a TOML file of settings") as fh:
        data = fh.read()
    try:
        return tomllib.loads(data.decode("utf-8"))
    except RecursionError:          # tomllib parses nested arrays and tables recursively
        raise InputError(f"{path}: not a readable TOML file (its arrays or tables nest too "
                         "deeply); fix it or remove it.") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{path}: not a readable TOML file ({quoted_reason(exc)}); fix it "
                         "or remove it.") from exc


def inside_settings_folder(text: str, config: ConfigFile, key: str) -> str:
    base = config.path.parent.resolve()
    path = (base / Path(text).expanduser()).resolve()
    if not path.is_relative_to(base):
        raise InputError(f"{config.label}: {key} = {text!r} lies outside {base}; a settings "
                         "file names outputs inside its own folder only: give a path in it, "
                         "or pass the option on the command line.")
    return str(path)


def check_output_place(path: Path, name: str) -> None:
    """Refuse (InputError) a settings value placing an output (setting ``name``) where
    nothing can be written: a folder for ``output-dir`` and ``out``, else the file's."""
    from ..files.outputs import check_place, output_path

    path = output_path(path)
    folder = path if name in ("output-dir", "out") or path.is_dir() else path.parent
    check_place(folder, hint="give a writable folder")
