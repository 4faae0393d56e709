"""Benchmark: `attention-explainer inspect` end to end against the plain Hugging Face path
(AutoTokenizer + AutoModel, eager attention, output_attentions) on the same sentence.

Both run as whole processes (imports and model loading included, as a user meets them),
alternating, N runs each; we report medians, the ratio, and peak memory (max RSS).
Also `--help` (which must not import torch or manim). Writes its section of bench/RESULTS.md.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SENTENCE = "The cat ate the fish"
RUNS = int(os.environ.get("BENCH_RUNS", "7"))


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=dict(os.environ, HF_HUB_OFFLINE="1"))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd} failed: {proc.stderr.read().decode()[-500:]}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    import tempfile

    scratch = tempfile.TemporaryDirectory(prefix="bench-decoder-")
    decoder = scratch.name
    # a tiny random Llama (transformers' own path), built in a process of its own: torch
    # loaded here would count in every measured child's peak memory (fork keeps it)
    subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                    "from tests import tiny_models; tiny_models.build('llama', sys.argv[2])",
                    str(ROOT), decoder], check=True, cwd=ROOT)
    ours = [str(BIN / "attention-explainer"), "inspect", SENTENCE]
    theirs = [sys.executable, str(ROOT / "bench" / "hf_inspect.py"), SENTENCE]
    helps = [str(BIN / "attention-explainer"), "--help"]
    ours_decoder = ours + ["--model", decoder]
    theirs_decoder = theirs + [decoder]
    commands = {"ours": ours, "hf": theirs, "help": helps, "ours_decoder": ours_decoder,
                "hf_decoder": theirs_decoder}
    for cmd in commands.values():         # warm the file cache once, not counted
        timed(cmd)
    results = {k: [] for k in commands}
    for _ in range(RUNS):                 # alternate so drift hits both equally
        for name, cmd in commands.items():
            results[name].append(timed(cmd))
    med = {k: statistics.median(w for w, _ in v) for k, v in results.items()}
    mem = {k: max(m for _, m in v) for k, v in results.items()}
    ratio = med["hf"] / med["ours"]
    ratio_decoder = med["hf_decoder"] / med["ours_decoder"]
    lines = [
        "## inspect vs plain Hugging Face",
        "",
        f"Machine: {machine()}. Sentence: \"{SENTENCE}\". "
        f"{RUNS} alternating runs each, whole processes, median wall time.",
        "",
        "| command | median wall | peak RSS |",
        "| --- | ---: | ---: |",
        f"| `attention-explainer inspect` (ours: explicit forward, sha256 check) | {med['ours']:.2f} s | {mem['ours']:.0f} MiB |",
        f"| plain HF: AutoTokenizer + AutoModel (eager, output_attentions) | {med['hf']:.2f} s | {mem['hf']:.0f} MiB |",
        f"| `attention-explainer --help` | {med['help']:.3f} s | {mem['help']:.0f} MiB |",
        f"| `attention-explainer inspect --model` a tiny Llama (transformers, watched, checked) | {med['ours_decoder']:.2f} s | {mem['ours_decoder']:.0f} MiB |",
        f"| plain HF on the same tiny Llama | {med['hf_decoder']:.2f} s | {mem['hf_decoder']:.0f} MiB |",
        "",
        f"**Ratio: inspect is {ratio:.1f}x faster than the plain HF path** (goal >= 3x).",
        f"On a decoder, where inspect runs transformers itself (watching each layer's "
        f"attention, checking the weights, choosing the head): the plain path takes "
        f"{ratio_decoder:.2f}x inspect's time.",
        "",
    ]
    update_section("inspect", "\n".join(lines))
    print("\n".join(lines))
    scratch.cleanup()


if __name__ == "__main__":
    main()
