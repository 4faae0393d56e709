"""Hostile trace files and mismatched model folders, through the real command line.

A trace file or a model folder is data from anywhere: each row below is refused with exit 2
and one line naming the real cause (never a traceback, a numpy warning or exit 1), from
declared sizes before anything large is read or inflated, and before the model runs.
"""
import dataclasses
import io
import json
import os
import shutil
import struct
import subprocess
import zipfile

import numpy as np
import pytest

from attention_explainer.attention_core import bert
from attention_explainer.attention_core.api import model_files
from attention_explainer.attention_core.errors import InputError
from attention_explainer.attention_core.trace import AttentionTrace
from tests.conftest import CLI, DEFAULT, ROOT, synthetic_trace

LONG_FOR_MODEL = " ".join(["word"] * 600)                  # 602 tokens: over 512 positions
SEVENTEEN_TOKENS = " ".join(["word"] * 15)                   # 17 tokens with [CLS] and [SEP]
MIB = 1 << 20


def _trace(name):
    return ["render", "--trace", f"{{t}}/traces/{name}", "-o", "{o}"]


def _model(name, sentence=DEFAULT):
    return ["inspect", sentence, "--model", f"{{t}}/models/{name}"]


# (row name, argv template, expected fragment of the one line); {t}: the folder of hostile
# files, {o}: an output MP4 in a fresh folder. The README's error table lists each name.
ROWS = [
    ("trace too large", _trace("too-large.npz"), "too large for a trace"),
    ("trace inflates to gigabytes", _trace("bomb.npz"), "too large for a trace"),
    ("trace arrays too large in all", _trace("huge-total.npz"), "MiB of arrays, too large"),
    ("trace meta too long", _trace("meta-too-long.npz"), "too large for a trace"),
    ("trace header too long", _trace("header-64k.npz"), "-byte .npy header"),
    ("trace sizes disagree", _trace("sizes-disagree.npz"), "damaged or forged"),
    ("trace with a foreign member", _trace("extra-member.npz"), "not a trace field"),
    ("trace with too many entries", _trace("many-entries.npz"), "zip entries"),
    ("trace with a forged zip directory", _trace("long-directory.npz"), "-byte directory"),
    ("trace of the wrong dtype", _trace("float64.npz"), "expected float32"),
    ("trace tokens not text", _trace("tokens-not-text.npz"), "expected text"),
    ("trace shapes disagree", _trace("shapes-disagree.npz"), "expected (H=2, T=7, d_k=8)"),
    ("trace mask not boolean", _trace("mask-float.npz"), "expected bool"),
    ("trace meta not an object", _trace("meta-list.npz"), "not a JSON object"),
    ("trace primary head not shown", _trace("primary.npz"), "primary_head 5 is not among"),
    ("trace heads repeated", _trace("heads-repeated.npz"), "distinct non-negative"),
    ("trace layer negative", _trace("layer-negative.npz"), "layer -1 is not a non-negative"),
    ("trace focus out of range", _trace("focus-range.npz"), "focus_index 99 is not a token"),
    ("trace focus not an integer", _trace("focus-bool.npz"), "focus_index True is not a token"),
    ("trace token list too short", _trace("special-short.npz"), "one per token"),
    ("trace words too few", _trace("words-short.npz"), "do not include"),
    ("trace weights negative", _trace("weights-negative.npz"), "negative"),
    ("trace weights not summing to 1", _trace("weights-unnormalised.npz"), "sums to 1"),
    ("trace weights behind the mask", _trace("weights-leak.npz"), "where the mask blocks"),
    ("trace update not adding up", _trace("update-wrong.npz"), "do not add up"),
    ("trace is a FIFO", _trace("fifo.npz"), "FIFO (named pipe), not a regular file"),
    ("trace is a device", ["frames", "--trace", "/dev/zero", "--out", "{o}.frames"],
     "a device, not a regular file"),
    ("trace is a folder", _trace("folder.npz"), "is a folder, not a regular file"),
    ("config not an object", _model("config-list"), "holds a JSON list, not an object"),
    ("config key missing", _model("config-no-vocab"), "lacks vocab_size"),
    ("config boolean for a number", _model("config-bool"),
     "num_attention_heads is True; it must be an integer from 1 to 256"),
    ("config string for a number", _model("config-string"),
     "hidden_size is '384'; it must be an integer"),
    ("config value out of range", _model("config-layers"), "from 1 to 128"),
    ("config heads not dividing width", _model("config-indivisible"), "not divisible"),
    ("config eps not positive", _model("config-eps"), "layer_norm_eps is -1"),
    ("model shapes disagree", _model("small-weights"),
     "embeddings.word_embeddings.weight has shape (10, 8) but config.json implies (30522, 384)"),
    ("model lacks a layer", _model("seven-layers"), "lacks encoder.layer.6."),
    ("tokenizer ids beyond vocabulary", _model("tokenizer-ids"),
     "gives token id 40000 but the model's vocabulary has 30522 entries"),
    ("over the model's positions", _model("sixteen-positions", SEVENTEEN_TOKENS),
     "more than the model's 16 positions"),
    ("over the model's positions (render)",
     ["render", SEVENTEEN_TOKENS, "--model", "{t}/models/sixteen-positions", "-o", "{o}"],
     "more than the model's 16 positions"),
    ("over 512 positions (render)", ["render", LONG_FOR_MODEL, "-o", "{o}"], "512 positions"),
    ("model weights a FIFO", _model("weights-fifo"), "model.safetensors is not a regular file"),
    ("model config linked to a device", _model("config-device"),
     "config.json links outside the folder"),
    ("model tokenizer linked out", _model("tokenizer-out"),
     "tokenizer.json links outside the folder"),
    ("model weights linked out", _model("weights-out"), "model.safetensors links outside"),
    ("model weights larger than the config", _model("weights-huge"),
     "its weights are 2.0 GiB, more than the"),
    ("model weights not finite", _model("weights-nan"),
     "its weight 'encoder.layer.3.attention.self.query.weight' holds NaN or infinite numbers"),
    ("bundled model variable not a folder", ["inspect", DEFAULT],
     "ATTENTION_EXPLAINER_MINILM_DIR="),
]
ENV = {"bundled model variable not a folder": {bert.MINILM_DIR_ENV: "{t}/nowhere"}}


