"""Every example command of the README and of the documentation site runs, in order, as
written (at a tiny size), so an example can never fail again."""
from __future__ import annotations

import os
import re
import shlex

from tests.conftest import ROOT, documentation
from tests.warm_cli import WarmCli

TINY = {"--resolution": "64x36", "--fps": "1"}
DRAWING = ("render", "frames", "pack", "batch", "narration-script", "experiment", "translate",
           "generate")
# the heads experiment trains for minutes at its own sizes: here, seconds
EXPERIMENT_TINY = {"--d-model": "48", "--epochs": "1", "--limit": "200", "--repeats": "1"}


def readme_commands() -> list[list[str]]:
    """The `attention-explainer ...` lines of the bash blocks of the README and the
    documentation's pages (continuations joined, comments dropped), in the order a reader
    meets them."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in documentation())
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line.startswith("attention-explainer "):
                commands.append(shlex.split(line)[1:])
    return commands


def tiny(argv: list[str]) -> list[str]:
    """The command at the smallest size, 1 fps (what it draws, not how big or how smooth,
    is tested: 8 % less CPU than 2 fps, measured); an experiment on a few examples."""
    if not argv or argv[0] not in DRAWING:
        return argv
    out = list(argv)
    sizes = {**TINY, **EXPERIMENT_TINY} if argv[0] == "experiment" else TINY
    if "--burn-captions" in argv:        # the smallest film with room for its captions
        from attention_explainer.scenes.pipeline.burn import smallest_film

        sizes = {**sizes, "--resolution": "{}x{}".format(*smallest_film(64, 36))}
    for option, value in sizes.items():
        if option in out:
            out[out.index(option) + 1] = value
        else:
            out += [option, value]
    return out


def test_the_readme_has_examples_of_every_command():
    assert {argv[0] for argv in readme_commands()} >= {"inspect", "render", "frames", "pack",
                                                        "batch", "config", "cache", "atlas",
                                                        "view"}


def test_every_readme_example_runs(tmp_path, tmp_path_factory):
    import shutil

    from tests import tiny_models

    shutil.copytree(ROOT / "examples", tmp_path / "examples")    # the course example
    # "your own model": tiny random ones of the families the README names, built here
    for family, name in (("gpt2", "my-gpt2"), ("llama", "my-llama")):
        tiny_models.build(family, tmp_path / "models" / name)
    tiny_models.build_marian(tmp_path / "models" / "my-marian")     # a model that translates
    # a beat cache of its own: the README's `cache clear` must not empty the one the
    # other tests of this worker share
    cache_home = tmp_path_factory.mktemp("readme-cache")
    # each example a process of its own, as a reader runs it, forked from one that has
    # imported manim and torch once (62 commands: about a minute of imports saved)
    cli = WarmCli()
    try:
        run_examples(cli, tmp_path, tmp_path_factory, cache_home)
    finally:
        cli.close()


def run_examples(cli, tmp_path, tmp_path_factory, cache_home):
    """Every example in order, in ``tmp_path``, with its beat cache in ``cache_home``."""
    import shutil

    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home))
    copy_home = None
    for argv in readme_commands():
        run_env = env
        if argv[0] == "cache":
            # `cache info` and `cache clear` act on a copy of the cache as the examples
            # before them filled it: the examples after them start from what those kept,
            # as a reader's would, instead of drawing every beat and text again
            if copy_home is None:
                copy_home = tmp_path_factory.mktemp("readme-cache-copy")
                shutil.copytree(cache_home, copy_home, dirs_exist_ok=True, symlinks=True)
            run_env = dict(env, XDG_CACHE_HOME=str(copy_home))
        proc = cli.run(*tiny(argv), cwd=tmp_path, timeout=900, env=run_env)
        assert proc.returncode == 0, f"`attention-explainer {shlex.join(argv)}` failed:\n" \
                                     f"{proc.stderr[-1500:]}"
        if argv[:2] == ["cache", "clear"]:
            assert "removed" in proc.stdout + proc.stderr
            left = [p for p in (copy_home / "attention-explainer").rglob("*") if p.is_file()]
            assert not left, f"`cache clear` left {left[:5]}"
    written = {p.relative_to(tmp_path).parts[0] for p in tmp_path.rglob("*") if p.is_file()}
    assert "renders" in written and "atlas.png" in written, sorted(written)
    assert not [p for p in tmp_path.rglob(".attention-explainer-*")], "leftovers"
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".") and p.is_file()]
