"""attention-explainer: the command line. Thin: the group, its commands loaded lazily (one
module each under ``commands/``) and the handling of errors.

A command's module is imported only when that command runs or is listed, and torch and
manim only inside the commands, so `--help` and `--version` stay fast. Every input is
validated before anything is written; errors the user can fix exit 2 with one line;
unexpected failures exit 1 with one line (`--debug` shows the traceback).
"""
from __future__ import annotations

import os
import signal
import sys

INTERRUPTED = "interrupted; nothing was written in place of your files."


_committed_before = [0]        # how many files this process had committed as the command began


def _interrupted_line(terminal: bool) -> str:
    """The one line an interrupt says: nothing written, or which files were written whole
    before it came. On a ``terminal`` it first returns to the start of the line and clears
    it: the terminal echoed ``^C`` there, and a blank line after it (what click prints)
    would make the answer more than one line."""
    outputs = sys.modules.get(f"{__package__}.files.outputs")
    written = [p.name for p in getattr(outputs, "COMMITTED", [])[_committed_before[0]:]]
    said = INTERRUPTED if not written else (
        f"interrupted after writing {', '.join(written[:4])}"
        f"{f' and {len(written) - 4} more' if len(written) > 4 else ''}: they are whole; "
        "nothing else was written.")
    return ("\r\x1b[K" if terminal else "") + f"Error: {said}\n"


def _interrupted_on_the_way_in(signum, frame):
    """Ctrl-C or SIGTERM while the program is still loading: nothing can have been written,
    so say so and go (a KeyboardInterrupt here would print an import's traceback)."""
    os.write(2, _interrupted_line(os.isatty(2)).encode())
    os._exit(130)


class Interrupted(BaseException):
    """A Ctrl-C or SIGTERM that reached the group, carried past click: click would print a
    blank line for a KeyboardInterrupt before its own handling (``main`` says the line)."""


# as a program (the console script, or python -m), before the imports below take their time
if __name__ == "__main__" or os.path.basename(sys.argv[0] or "") == "attention-explainer":
    for _sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(_sig, _interrupted_on_the_way_in)

import atexit  # noqa: E402 - after the signals are ours
import importlib  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402

import click  # noqa: E402

from .attention_core import __version__  # noqa: E402
from .attention_core.errors import InputError, for_terminal  # noqa: E402

__all__ = ["COMMANDS", "Interrupted", "LazyGroup", "cli", "main"]

# every command, by name: the module commands/<name>.py (- as _) holds it as ``command``
COMMANDS = ("atlas", "batch", "cache", "compare", "config", "doctor", "experiment", "frames",
            "generate", "inspect",
            "narration-script", "pack", "render", "translate", "view")


