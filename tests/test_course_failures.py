"""A course whose explainers fail (issue 58): each failed explainer is said in one line,
the others finish and are written, the exit status says some failed, and no worker grows
without bound: an explainer that allocates memory for ever is stopped at the workers'
limit. The failures are planted (a ``sitecustomize`` in every process of the course), so
that no test hangs on a sentence that happened to crash a beat once."""
from __future__ import annotations

import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from conftest import CLI, ROOT, documentation_page

GROWS = "The dog ran home"          # its beat allocates memory without end
RAISES = "The bird sang loudly"     # its beat raises an error that is its own cause

PLANT = textwrap.dedent(f'''
    """Planted failures of tests/test_course_failures.py, in every process of the course."""
    import time

    from attention_explainer.scenes.pipeline import segments

    _render_segment = segments.render_segment


    def render_segment(job, trace, folder=None, cache_folder=None):
        if trace.sentence == {GROWS!r}:
            hoard = []
            while True:                  # no bound of its own: the worker's limit stops it
                hoard.append(b"x" * (20 << 20))
                time.sleep(0.05)
        if trace.sentence == {RAISES!r}:
            error = ValueError("bad\\x1b[31m value\\nsecond line")
            raise error from error       # the loop Dask walked for ever (issue 58)
        return _render_segment(job, trace, folder, cache_folder)


    segments.render_segment = render_segment
''')

LIMIT = "1.5GB"
PEAK_ALLOWED = 2_000_000_000        # a worker's resident memory, at most
RUNAWAY = 3_000_000_000             # past this the test stops the course itself


def _course(tmp_path: Path) -> Path:
    path = tmp_path / "course.toml"
    path.write_text(textwrap.dedent(f'''
        [defaults]
        resolution = "96x54"
        fps = 5
        beats = "title"

        [[explainer]]
        sentence = "The cat ate the fish"
        output = "cat"

        [[explainer]]
        sentence = "{GROWS}"
        output = "grows"

        [[explainer]]
        sentence = "{RAISES}"
        output = "raises"
    '''), encoding="utf-8")
    return path


def _run_watching_memory(args: list[str], env: dict, timeout_s: float = 300):
    """Run the command, sampling the resident memory of each of its processes; a process
    past RUNAWAY, or a run past ``timeout_s``, has its whole group killed (the machine is
    shared). Returns (exit code, stdout, stderr, peak bytes of any one process)."""
    proc = subprocess.Popen(CLI + args, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    peak, deadline, runaway = 0, time.monotonic() + timeout_s, False
    try:
        while proc.poll() is None:
            try:
                family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(True)]
            except psutil.NoSuchProcess:
                break
            for member in family:
                try:
                    peak = max(peak, member.memory_info().rss)
                except psutil.NoSuchProcess:
                    pass
            if peak > RUNAWAY or time.monotonic() > deadline:
                runaway = True
                os.killpg(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert not runaway, f"the course ran away: {peak / 1e9:.1f} GB, or past {timeout_s} s"
    return proc.returncode, out, err, peak


def test_failed_explainers_are_said_in_one_line_each_and_the_others_finish(tmp_path):
    (tmp_path / "plant").mkdir()
    (tmp_path / "plant" / "sitecustomize.py").write_text(PLANT, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "plant"),
               ATTENTION_EXPLAINER_MEMORY_LIMIT=LIMIT)       # the option, by its variable
    out = tmp_path / "out"
    code, stdout, stderr, peak = _run_watching_memory(
        ["batch", str(_course(tmp_path)), "--out", str(out), "--jobs", "2",
         "--cache-dir", str(tmp_path / "cache")], env)

    assert code == 1, stderr[-3000:]
    assert peak < PEAK_ALLOWED, f"a process of the course reached {peak / 1e9:.2f} GB"
    assert (out / "cat-96x54.mp4").stat().st_size > 0
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith("cat-")) == []
    assert "Traceback" not in stderr, stderr[-3000:]
    assert not any(ord(ch) < 32 and ch != "\n" for ch in stdout + stderr), repr(stderr)

    said = [line for line in stderr.splitlines() if " failed: " in line]
    assert len(said) == 2, stderr
    grows = next(line for line in said if line.startswith("explainer 2 (grows 96x54)"))
    assert "the title beat used more than 1.5 GB of memory" in grows, grows
    raises = next(line for line in said if line.startswith("explainer 3 (raises 96x54)"))
    assert "the title beat raised ValueError: bad\\x1b[31m value second line" in raises

    header, *rows = stdout.splitlines()        # the table alone: no log line among it
    assert header.split()[:4] == ["#", "output", "size", "status"] and len(rows) == 3, stdout
    rows = {row.split()[1]: row for row in rows}
    assert rows["cat"].split()[3] == "ok", stdout
    assert "failed" in rows["grows"] and "more than 1.5 GB" in rows["grows"], stdout
    assert "failed" in rows["raises"] and "bad\\x1b[31m value" in rows["raises"], stdout


