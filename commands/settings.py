"""Settings a lecture repo can pin: ``attention-explainer.toml`` in the working folder (or
``[tool.attention-explainer]`` in its ``pyproject.toml``) and ``ATTENTION_EXPLAINER_<OPTION>``
environment variables set the defaults of any command-line option.

Precedence: the command line, then the environment, then the config file, then the
built-in default (click applies it: an option's ``envvar`` before the context's
``default_map``). Keys are the options' long names, with - or _ (``max-tokens``); top-level
keys apply to every command that has the option, a ``[render]``, ``[pack]``, ``[frames]``
or ``[inspect]`` table to that command only (``[experiment.heads]``: a group's command)::

    resolution = "720p"
    theme = "illustrated"
    output-dir = "lecture/videos"

    [frames]
    fps = 10

Every value is checked when the file is read: a bad one exits 2 naming the file and key.
Output paths are taken from the file's folder and must stay inside it.
``batch`` has no options of its own for most of these: its explainers take the top-level
settings (file or environment) of the options they share with ``pack`` as their defaults,
below the course's own ``[defaults]``.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import click

from ..app.settings_file import (CONFIG_FILE, ENV_PREFIX, PYPROJECT_TABLE, ConfigFile,
                                check_output_place, find_config, inside_settings_folder)
from ..attention_core.errors import InputError

__all__ = [
    "CONFIG_FILE", "ConfigFile", "ENV_PREFIX", "NOT_SETTINGS", "OUTPUT_SETTINGS",
    "PYPROJECT_TABLE", "add_envvars", "commands_of", "default_map", "effective", "env_name",
    "find_config", "placed_by_settings", "setting_name", "settings_of",
]

# actions, not settings; and --force, which no file or variable may turn on for a user
NOT_SETTINGS = {"help", "version", "debug", "force"}
# the options that name outputs: from a settings file, they stay inside its folder
OUTPUT_SETTINGS = {"out", "output", "output-dir", "contact-sheet", "npz"}


def setting_name(param: click.Parameter) -> str:
    """An option's setting name: its long name without dashes (``--max-tokens`` ->
    ``max-tokens``)."""
    longs = [o for o in param.opts if o.startswith("--")]
    return (longs[0] if longs else param.opts[0]).lstrip("-")


def env_name(param: click.Parameter) -> str:
    """An option's variable: ``--max-tokens`` -> ``ATTENTION_EXPLAINER_MAX_TOKENS``."""
    return ENV_PREFIX + setting_name(param).replace("-", "_").upper()


def settings_of(command: click.Command) -> dict[str, click.Option]:
    """The options of ``command`` that settings may give, by setting name."""
    return {setting_name(p): p for p in command.params
            if isinstance(p, click.Option) and p.name not in NOT_SETTINGS}


def add_envvars(command: click.Command) -> None:
    """Give every option of ``command`` (and of its subcommands) its
    ATTENTION_EXPLAINER_<OPTION> variable, except where that name is the plain-manim
    hook's (``--trace``): a lecturer who set it for ``manim render`` must not find every
    command drawing that trace."""
    from ..facts import TRACE_ENV

    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_envvars(sub)
        return
    for param in settings_of(command).values():
        name = env_name(param)
        param.envvar = None if name == TRACE_ENV else name
        if param.envvar is not None:
            param.process_value = _naming_the_variable(param, param.process_value)
    if command.callback is not None:
        command.callback = _blaming_the_variables(command, command.callback)


