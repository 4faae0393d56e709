"""The prepared GPU check (`make gpu-check`), for the few minutes a CUDA device is lent.

1. the CUDA-marked tests (`pytest -m cuda`);
2. a trace of a 512-token sentence on CUDA against the CPU (goal < 50 ms on the GPU, model
   loaded beforehand, median of 5 after a warm-up);
3. float16 and bfloat16 weights against float32 on CUDA: max |Δ| of the attention weights
   and of the layer's output;
4. a decoder through transformers (a tiny random Llama, built here: rotary positions,
   grouped-query attention, its own causal mask) on CUDA in float32, float16 and bfloat16
   against the CPU in float32;
5. an encoder–decoder (a tiny random Marian, built here with its SentencePiece model):
   its cross-attention on CUDA in float32, float16 and bfloat16 against the CPU in float32;
6. the heads experiment's sweep (1, 4, 8, 16 heads at d_model 512, one epoch, one seed) on
   CUDA in float32, bfloat16 and float16: accuracy, seconds per epoch and the peak memory
   of a step (``torch.cuda.max_memory_allocated``), as seed 000 asks.

Needs nothing downloaded; finishes in well under 3 minutes. Writes the "gpu" section of
bench/RESULTS.md (or says why it could not run).
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def sentence_of(tokens: int) -> str:
    """A sentence of exactly ``tokens`` MiniLM tokens, [CLS] and [SEP] included."""
    from attention_explainer.attention_core.api import count_tokens

    words = "the cat ate the fish because it was hungry and the fish was slow".split()
    text = [words[n % len(words)] for n in range(tokens - 2)]   # one token each
    assert count_tokens(" ".join(text)) == tokens
    return " ".join(text)


def timed_traces(sentence: str, device: str, dtype: str = "float32", runs: int = 5):
    from attention_explainer.attention_core.api import TraceRequest, trace_for

    request = TraceRequest(sentence=sentence, device=device, dtype=dtype, heads="all")
    trace = trace_for(request)                    # loads the model, warms the kernels
    times = []
    for _ in range(runs):
        if device == "cuda":
            import torch
            torch.cuda.synchronize()
        start = time.perf_counter()
        trace = trace_for(request)
        times.append(time.perf_counter() - start)
    return statistics.median(times), trace


def decoder_deltas() -> dict:
    """max |Δ| of a tiny Llama's weights on CUDA, per dtype, against the CPU in float32."""
    import tempfile

    import numpy as np

    sys.path.insert(0, str(ROOT))
    from attention_explainer.attention_core.api import compute_trace
    from tests import tiny_models

    sentence = "The animal didn't cross the street because it was too tired."
    with tempfile.TemporaryDirectory() as folder:
        model = str(tiny_models.build("llama", folder))
        cpu = compute_trace(sentence, model=model, heads="all", device="cpu")
        return {dtype: float(np.abs(compute_trace(sentence, model=model, heads="all",
                                                  device="cuda", dtype=dtype).weights
                                    - cpu.weights).max())
                for dtype in ("float32", "float16", "bfloat16")}


def translation_deltas() -> dict:
    """max |Δ| of a tiny Marian's cross-attention on CUDA, per dtype, against the CPU."""
    import tempfile

    import numpy as np
    import torch

    sys.path.insert(0, str(ROOT))
    from attention_explainer.attention_core.seq2seq import align, seq2seq_files
    from tests import tiny_models

    with tempfile.TemporaryDirectory() as folder:
        files = seq2seq_files(str(tiny_models.build_marian(Path(folder) / "marian")))

        def weights(device, dtype):
            return align(files, "the cat sat on the mat", target="le chat",
                         device=torch.device(device), dtype=getattr(torch, dtype)).weights

        cpu = weights("cpu", "float32")
        return {dtype: float(np.abs(weights("cuda", dtype) - cpu).max())
                for dtype in ("float32", "float16", "bfloat16")}


def heads_sweep_on_cuda() -> list[str]:
    """The heads experiment on CUDA per precision: a line per precision and head count."""
    import torch

    from attention_explainer.attention_core import heads_experiment as hx
    from attention_explainer.attention_core import labelled_text as lt
    from attention_explainer.attention_core.model_kinds import model_files

    tokenizer = model_files("minilm").tokenizer
    split = lt.split(lt.default_set())
    lines = []
    for dtype in ("float32", "bfloat16", "float16"):
        spec = hx.SweepSpec(epochs=1, repeats=1, device="cuda", dtype=dtype).check()
        runs, memory = hx.sweep(spec, split, tokenizer, torch.device("cuda"))
        lines.append(f"- heads experiment on CUDA, {dtype}, one epoch: " + "; ".join(
            f"{r.heads} heads {100 * r.accuracy:.1f} %, {r.epoch_seconds[0]:.1f} s, "
            f"{r.peak_bytes / 2 ** 20:.0f} MiB (16/32/64 tokens: "
            f"{'/'.join(f'{b / 2 ** 20:.0f}' for b in memory[r.heads].values())} MiB)"
            for r in runs))
    return lines


def main() -> None:
    import numpy as np
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device here: nothing to check (run this where a GPU is lent)")
        sys.exit(0)
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "cuda", "-p",
                            "no:cacheprovider", str(ROOT / "tests")], cwd=ROOT,
                           capture_output=True, text=True)
    tests_line = (tests.stdout.strip().splitlines() or ["(no output)"])[-1]
    sentence = sentence_of(512)
    gpu, gpu_trace = timed_traces(sentence, "cuda")
    cpu, cpu_trace = timed_traces(sentence, "cpu", runs=2)
    deltas = {}
    for dtype in ("float16", "bfloat16"):
        _, half = timed_traces(sentence, "cuda", dtype, runs=1)
        deltas[dtype] = (float(np.abs(half.weights - gpu_trace.weights).max()),
                         float(np.abs(half.output - gpu_trace.output).max()))
    cpu_gpu = float(np.abs(cpu_trace.weights - gpu_trace.weights).max())
    decoder = decoder_deltas()
    lines = [
        "## gpu: the prepared CUDA check",
        "",
        f"Machine: {machine()}; GPU: {torch.cuda.get_device_name(0)}, torch "
        f"{torch.__version__}.",
        "",
        f"- CUDA-marked tests: {tests_line}",
        f"- trace of a {gpu_trace.num_tokens}-token sentence, all heads, model loaded: "
        f"**{gpu * 1000:.1f} ms on CUDA** (goal < 50 ms; "
        f"{'met' if gpu < 0.05 else 'not met'}), {cpu * 1000:.0f} ms on the CPU "
        f"({cpu / gpu:.1f}x); max |Δ| of the weights CUDA vs CPU: {cpu_gpu:.2e}",
    ]
    for dtype, (weights, output) in deltas.items():
        lines.append(f"- {dtype} weights against float32 on CUDA: max |Δ| attention weights "
                     f"{weights:.2e}, layer output {output:.2e}")
    lines.append("- a tiny Llama decoder through transformers on CUDA against the CPU (float32): "
                 "max |Δ| attention weights " + ", ".join(f"{dtype} {delta:.2e}"
                                                          for dtype, delta in decoder.items()))
    lines.append("- a tiny Marian's cross-attention on CUDA against the CPU (float32): max |Δ| "
                 + ", ".join(f"{dtype} {delta:.2e}" for dtype, delta in translation_deltas().items()))
    lines += heads_sweep_on_cuda()
    update_section("gpu", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
