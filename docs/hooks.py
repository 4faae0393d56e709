"""MkDocs hooks (mkdocs.yml): the pages written from the code itself when the site is built,
so that none of them is a copy to keep in step: the storyboard's table from
``facts.BEATS``, the command-line reference from click's own help, the Python API from
its docstrings. Nothing is written into the repository."""
from __future__ import annotations

import inspect

STORYBOARD_MARK = "<!-- storyboard: the table of facts.BEATS, written by docs/hooks.py -->"


def storyboard_table() -> str:
    """Every beat of the storyboard, in order: its name and what it shows."""
    from attention_explainer.facts import BEATS, DRAWN_WHERE

    rows = ["| beat | what it shows |", "| --- | --- |"]
    rows += [f"| {b.name} | {b.shows_for(*DRAWN_WHERE)} |" for b in BEATS]
    return "\n".join(rows)


def cli_reference() -> str:
    """Every command's --help, as the command line prints it."""
    import click

    from attention_explainer.cli import cli

    root = click.Context(cli, info_name="attention-explainer", max_content_width=100,
                         terminal_width=100)
    parts = ["# Command-line reference", "",
             "Each command's `--help`, as `attention-explainer COMMAND --help` prints it.", "",
             "```text", cli.get_help(root), "```"]
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        ctx = click.Context(command, info_name=name, parent=root, max_content_width=100,
                            terminal_width=100)
        parts += ["", f"## {name}", "", "```text", command.get_help(ctx), "```"]
        for sub_name in getattr(command, "commands", {}):   # a group's own commands
            sub = command.commands[sub_name]
            sub_ctx = click.Context(sub, info_name=sub_name, parent=ctx, max_content_width=100,
                                    terminal_width=100)
            parts += ["", f"### {name} {sub_name}", "", "```text", sub.get_help(sub_ctx), "```"]
    return "\n".join(parts) + "\n"


def api_reference() -> str:
    """The Python API's functions and results, each with its signature and docstring."""
    from attention_explainer import explainer, testing
    from attention_explainer.attention_core.trace import AttentionTrace

    parts = ["# Python API reference", "",
             "`import attention_explainer as ae`; each function is a command of the command "
             "line, with the same checks and defaults. Written from the docstrings.", ""]
    entries = [(f"ae.{name}", getattr(explainer, name)) for name in explainer.__all__]
    entries += [("ae.AttentionTrace", AttentionTrace)]
    entries += [(f"attention_explainer.testing.{name}", getattr(testing, name))
                for name in testing.__all__]
    entries = [e for e in entries if inspect.isfunction(e[1]) or inspect.isclass(e[1])]
    entries.sort(key=lambda entry: inspect.isclass(entry[1]))     # the calls, then results
    for title, value in entries:
        try:
            signature = f"{value.__name__}{inspect.signature(value)}"
        except (TypeError, ValueError):
            signature = value.__name__
        doc = inspect.getdoc(value) or ""
        parts += [f"## {title}", "", "```python", signature, "```", "", "```text", doc, "```",
                  ""]
    return "\n".join(parts)


def on_files(files, config):
    from mkdocs.structure.files import File

    for name, write in (("cli.md", cli_reference), ("api.md", api_reference)):
        files.append(File.generated(config, name, content=write()))
    return files


def on_page_markdown(markdown, page, config, files):
    if STORYBOARD_MARK in markdown:
        markdown = markdown.replace(STORYBOARD_MARK, storyboard_table())
    return markdown


def on_post_build(config):
    """The search works opened from disk: the plugin's index is written again as a script
    (a page on file:// may load scripts but not fetch files), and its main.js, which
    searches in a web worker that file:// forbids, is replaced by docs/offline-search.js."""
    import json
    from pathlib import Path

    search = Path(config["site_dir"]) / "search"
    index = json.loads((search / "search_index.json").read_text(encoding="utf-8"))
    index["config"]["min_search_length"] = config["plugins"]["search"].config.min_search_length
    text = json.dumps(index, ensure_ascii=True).replace("</", "<\\/")
    (search / "search_index.js").write_text(f"var mkdocs_search_index = {text};\n",
                                             encoding="utf-8")
    searcher = Path(__file__).with_name("offline-search.js").read_text(encoding="utf-8")
    (search / "main.js").write_text(searcher, encoding="utf-8")
    (search / "worker.js").unlink(missing_ok=True)
