"""`attention-explainer batch`: a whole course, every explainer of a TOML manifest, as
beat tasks on Dask (course.py does the work)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..attention_core.errors import InputError
from ..app.cluster import MEMORY_SHARE, parse_memory_limit
from ..app.work import interrupts_held
from .common import say
from .options import FPS, RESOLUTION, _ParsedBy

MEMORY = _ParsedBy("size", parse_memory_limit, "SIZE")

__all__ = ["command"]


@click.command("batch", epilog="""\b
Examples:
  attention-explainer batch examples/course.toml --dry-run
  attention-explainer batch examples/course.toml --out lecture --jobs 2
  attention-explainer batch course.toml --scheduler tcp://render-box:8786 --cache-dir /shared/cache
""")
@click.argument("course_file", metavar="COURSE.toml", type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", default="renders", show_default=True,
              type=click.Path(file_okay=False), help="Folder of the course's outputs.")
@click.option("--jobs", type=click.IntRange(1, 256), metavar="N",
              help="Local Dask workers [default: the cores].")
@click.option("--scheduler", metavar="ADDRESS",
              help="Submit to a running Dask cluster (tcp://HOST:8786, or tls://HOST:PORT with "
                   "Dask's security settings) instead of a local one; its workers need the "
                   "project installed and --cache-dir and --out on a shared path.")
@click.option("--memory-limit", type=MEMORY,
              help="Memory each local Dask worker may use (4GB, 1500MB): a worker past it is "
                   "stopped and its explainer reported failed [default: "
                   f"{MEMORY_SHARE:.0%} of this machine's memory shared among the workers].")
@click.option("--dashboard", is_flag=True,
              help="Serve the local cluster's Dask dashboard on 127.0.0.1:8787 (none by "
                   "default).")
@click.option("--cache-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Beat cache folder [default: $XDG_CACHE_HOME/attention-explainer].")
@click.option("--resolution", type=RESOLUTION,
              help="Render every explainer at this size instead of the manifest's (a preview).")
@click.option("--fps", type=FPS, help="Render every explainer at this rate instead.")
@click.option("--force", is_flag=True,
              help="Render every output again, even those up to date.")
@click.option("--dry-run", is_flag=True,
              help="List every output with its state (new, changed, up to date), the tasks "
                   "and an estimate; render nothing.")
@click.option("--quiet", is_flag=True, help="No progress; only the final table.")
@click.pass_context
def command(ctx: click.Context, course_file, out_dir, jobs, scheduler, memory_limit, dashboard,
            cache_dir, resolution, fps, force, dry_run, quiet):
    """Render a whole course: every explainer of a TOML manifest, as beat tasks on Dask."""
    from ..app.cluster import DASHBOARD_ADDRESS, check_scheduler_address
    with interrupts_held():         # the first imports of manim and of Dask
        import distributed  # noqa: F401 - loaded here, held, for the course's cluster

        from ..app.course import (SHARED_KEYS, CourseProgress, dry_run_lines, load_course,
                                  output_set, sort_out_existing, summary_table)
        from ..app.course_run import CourseRun
        from .progress import CourseBar         # the drawing's progress: manim
    from ..app.course_run import course_cache, course_folder, default_workers
    from ..app.signals import sigterm_as_interrupt
    from ..app.settings_file import ConfigFile
    from ..app.values import shared_values

    course_cache(cache_dir, checked=False)
    if scheduler is not None:
        scheduler = check_scheduler_address(scheduler)
        if dashboard:
            raise InputError("--dashboard is the local cluster's; a scheduler given with "
                             "--scheduler serves its own: drop one of them.")
        # from a variable or a settings file, it is the local cluster's default alone
        if ctx.get_parameter_source("memory_limit") == click.core.ParameterSource.COMMANDLINE:
            raise InputError("--memory-limit is the local cluster's; the workers of a "
                             "scheduler given with --scheduler have their own (dask worker "
                             "--memory-limit): drop one of them.")
    out = course_folder(out_dir, cache_dir)
    plans = load_course(Path(course_file), resolution=resolution, fps=fps,
                        settings=shared_values(SHARED_KEYS, ctx.find_object(ConfigFile)))
    sets = {id(p): output_set(p, out) for p in plans}
    sort_out_existing(plans, sets, force=force, out_dir=out)
    workers = jobs or default_workers()
    if dry_run:
        for line in dry_run_lines(plans, workers):
            click.echo(line)
        return
    cache = course_cache(cache_dir)
    run = CourseRun(plans, out, cache.folder, workers, scheduler,
                    progress=CourseProgress if quiet else CourseBar,
                    dashboard=dashboard, announce=None if quiet else say,
                    memory_limit=memory_limit, report=None if quiet else say)
    if dashboard:
        say(f"Dask dashboard: http://{DASHBOARD_ADDRESS}/status (this machine only)")
    with sigterm_as_interrupt():
        run.run()
    cache.trim()
    for line in run.discarded:
        say(line)
    for line in summary_table(plans):
        click.echo(line)
    if not quiet:
        say(f"{run.beats_done} beats: {run.beats_cached} from the cache, "
            f"{run.beats_done - run.beats_cached} drawn")
    if any(p.status == "failed" for p in plans):
        sys.exit(1)