# ---- writing hostile .npz files ---------------------------------------------------------
def npy(array) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def npy_header(shape, descr="<f4", length=None) -> bytes:
    """A forged .npy header declaring ``shape``; ``length`` forces a (version 2) header
    of that many bytes."""
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
    if length is None:      # version 1: magic, version, length and header fill 64-byte blocks
        prefix, length = b"\x93NUMPY\x01\x00", -(-(len(text) + 11) // 64) * 64 - 10
        return prefix + struct.pack("<H", length) + text.ljust(length - 1).encode() + b"\n"
    prefix = b"\x93NUMPY\x02\x00"
    return prefix + struct.pack("<I", length) + text.ljust(length - 1).encode() + b"\n"


def members(trace) -> dict:
    return {f"{k}.npy": npy(v) for k, v in trace.to_arrays().items()}


def write_zip(path, entries: dict) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


def write_bomb(path, base: dict, name: str, header: bytes, payload_bytes: int) -> None:
    """A genuine deflate bomb: ``name`` inflates to header + payload_bytes of zeros, and
    the zip declares exactly that size."""
    chunk = bytes(16 * MIB)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for member, data in base.items():
            if member != name:
                zf.writestr(member, data)
        with zf.open(name, "w", force_zip64=True) as out:
            out.write(header)
            for start in range(0, payload_bytes, len(chunk)):
                out.write(chunk[:min(len(chunk), payload_bytes - start)])


def with_meta(trace, **changes):
    return dataclasses.replace(trace, meta={**trace.meta, **changes})


def write_traces(folder) -> None:
    folder.mkdir()
    good = synthetic_trace()                       # T=7, heads (3, 0), d_model 24, d_k 8
    base = members(good)
    T = good.num_tokens

    def forged(name, **replace):
        write_zip(folder / name, {**base, **replace})

    forged("too-large.npz", **{"embeddings.npy": npy_header((100000, 100000)) + bytes(64)})
    write_bomb(folder / "bomb.npz", base, "q.npy", npy_header((100, 1000, 1000)), 400 * MIB)
    forged("meta-too-long.npz", **{"meta.npy": npy_header((), "<U2000000") + bytes(64)})
    forged("header-64k.npz", **{"embeddings.npy": npy_header((T, 24), length=65536) + bytes(16)})
    forged("sizes-disagree.npz", **{"embeddings.npy": npy(good.embeddings)[:-100]})
    forged("extra-member.npz", **{"evil.npy": npy(np.zeros(3))})
    write_zip(folder / "many-entries.npz", {**base, **{f"x{i}.npy": b"" for i in range(100)}})
    write_zip(folder / "long-directory.npz", {**base, **{f"x{i}.npy": b"" for i in range(2000)}})
    with open(folder / "long-directory.npz", "r+b") as fh:   # the end record claims 11 entries
        fh.seek(-22 + 8, os.SEEK_END)
        fh.write(struct.pack("<HH", 11, 11))
    forged("float64.npz", **{"weights.npy": npy(good.weights.astype(np.float64))})
    forged("tokens-not-text.npz", **{"tokens.npy": npy(np.arange(T))})
    forged("shapes-disagree.npz", **{"k.npy": npy(np.zeros((2, T + 1, 8), np.float32))})
    forged("mask-float.npz", **{"mask.npy": npy(np.zeros((T, T), np.float32))})
    forged("meta-list.npz", **{"meta.npy": npy(np.array("[1, 2]"))})
    for name, changes in [("primary", {"primary_head": 5}), ("heads-repeated", {"heads": [3, 3]}),
                          ("layer-negative", {"layer": -1}), ("focus-range", {"focus_index": 99}),
                          ("focus-bool", {"focus_index": True}),
                          ("special-short", {"special": good.meta["special"][:-1]}),
                          ("words-short", {"word_ids": [-1, 0, 1, 2, 3, 9, -1]})]:
        with_meta(good, **changes).save(folder / f"{name}.npz")
    negative = good.weights.copy()
    negative[0, 0, :2] = [-0.5, negative[0, 0, 1] + negative[0, 0, 0] + 0.5]
    dataclasses.replace(good, weights=negative).save(folder / "weights-negative.npz")
    dataclasses.replace(good, weights=good.weights * 2).save(folder / "weights-unnormalised.npz")
    causal = np.triu(np.ones((T, T), bool), k=1)
    dataclasses.replace(good, mask=causal).save(folder / "weights-leak.npz")
    width = good.embeddings.shape[1]
    dataclasses.replace(good, contributions=np.ones((T, width), np.float32),
                        output_bias=np.zeros(width, np.float32),
                        updated=np.zeros(width, np.float32)).save(folder / "update-wrong.npz")
    os.mkfifo(folder / "fifo.npz")
    (folder / "folder.npz").mkdir()
    write_huge_total(folder / "huge-total.npz")


def write_huge_total(path) -> None:
    """512 tokens, 64 heads and d_k 1024, each within its limit, but q, k, v and context
    really inflate to 128 MiB each: more than a trace may hold in all."""
    T, H, d_k = 512, 64, 1024
    tokens = npy(np.array(["w"] * T))
    big = npy_header((H, T, d_k))
    entries = {"tokens.npy": tokens, "embeddings.npy": npy(np.zeros((T, 8), np.float32))}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        chunk = bytes(16 * MIB)
        for name in ("q", "k", "v", "context"):
            with zf.open(f"{name}.npy", "w", force_zip64=True) as out:
                out.write(big)
                for _ in range(H * T * d_k * 4 // len(chunk)):
                    out.write(chunk)
        for name, shape, dtype in [("scores", (H, T, T), np.float32), ("mask", (T, T), bool),
                                   ("weights", (H, T, T), np.float32),
                                   ("output", (T, 8), np.float32)]:
            zf.writestr(f"{name}.npy", npy(np.zeros(shape, dtype)))
        zf.writestr("meta.npy", npy(np.array("{}")))


# ---- writing mismatched model folders ----------------------------------------------------
def model_folder(root, name, config=None, *, raw_config=None, weights=None, tokenizer=None):
    """A copy of the bundled MiniLM folder: config.json changed by ``config`` (None deletes
    a key), the weights and tokenizer copied unless given."""
    src = bert.minilm_dir()
    folder = root / name
    folder.mkdir()
    settings = json.loads((src / "config.json").read_text())
    for key, value in (config or {}).items():
        if value is None:
            settings.pop(key)
        else:
            settings[key] = value
    (folder / "config.json").write_text(raw_config if raw_config is not None
                                        else json.dumps(settings))
    for file, given in (("model.safetensors", weights), ("tokenizer.json", tokenizer)):
        if given is None:
            _same_bytes(src / file, folder / file)
        elif isinstance(given, bytes):
            (folder / file).write_bytes(given)
        else:
            given(folder / file)
    return folder


def _same_bytes(src, dst) -> None:
    """The bundled file's bytes at ``dst``: a hard link where one can be made (a dozen
    88 MB copies would fill a small disk), else a copy. Never a symbolic link: one out of
    the folder is refused."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _sparse(path, size: int) -> None:
    """A file of ``size`` bytes with nothing written (a hole): large, and costs no disk."""
    path.write_bytes(b"")
    os.truncate(path, size)


def write_models(root) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    root.mkdir()
    model_folder(root, "config-list", raw_config="[1, 2]")
    model_folder(root, "config-no-vocab", {"vocab_size": None})
    model_folder(root, "config-bool", {"num_attention_heads": True})
    model_folder(root, "config-string", {"hidden_size": "384"})
    model_folder(root, "config-layers", {"num_hidden_layers": 1000})
    model_folder(root, "config-indivisible", {"num_attention_heads": 7})
    model_folder(root, "config-eps", {"layer_norm_eps": -1})
    model_folder(root, "small-weights", weights=lambda p: save_file(
        {"embeddings.word_embeddings.weight": torch.zeros(10, 8)}, str(p)))
    model_folder(root, "seven-layers", {"num_hidden_layers": 7})
    vocab = json.loads((bert.minilm_dir() / "tokenizer.json").read_text())
    vocab["model"]["vocab"]["cat"] = 40000
    model_folder(root, "tokenizer-ids", tokenizer=json.dumps(vocab).encode())
    tensors = load_file(str(bert.minilm_dir() / "model.safetensors"))
    short = {k: v.contiguous() for k, v in tensors.items()
             if k.startswith("embeddings.") or k.startswith("encoder.layer.0.")}
    short["embeddings.position_embeddings.weight"] = short[
        "embeddings.position_embeddings.weight"][:16].contiguous()
    short.pop("embeddings.position_ids", None)
    model_folder(root, "sixteen-positions", {"max_position_embeddings": 16, "num_hidden_layers": 1},
                 weights=lambda p: save_file(short, str(p)))
    # every file of a model folder by the one rule: regular, inside the folder, bounded
    model_folder(root, "weights-fifo", weights=os.mkfifo)
    model_folder(root, "tokenizer-out", tokenizer=lambda p: p.symlink_to(
        bert.minilm_dir() / "tokenizer.json"))
    model_folder(root, "weights-out", weights=lambda p: p.symlink_to(
        bert.minilm_dir() / "model.safetensors"))
    model_folder(root, "weights-huge", weights=lambda p: _sparse(p, 2 << 30))
    device = model_folder(root, "config-device")
    (device / "config.json").unlink()
    (device / "config.json").symlink_to("/dev/zero")
    damaged = dict(tensors)
    damaged["encoder.layer.3.attention.self.query.weight"] = \
        tensors["encoder.layer.3.attention.self.query.weight"].clone()
    damaged["encoder.layer.3.attention.self.query.weight"][5, 7] = float("nan")
    model_folder(root, "weights-nan", weights=lambda p: save_file(
        {k: v.contiguous() for k, v in damaged.items()}, str(p)))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    write_traces(root / "traces")
    write_models(root / "models")
    return root


def assert_one_line_refusal(code, out, err, fragment):
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err + out and "Warning" not in err
    assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("name, argv, fragment", ROWS, ids=[r[0] for r in ROWS])
def test_hostile_row(name, argv, fragment, hostile, tmp_path, run_cli, monkeypatch):
    for key, value in ENV.get(name, {}).items():
        monkeypatch.setenv(key, value.format(t=hostile))
    model_files.cache_clear()
    out = tmp_path / "out"
    out.mkdir()
    args = [a.format(t=hostile, o=out / "video.mp4") for a in argv]
    code, stdout, stderr = run_cli(*args)
    model_files.cache_clear()
    assert_one_line_refusal(code, stdout, stderr, fragment)
    assert not (out / "video.mp4").exists()


# ---- resources: refused from declared sizes, in a fresh process --------------------------
# A small launcher forks the command and reports its peak memory: measured straight from
# pytest, the peak would include pytest's own (Linux keeps it across a vfork and exec).
LAUNCHER = """
import json, os, sys
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execv(sys.executable, [sys.executable] + sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024]))
"""


def _run_measured(*args):
    """The real command as a process: (exit code, stderr, peak RSS in MiB)."""
    proc = subprocess.run([CLI[0], "-c", LAUNCHER] + CLI[1:] + [str(a) for a in args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    code, peak_mib = json.loads(proc.stdout)
    return code, proc.stderr, peak_mib


BOMBS = ["too-large.npz", "bomb.npz", "huge-total.npz"]


@pytest.mark.parametrize("bomb", BOMBS)
def test_bombs_are_refused_in_little_memory(bomb, hostile, tmp_path):
    code, err, peak_mib = _run_measured("render", "--trace", hostile / "traces" / bomb,
                                           "-o", tmp_path / "x.mp4")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "too large" in err
    assert peak_mib < 300, f"peak memory {peak_mib:.0f} MiB"
    assert not (tmp_path / "x.mp4").exists()


@pytest.mark.parametrize("bomb", BOMBS)
def test_bombs_are_refused_from_their_declared_sizes(bomb, hostile, monkeypatch):
    """Refused before inflating: not even streamed through zlib in small pieces (which
    would keep memory low but cost the time of inflating gigabytes)."""
    import zlib

    inflated = [0]

    class Counting:
        def __init__(self, real):
            self._real = real

        def decompress(self, *args):
            out = self._real.decompress(*args)
            inflated[0] += len(out)
            return out

        def __getattr__(self, name):
            return getattr(self._real, name)

    real = zlib.decompressobj
    monkeypatch.setattr(zlib, "decompressobj", lambda *a, **k: Counting(real(*a, **k)))
    with pytest.raises(InputError, match="too large"):
        AttentionTrace.load(hostile / "traces" / bomb)
    assert inflated[0] < MIB, f"{inflated[0] / MIB:.0f} MiB inflated before refusing"


# ---- the same checks without the command line ---------------------------------------------
def test_a_folder_is_not_a_regular_file(tmp_path):
    with pytest.raises(InputError, match="not a regular file"):
        AttentionTrace.load(tmp_path)


def test_real_traces_still_load_and_save_identically(tmp_path, default_trace):
    for path in (ROOT / "tests" / "golden" / "default-trace.npz",
                 ROOT / "attention_core" / "data" / "default-trace.npz"):
        trace = AttentionTrace.load(path)
        trace.save(tmp_path / "again.npz")
        assert (tmp_path / "again.npz").read_bytes() == path.read_bytes()
    default_trace.save(tmp_path / "fresh.npz")
    assert AttentionTrace.load(tmp_path / "fresh.npz").meta == default_trace.meta


def test_half_precision_traces_still_validate():
    """bfloat16 rounds each weight, so its rows sum to 1 less exactly; still accepted."""
    from attention_explainer.attention_core import compute_trace

    compute_trace(DEFAULT, dtype="bfloat16").validate()


def test_causal_traces_still_validate():
    from attention_explainer.attention_core import compute_trace

    trace = compute_trace(DEFAULT, mask="causal")
    assert trace.mask.any()
    trace.validate()


def test_a_process_bomb_check_does_not_need_the_command_line(hostile):
    """The library refuses the same files (a lecture repo loads traces itself)."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="too large for a trace"):
            AttentionTrace.load(hostile / "traces" / "bomb.npz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * MIB, f"{peak / MIB:.0f} MiB allocated: the bomb was inflated"


def test_model_checks_run_before_the_weights_are_hashed(hostile, monkeypatch):
    """A bad config.json is refused before the (large) weights file is even read."""
    def no_hashing(path):
        raise AssertionError("hashed the weights before checking config.json")

    monkeypatch.setattr(bert, "sha256_of", no_hashing)
    model_files.cache_clear()
    with pytest.raises(InputError, match="lacks vocab_size"):
        model_files(str(hostile / "models" / "config-no-vocab"))
    model_files.cache_clear()