class LazyGroup(click.Group):
    """A group whose commands are imported when they run or are listed (click's
    ``examples/complex``); each gets its ATTENTION_EXPLAINER_<OPTION> variables as it
    loads."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        if cmd_name not in self.commands:
            from .commands.settings import add_envvars

            module = importlib.import_module(
                f"{__package__}.commands.{cmd_name.replace('-', '_')}")
            add_envvars(module.command)
            self.add_command(module.command, cmd_name)
        return self.commands[cmd_name]

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise Interrupted() from exc


@click.group(cls=LazyGroup,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="attention-explainer")
@click.option("--debug", is_flag=True, help="Show the traceback of unexpected failures.")
@click.pass_context
def cli(ctx, debug):
    """Turn a real transformer's attention on your sentence into a 3Blue1Brown-style video.

    Defaults of any option come from attention-explainer.toml (or [tool.attention-explainer]
    in pyproject.toml) in the working folder and from ATTENTION_EXPLAINER_<OPTION>
    variables; `attention-explainer config` shows them.
    """
    from .commands.settings import ConfigFile, default_map, find_config

    if ctx.resilient_parsing:       # shell completion: never fail on a config file
        return
    try:
        config = find_config()
        ctx.default_map = default_map(cli, config, ctx.invoked_subcommand)
    except InputError:
        if not _asks_for_help(ctx):
            raise
        config = ConfigFile(None, {})   # help is shown whatever the settings say
    ctx.obj = config                # the commands that read the settings find it here


_arguments: list[str] = []      # this run's command line, as main() received it


def _asks_for_help(ctx: click.Context) -> bool:
    """Whether the command line asks for help (click has consumed the group's arguments
    by the time its callback runs, so they are read as main() received them)."""
    return bool({"-h", "--help"} & set(_arguments or sys.argv[1:]))


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one line per error, exit 2 for bad input, 1 for failures."""
    if argv is None:   # a real process: skip torch's slow interpreter teardown (~0.3 s)
        atexit.register(_deaf_once_exit_hooks_ran)     # first registered: run last
        try:
            try:
                # inside the try: signal.signal runs a signal that came meanwhile at once,
                # with the handler it just set (a SIGTERM during the imports raises here)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.signal(signal.SIGTERM, _terminated)     # clean up as for Ctrl-C
                main(sys.argv[1:])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None
                                                                   else 1)
            except (KeyboardInterrupt, Interrupted):   # that one, or a second meanwhile
                code = 130
                if not _failed:
                    os.write(2, _interrupted_line(os.isatty(2)).encode())
            sys.stdout.flush()
            sys.stderr.flush()
        except (KeyboardInterrupt, Interrupted):
            code = 130
        if "torch" in sys.modules:
            os._exit(code)
        _no_interrupts_while_exiting(code)
        if code == 130:
            # Python ends a process by SIGINT (exit -2), whatever it then exits with, once a
            # KeyboardInterrupt has crossed native code that runs Python (PyRun_String): the
            # exit hooks run, then the process ends with the code said
            atexit._run_exitfuncs()
            os._exit(code)
        sys.exit(code)
    argv = list(argv)
    # the files this command commits are those after the ones already committed in this
    # process (a notebook's or a test's earlier commands)
    outputs = sys.modules.get(f"{__package__}.files.outputs")
    _committed_before[0] = len(getattr(outputs, "COMMITTED", []))
    _arguments[:] = argv
    debug = "--debug" in argv
    try:
        with warnings.catch_warnings():
            if not debug:       # a library's warning (torch's) is for its developers: the
                warnings.simplefilter("ignore")      # user reads our lines alone
            code = cli.main(args=argv, prog_name="attention-explainer", standalone_mode=False)
    except InputError as exc:
        _fail(str(exc), 2)
    except click.UsageError as exc:
        _fail(exc.format_message(), exc.exit_code)
    except click.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except (click.Abort, KeyboardInterrupt, Interrupted):
        _failed.append(INTERRUPTED)
        sys.stderr.write(_interrupted_line(sys.stderr.isatty()))
        sys.stderr.flush()
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence, reported in one line
        if debug:
            traceback.print_exc()
        _fail(f"unexpected failure ({type(exc).__name__}: {exc}); rerun with --debug "
              "for the traceback.", 1)
    sys.exit(code if isinstance(code, int) else 0)


def _terminated(signum, frame):
    raise KeyboardInterrupt("terminated (SIGTERM)")


def _no_interrupts_while_exiting(code: int) -> None:
    """Exit hooks (Dask closing its clusters, multiprocessing joining its children) run
    after the result is said: a signal then ends the process at once, with that result."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: os._exit(code))


def _deaf_once_exit_hooks_ran() -> None:
    """Python's finalisation, after the last exit hook, gives SIGINT and SIGTERM back to
    their default action: one that came then would end a process whose result is already
    said by the signal (exit -15). Held from here, it is dropped as the process ends."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


_failed: list[str] = []        # the one line said, once said


def _fail(message: str, code: int) -> None:
    _failed.append(message)
    # the user's own text may hold control characters (a bell, an escape sequence) or a
    # bidi override: the terminal is told of them, never given them
    text = for_terminal(" ".join(str(message).split()))
    # a message may quote the user's text: never let an unencodable character hide it
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    click.echo("Error: " + text, err=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
