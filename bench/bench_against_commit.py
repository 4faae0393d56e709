"""Benchmark: the default film at 1080p30, this tree against an earlier commit, measured
alternately in one run (absolute times drift between machines; the ratio does not).

    .venv/bin/python bench/bench_against_commit.py [COMMIT] [--runs N]

COMMIT (default: the parent of HEAD) is checked out into a temporary git worktree and
run with this tree's virtual environment; each render is a whole process from a cold
beat cache of its own. Writes the "against-commit" section of bench/RESULTS.md and
bench/results/against-commit.json. Slow (a few minutes a run on 2 cores): never the tests.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "The cat ate the fish"


def render_seconds(package_parent: Path, out: Path, cache: Path) -> float:
    """Wall seconds of `render SENTENCE --resolution 1080p --fps 30`, the package imported
    from ``package_parent`` (a folder holding ``attention_explainer``)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(package_parent))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "attention_explainer.cli", "render", SENTENCE,
                           "--resolution", "1080p", "--fps", "30", "-o", str(out), "--quiet"],
                          env=env, cwd=out.parent, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if done.returncode:
        raise SystemExit(f"render failed ({package_parent}):\n{done.stderr.decode()[-800:]}")
    return time.perf_counter() - start


def main(argv: list[str]) -> None:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 2
    args = [a for n, a in enumerate(argv) if a != "--runs" and (n == 0 or argv[n - 1] != "--runs")]
    commit = args[0] if args else "HEAD~1"
    sha = subprocess.check_output(["git", "rev-parse", commit], cwd=ROOT, text=True).strip()
    with tempfile.TemporaryDirectory(prefix="bench-commit-") as scratch:
        tmp = Path(scratch)
        old_parent, new_parent = tmp / "old", tmp / "new"
        old_parent.mkdir()
        new_parent.mkdir()
        subprocess.run(["git", "worktree", "add", "--detach", str(old_parent / "tree"), sha],
                       cwd=ROOT, check=True, capture_output=True)
        try:
            (old_parent / "attention_explainer").symlink_to(old_parent / "tree")
            (new_parent / "attention_explainer").symlink_to(ROOT)
            times = {"before": [], "after": []}
            for n in range(runs):        # alternating, each from a cold cache of its own
                for name, parent in (("before", old_parent), ("after", new_parent)):
                    out = tmp / f"{name}-{n}" / "film.mp4"
                    out.parent.mkdir()
                    times[name].append(render_seconds(parent, out, tmp / f"cache-{name}-{n}"))
                    print(name, n, round(times[name][-1], 1), flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old_parent / "tree")],
                           cwd=ROOT, capture_output=True)
    before, after = statistics.median(times["before"]), statistics.median(times["after"])
    ratio = after / before
    result = {"machine": machine(), "before": sha, "after": "working tree", "runs": runs,
              "seconds": times, "median_before": before, "median_after": after,
              "ratio": ratio}
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "against-commit.json").write_text(
        json.dumps(result, indent=2) + "\n", encoding="utf-8")
    update_section("against-commit", f"""
## the default film at 1080p30 against an earlier commit

Machine: {machine()}. `render "{SENTENCE}" --resolution 1080p --fps 30`, whole processes,
each from a cold beat cache, {runs} alternating runs each; before = `{sha[:10]}`, after =
the tree measured (bench/bench_against_commit.py).

| | median wall |
| --- | ---: |
| before | {before:.1f} s |
| after | {after:.1f} s |

**Ratio after / before: {ratio:.2f}** (goal <= 1.05: issue 36, the structure moved, the film as fast).
""")
    print(f"after / before = {ratio:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
