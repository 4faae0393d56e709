"""The suite's 20 slowest tests, with the whole suite's time, kept in bench/RESULTS.md
(`make slow-tests`): where the suite's time goes, so that what to make faster is measured,
not guessed.

    .venv/bin/python bench/slow_tests.py                 # runs the suite as `make test` does
    .venv/bin/python bench/slow_tests.py --from-log F    # reads a log of such a run instead

The log must come from pytest run with ``--durations=20`` (or more; `make test` passes 20).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-log", type=Path, help="a log of a suite run with --durations")
    parser.add_argument("--source", default=None, help="how the run was made, said in the table")
    args = parser.parse_args()
    if args.from_log:
        log = args.from_log.read_text(encoding="utf-8", errors="replace")
        source = args.source or f"from the log {args.from_log.name}"
    else:
        log = run_suite()
        source = args.source or "`make test`'s suite in this checkout"
    update_section("slow-tests", table(log, source))


if __name__ == "__main__":
    main()
