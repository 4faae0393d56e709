"""`attention-explainer config`: the effective settings of a command and where each comes
from (the command line's defaults, attention-explainer.toml, the environment)."""
from __future__ import annotations

import click

__all__ = ["SHOWN", "command", "config"]

SHOWN = ("render", "pack", "frames", "inspect")      # the commands whose settings it shows


@click.command("config", epilog="""\b
Examples:
  attention-explainer config
  attention-explainer config pack
  ATTENTION_EXPLAINER_RESOLUTION=720p attention-explainer config render
""")
@click.argument("command", required=False, default=SHOWN[0], type=click.Choice(SHOWN))
@click.pass_context
def config(ctx: click.Context, command: str):
    """Print the effective settings of a command and where each comes from."""
    from .settings import ConfigFile, effective

    found = ctx.find_object(ConfigFile)
    from .common import echo

    echo(f"# attention-explainer {command}: settings ({found.label})")
    for setting, value, source in effective(ctx.find_root().command, command, found):
        shown = value if isinstance(value, str) else ("" if value is None else value)
        echo(f"{setting:<14} = {shown!s:<28} # {source}")


command = config