def _blaming_the_variables(command: click.Command, callback):
    """``callback``, whose refusal of an option's value that came from the environment
    names the variable, however late the value is refused (the model checks --heads 99,
    --ablate 9:0 against its own sizes long after click took them)."""
    @functools.wraps(callback)
    def run(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except (InputError, click.UsageError) as exc:
            ctx = click.get_current_context(silent=True)
            message = exc.format_message() if isinstance(exc, click.UsageError) else str(exc)
            for name, param in settings_of(command).items():
                if ctx is None or param.envvar is None or ctx.get_parameter_source(
                        param.name) != click.core.ParameterSource.ENVIRONMENT:
                    continue
                if re.search(rf"--{re.escape(name)}(?![\w-])", message):
                    raise InputError(f"{param.envvar}={os.environ.get(param.envvar, '')!r} "
                                     f"(from the environment): {message.rstrip('.')}; set it "
                                     "to a valid value or unset it.") from exc
            raise
    return run


def _naming_the_variable(param: click.Option, process_value):
    """``param.process_value``, whose refusal of a value that came from the environment names
    the variable (the user typed no option); an output place is checked there too, so that
    an unwritable one is blamed on the variable rather than on -o."""
    def checked(ctx: click.Context, value):
        from_env = ctx.get_parameter_source(param.name) == click.core.ParameterSource.ENVIRONMENT
        try:
            result = process_value(ctx, value)
            if from_env and setting_name(param) in OUTPUT_SETTINGS and result:
                check_output_place(Path(result), setting_name(param))
            return result
        except (click.BadParameter, InputError) as exc:
            if not from_env:
                raise
            why = exc.message if isinstance(exc, click.BadParameter) else str(exc)
            raise InputError(f"{param.envvar}={os.environ.get(param.envvar, '')!r} (from the "
                             f"environment): {why.rstrip('.')}; set it to a valid value or "
                             "unset it.") from exc
    return checked


def commands_of(group: click.Group) -> dict[str, click.Command]:
    """The group's commands by name, each loaded (the command line loads them lazily)."""
    ctx = click.Context(group)
    return {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}


def default_map(group: click.Group, config: ConfigFile, invoked: str | None = None) -> dict:
    """click's default_map from the config file, every key and value checked (no file: no
    command is loaded). A group's commands (``experiment heads``) take the top-level keys
    too and their own ``[experiment.heads]`` table, checked by their own options (its
    --heads counts heads, its --d-model has its own range) when the group is ``invoked``."""
    if not config.table:
        return {}
    everything = commands_of(group)
    commands = {name: cmd for name, cmd in everything.items() if not isinstance(cmd, click.Group)}
    groups = {name: commands_of(cmd) for name, cmd in everything.items()
              if isinstance(cmd, click.Group)}
    shared = {k: v for k, v in config.table.items() if not isinstance(v, dict)}
    for key, value in config.table.items():
        if isinstance(value, dict) and key not in everything:
            raise InputError(f"{config.label}: [{key}] is not a command; use "
                             f"{', '.join(sorted(commands))}, or top-level keys.")
    known = {name for cmd in [*commands.values(), *(c for g in groups.values()
                                                   for c in g.values())]
             for name in settings_of(cmd)}
    for key in shared:
        if _normal(key) not in known:
            raise InputError(f"{config.label}: {key!r} is not an option of any command; see "
                             "`attention-explainer config` for the settings.")
    result = {}
    for name, command in commands.items():
        values = _command_values(command, name, _table(config.table, name), shared, config)
        if values:
            result[name] = values
    for name, subcommands in groups.items():
        own = _table(config.table, name)
        for key, value in own.items():
            if not isinstance(value, dict) or key not in subcommands:
                raise InputError(f"{config.label}: [{name}] {key!r}: {name}'s settings go in "
                                 f"a table of its command, e.g. [{name}."
                                 f"{sorted(subcommands)[0]}].")
        if name == invoked:
            result[name] = {sub: _command_values(cmd, f"{name}.{sub}", _table(own, sub),
                                                 shared, config)
                            for sub, cmd in subcommands.items()}
    return result


def _table(table: dict, name: str) -> dict:
    return table[name] if isinstance(table.get(name), dict) else {}


def _command_values(command: click.Command, name: str, own: dict, shared: dict,
                    config: ConfigFile) -> dict:
    """The values the settings give ``command`` (its table's ``own`` over the ``shared``
    top-level keys of its options), each checked by its option."""
    options = settings_of(command)
    mine = {_normal(key) for key in own}
    values = {}
    for key, value in shared.items():         # where its own table does not say
        option = options.get(_normal(key))
        if option is not None and _normal(key) not in mine:
            values[option.name] = _checked(option, value, config, key)
    for key, value in own.items():
        option = options.get(_normal(key))
        if option is None:
            raise InputError(f"{config.label}: [{name}] {key!r} is not an option of "
                             f"{name.replace('.', ' ')}; see `attention-explainer "
                             f"{name.replace('.', ' ')} --help`.")
        values[option.name] = _checked(option, value, config, f"[{name}] {key}")
    return values


def placed_by_settings(ctx: click.Context) -> str | None:
    """The line that says which outputs of this run a settings file placed, or None."""
    config = ctx.find_object(ConfigFile)
    if config is None or config.path is None:
        return None
    names = [name for name, option in settings_of(ctx.command).items()
             if name in OUTPUT_SETTINGS and ctx.get_parameter_source(option.name)
             == click.core.ParameterSource.DEFAULT_MAP]
    if not names:
        return None
    return f"placed by {config.label}: {', '.join(names)}"


def _normal(key: str) -> str:
    return key.replace("_", "-")


def _checked(option: click.Option, value, config: ConfigFile, key: str):
    """The value as the option would take it from the command line, or exit 2. An output
    path is taken from the settings file's folder and must stay inside it: a --force typed
    for something else must never replace a file the settings point at elsewhere."""
    text = value if isinstance(value, str) else (
        str(value).lower() if isinstance(value, bool) else str(value))
    if isinstance(value, (list, dict)):
        raise InputError(f"{config.label}: {key} = {value!r}: give one value.")
    if setting_name(option) in OUTPUT_SETTINGS and config.path is not None:
        text = inside_settings_folder(text, config, key)
    try:
        return option.type_cast_value(click.Context(click.Command("config")), text)
    except click.BadParameter as exc:
        raise InputError(f"{config.label}: {key} = {value!r}: {exc.format_message()}") from exc


def effective(group: click.Group, command_name: str, config: ConfigFile) -> list[tuple]:
    """(setting, value, where it comes from) of every option of a command."""
    command = commands_of(group)[command_name]
    default_map(group, config)                       # every value checked
    own = config.table.get(command_name, {})
    written = {_normal(k): v for k, v in config.table.items() if not isinstance(v, dict)}
    written.update({_normal(k): v for k, v in (own if isinstance(own, dict) else {}).items()})
    rows = []
    for name, option in settings_of(command).items():
        env = env_name(option)
        if env in os.environ:
            rows.append((name, os.environ[env], f"environment {env}"))
        elif name in written:
            rows.append((name, written[name], config.label))
        else:
            rows.append((name, _shown_default(option), "built-in"))
    return rows


def _shown_default(option: click.Option):
    default = option.default
    if isinstance(default, (str, int, float)):      # bool is an int
        return default
    return False if option.is_flag else "(none)"
