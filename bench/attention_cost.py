"""What the seeds' cheaper attentions cost as the sentence grows: time and peak memory of one
attention layer's heads (attention_core/cheap_attention.py) at 64 … 8,192 tokens, with the
log-log slopes fitted over 512 … 8,192 (≈ 2: quadratic, ≈ 1: linear).

    python bench/attention_cost.py [--device cpu|cuda] [--d-model 512 --heads 8] [--quick]

Each (variant, length) runs in a process of its own: its peak memory is that process's
high-water mark above what it held with the inputs made (on CUDA:
torch.cuda.max_memory_allocated), and its time the median of several runs on one CPU
thread (the slopes are ratios of one machine's times, so the thread count is fixed, not
the machine's). Writes bench/results/attention-cost-DEVICE.json, a chart (.svg and .png)
and its section of bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

LENGTHS = (64, 128, 256, 512, 1024, 2048, 4096, 8192)
FIT_FROM = 512
WINDOW, GLOBAL, TOP, RANK = 64, 2, 32, 128
LABELS = {"full": "full (explicit QKᵀ, softmax, ·V)", "fused": "full, fused (SDPA)",
          "window": f"window ±{WINDOW}", "global_window": f"{GLOBAL} global + window ±{WINDOW}",
          "topk": f"top-{TOP} (scores still T×T)", "linformer": f"Linformer-style, R = {RANK}"}

_ONE = r"""
import json, resource, statistics, sys, time
import torch
from attention_explainer.attention_core import cheap_attention as ca
variant, T, d_model, heads, device, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
window, glob, top, rank = (int(x) for x in sys.argv[7:11])
torch.set_num_threads(1)
torch.manual_seed(0)
d = d_model // heads
q, k, v = (torch.randn(heads, T, d, device=device) for _ in range(3))
projection = torch.randn(rank, T, device=device) / T ** 0.5
call = {"full": lambda: ca.full(q, k, v), "fused": lambda: ca.fused(q, k, v),
        "window": lambda: ca.window(q, k, v, window),
        "global_window": lambda: ca.global_window(q, k, v, window, glob),
        "topk": lambda: ca.topk(q, k, v, top),
        "linformer": lambda: ca.linformer(q, k, v, projection)}[variant]
def sync():
    if device == "cuda":
        torch.cuda.synchronize()
with torch.inference_mode():
    if device == "cuda":
        sync(); torch.cuda.reset_peak_memory_stats(); held = torch.cuda.memory_allocated()
    else:
        held = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    call(); sync()
    peak = (torch.cuda.max_memory_allocated() if device == "cuda"
            else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024) - held
    times = []
    for _ in range(runs):
        start = time.perf_counter(); call(); sync(); times.append(time.perf_counter() - start)
print(json.dumps({"seconds": statistics.median(times), "peak_bytes": max(int(peak), 0)}))
"""


def measure(variant: str, T: int, args) -> dict:
    runs = 7 if T <= 1024 else 3
    done = subprocess.run([sys.executable, "-c", _ONE, variant, str(T), str(args.d_model),
                           str(args.heads), args.device, str(runs), str(WINDOW), str(GLOBAL),
                           str(TOP), str(RANK)], capture_output=True, text=True, check=True,
                          cwd=HERE.parent)
    return json.loads(done.stdout.strip().splitlines()[-1])


def slope(xs, ys) -> float:
    """The least-squares slope of log y against log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def fitted(rows: dict, key: str) -> dict:
    out = {}
    for variant, by_length in rows.items():
        points = [(T, r[key]) for T, r in sorted(by_length.items()) if T >= FIT_FROM and r[key] > 0]
        out[variant] = slope(*zip(*points)) if len(points) >= 2 else float("nan")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="up to 1,024 tokens (a check)")
    args = parser.parse_args()
    from results import machine, update_section

    from attention_explainer.attention_core.cheap_attention import VARIANTS
    from cost_chart import write_chart

    lengths = [T for T in LENGTHS if not args.quick or T <= 1024]
    rows = {v: {} for v in VARIANTS}
    for T in lengths:
        for variant in VARIANTS:
            rows[variant][T] = measure(variant, T, args)
            print(f"{variant:>14} T={T:>5}: {rows[variant][T]['seconds'] * 1e3:9.2f} ms, "
                  f"{rows[variant][T]['peak_bytes'] / 2 ** 20:8.1f} MiB", flush=True)
    time_slopes, memory_slopes = fitted(rows, "seconds"), fitted(rows, "peak_bytes")
    import torch

    report = {"machine": machine(), "device": args.device, "torch": torch.__version__,
              "cuda": torch.version.cuda, "d_model": args.d_model, "heads": args.heads,
              "window": WINDOW, "global": GLOBAL, "top": TOP, "rank": RANK,
              "threads": 1, "fit_from": FIT_FROM, "time_slopes": time_slopes,
              "memory_slopes": memory_slopes,
              "rows": {v: {str(T): r for T, r in by.items()} for v, by in rows.items()}}
    if args.quick:
        print(json.dumps({"time_slopes": time_slopes, "memory_slopes": memory_slopes}))
        return
    out = HERE / "results" / f"attention-cost-{args.device}"
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    write_chart(report, LABELS, out.with_suffix(".svg"), out.with_suffix(".png"))
    update_section(f"attention-cost-{args.device}", section(report))


def section(report: dict) -> str:
    lengths = sorted(int(T) for T in report["rows"]["full"])
    head = "| variant | " + " | ".join(f"{T:,}" for T in lengths) + " | time slope | memory slope |"
    lines = [f"## attention cost against the sentence's length ({report['device']})", "",
             f"Machine: {report['machine']}; torch {report['torch']}, one thread. One layer's "
             f"attention, d_model {report['d_model']}, {report['heads']} heads, random q, k, v "
             f"(`bench/attention_cost.py`). Median time in ms (peak memory above the inputs, "
             f"MiB); slopes of log–log fits over {report['fit_from']:,}–{lengths[-1]:,} "
             "tokens. Chart: `bench/results/attention-cost-" + report["device"] + ".svg`.", "",
             head, "| --- |" + " ---: |" * (len(lengths) + 2)]
    for variant, by in report["rows"].items():
        cells = [f"{by[str(T)]['seconds'] * 1e3:.3g} ({by[str(T)]['peak_bytes'] / 2 ** 20:.3g})"
                 for T in lengths]
        lines.append(f"| {LABELS[variant]} | " + " | ".join(cells)
                     + f" | {report['time_slopes'][variant]:.2f} | "
                     f"{report['memory_slopes'][variant]:.2f} |")
    lines += ["", "Top-k still makes every score (its slope stays near 2: it saves the weighted "
              "sum); the window, global + window and Linformer never make the T × T scores. "
              "A Linformer's projection is learned; a fixed one stands in for its cost here. "
              "None of MiniLM's heads was trained with any of them: `inspect --mask …` and "
              "`--approx lowrank:R` say what each keeps of a real head."]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