def test_a_task_error_that_is_its_own_cause_reaches_dask_as_a_plain_chain():
    """Dask's report of an error walks its ``__cause__`` chain to the end; one that loops
    made the worker walk for ever, growing by a hundred megabytes a second."""
    from attention_explainer.app.course import _reported_plainly

    def looping():
        error = ValueError("its own cause")
        raise error from error

    with pytest.raises(ValueError) as caught:
        _reported_plainly(looping)()
    chain, error = [], caught.value
    while error is not None and len(chain) < 10:
        chain.append(error)
        error = error.__cause__
    assert len(chain) == 1 and caught.value.__context__ is None


def test_a_beat_that_fails_to_draw_is_not_made_its_own_cause(tmp_path, monkeypatch):
    from conftest import synthetic_trace

    from attention_explainer.scenes.pipeline import segments
    from attention_explainer.scenes.pipeline.plan import plan_film

    def broken(*args, **kwargs):
        raise ValueError("the beat cannot be drawn")

    monkeypatch.setattr(segments, "make_film", broken)
    job, = plan_film(synthetic_trace(), ["title"], width=96, height=54, fps=5)
    with pytest.raises(ValueError) as caught:
        segments._draw(job, synthetic_trace(), tmp_path)
    assert caught.value.__cause__ is not caught.value


def test_the_default_memory_limit_shares_the_machine_among_the_workers():
    from attention_explainer.app.cluster import (MIN_MEMORY_LIMIT, default_memory_limit,
                                                 machine_memory)

    machine = machine_memory()
    limits = {workers: default_memory_limit(workers) for workers in (1, 2, 4)}
    for workers, limit in limits.items():      # together, the workers leave some over
        assert limit == MIN_MEMORY_LIMIT or workers * limit < machine
    assert limits[1] >= limits[2] >= limits[4] >= MIN_MEMORY_LIMIT
    assert default_memory_limit(10_000) == MIN_MEMORY_LIMIT     # never too small to draw


@pytest.mark.parametrize("size, fragment", [("0.2GB", "out of range"),
                                            ("100000GB", "out of range"),
                                            ("lots", "is not a size")])
def test_a_bad_memory_limit_is_refused_before_anything_runs(size, fragment, tmp_path, run_cli,
                                                            monkeypatch):
    assert "memory limit out of range / memory limit not a size" in \
        documentation_page("errors.md")
    course = _course(tmp_path)
    code, _, err = run_cli("batch", course, "--memory-limit", size, "--out", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--memory-limit" in err and fragment in err, err
    monkeypatch.setenv("ATTENTION_EXPLAINER_MEMORY_LIMIT", size)
    code, _, err = run_cli("batch", course, "--out", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "ATTENTION_EXPLAINER_MEMORY_LIMIT" in err and fragment in err, err
    assert not (tmp_path / "out").exists()
