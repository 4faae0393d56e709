"""The suite's 20 slowest tests, with the whole suite's time, kept in bench/RESULTS.md
(`make slow-tests`): where the suite's time goes, so that what to make faster is measured,
not guessed.

    .venv/bin/python bench/slow_tests.py                 # runs the suite as `make test` does
    .venv/bin/python bench/slow_tests.py --from-log F    # reads a log of such a run instead
    .venv/bin/python bench/slow_tests.py --timeline F    # when each worker ran what (below)

The log must come from pytest run with ``--durations=20`` (or more; `make test` passes 20).
A timeline comes from a run with ``ATTENTION_EXPLAINER_TEST_TIMELINE=F`` (tests/conftest.py):
``--timeline F`` prints each worker's busy time and its last files, and how long the run's
end had a worker idle (the files that ran last and alone are the ones to start earlier).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOWN = 20
DURATION = re.compile(r"^\s*([\d.]+)s (call|setup|teardown)\s+(.+?)\s*$")
SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed)[^=]*?) in ([\d.]+)s", re.M)


def run_suite() -> str:
    """The suite as `make test` runs it, with the durations; its whole output."""
    workers = str(len(os.sched_getaffinity(0)) + 1)        # as the Makefile's TEST_WORKERS
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-n", workers, "--dist", "loadfile",
               "--no-loadscope-reorder", f"--durations={SHOWN}"]
    started = time.monotonic()
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    print(f"suite: exit {proc.returncode} in {time.monotonic() - started:.0f} s")
    return proc.stdout + proc.stderr


def table(log: str, source: str) -> str:
    rows = [m.groups() for m in map(DURATION.match, log.splitlines()) if m]
    rows = sorted(rows, key=lambda r: -float(r[0]))[:SHOWN]
    summary = SUMMARY.findall(log)
    outcome, total = summary[-1] if summary else ("no summary", "0")
    lines = [f"## tests: the {SHOWN} slowest",
             "",
             f"Machine: {machine()}. {source}: {outcome} in {float(total) / 60:.1f} min of "
             f"pytest (the goal: 15 min with the install). Regenerate with `make slow-tests`.",
             "",
             "| seconds | phase | test |", "|---:|---|---|"]
    lines += [f"| {float(sec):.1f} | {phase} | `{name}` |" for sec, phase, name in rows]
    return "\n".join(lines)


def timeline(path: Path) -> str:
    """Each worker's busy seconds and the files it ran last; the run's idle tail."""
    runs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        worker, start, end, nodeid = line.split(" ", 3)
        runs.append((worker, float(start), float(end), nodeid.split("::", 1)[0]))
    first = min(r[1] for r in runs)
    ends = {}
    lines = []
    for worker in sorted({r[0] for r in runs}):
        mine = sorted((r for r in runs if r[0] == worker), key=lambda r: r[1])
        ends[worker] = mine[-1][2] - first
        last = []
        for run in reversed(mine):
            if run[3] not in last:
                last.append(run[3])
            if len(last) == 3:
                break
        busy = sum(r[2] - r[1] for r in mine)
        lines.append(f"{worker}: busy {busy:.0f} s, done at {ends[worker]:.0f} s; last: "
                     + ", ".join(reversed(last)))
    lines.append(f"the run: {max(ends.values()):.0f} s; the first worker done at "
                 f"{min(ends.values()):.0f} s")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-log", type=Path, help="a log of a suite run with --durations")
    parser.add_argument("--source", default=None, help="how the run was made, said in the table")
    parser.add_argument("--timeline", type=Path, help="a timeline of a suite run (see above)")
    args = parser.parse_args()
    if args.timeline:
        print(timeline(args.timeline))
        return
    if args.from_log:
        log = args.from_log.read_text(encoding="utf-8", errors="replace")
        source = args.source or f"from the log {args.from_log.name}"
    else:
        log = run_suite()
        source = args.source or "`make test`'s suite in this checkout"
    update_section("slow-tests", table(log, source))


if __name__ == "__main__":
    main()
