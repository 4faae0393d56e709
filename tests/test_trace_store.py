"""The traces kept in the beat cache (``scenes/pipeline/trace_store.py``): a command that
asks again for a trace this machine computed gets the very trace the model gives, without
importing torch; the key changes with everything that decides a trace; a kept file that is
not ours, not whole or not a trace is a miss (the model runs again), never a failure; and
nothing is kept where the key cannot be known before the model runs."""
from __future__ import annotations

import dataclasses
import os
import sys

import pytest

from tests.conftest import DEFAULT, ROOT, run_warm

# a command run in-process, then whether it imported torch (the kept trace's point)
TORCH_PROBE = ("import sys\n"
               "from attention_explainer import cli\n"
               "try:\n"
               "    cli.main(sys.argv[1:])\n"
               "except SystemExit as exc:\n"
               "    assert not exc.code, exc.code\n"
               "print('torch imported' if 'torch' in sys.modules else 'torch not imported')\n")


def _kept(cache_home) -> list:
    return sorted((cache_home / "attention-explainer" / "traces").rglob("*.npz"))


def test_a_second_command_loads_the_trace_the_model_gave_without_torch(tmp_path):
    from attention_explainer.attention_core import AttentionTrace, compute_trace

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    npz = [tmp_path / "first.npz", tmp_path / "second.npz"]
    runs = [run_process_probe("inspect", DEFAULT, "--npz", path, env=env) for path in npz]
    assert runs[0].returncode == 0 and "torch imported" in runs[0].stdout, runs[0].stderr
    assert runs[1].returncode == 0 and "torch not imported" in runs[1].stdout, runs[1].stderr
    assert len(_kept(tmp_path / "xdg")) == 1
    model = compute_trace(DEFAULT)
    for path in npz:
        assert AttentionTrace.load(path).fingerprint() == model.fingerprint()
    # the printed report is the same, word for word
    said = [run.stdout.rsplit("trace saved to", 1)[0] for run in runs]
    assert said[0] == said[1] and "attention" in said[0]


def run_process_probe(*args, env):
    import subprocess

    return subprocess.run([sys.executable, "-c", TORCH_PROBE, *map(str, args)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def test_the_key_changes_with_what_decides_the_trace(monkeypatch):
    from attention_explainer.attention_core import api
    from attention_explainer.attention_core.api import TraceRequest, trace_key

    base = TraceRequest(sentence=DEFAULT, device="cpu")
    keys = {trace_key(base)}
    for change in ({"sentence": "The cat ate the fish!"}, {"focus": "fish"},
                   {"heads": "all"}, {"layer": 2}, {"mask": "causal"}, {"dtype": "float64"},
                   {"model": "scratch"}, {"model": "scratch", "seed": 1},
                   {"model": "scratch", "num_heads": 4}):
        keys.add(trace_key(dataclasses.replace(base, **change)))
    assert len(keys) == 10 and None not in keys
    assert trace_key(base) == trace_key(TraceRequest(sentence=DEFAULT, device="cpu"))
    # the code, a library's version and the CPU are in it too
    for part in ("code", "versions", "cpu"):
        changed = {**api._code_and_machine(), part: "another"}
        monkeypatch.setattr(api, "_code_and_machine", lambda changed=changed: changed)
        assert trace_key(base) not in keys
        monkeypatch.undo()


def test_nothing_is_kept_where_the_key_is_not_known_before_the_model_runs(tmp_path,
                                                                           monkeypatch):
    from attention_explainer.attention_core import api
    from attention_explainer.attention_core.api import TraceRequest, trace_key
    from tests import tiny_models

    folder = tiny_models.build("gpt2", tmp_path / "gpt2")
    assert trace_key(TraceRequest(sentence=DEFAULT, model=str(folder), device="cpu")) is None
    assert trace_key(TraceRequest(sentence=DEFAULT, device="cuda")) is None
    # auto is the CPU only with a torch built for the CPU alone
    from importlib import metadata

    monkeypatch.setattr(metadata, "version", lambda name: "2.13.0+cu128")
    assert trace_key(TraceRequest(sentence=DEFAULT, device="auto")) is None
    monkeypatch.setattr(metadata, "version", lambda name: "2.13.0+cpu")
    assert api._surely_the_cpu("auto")


@pytest.mark.parametrize("damage", ["bytes flipped", "not a trace", "symlink",
                                    "group-writable", "header only"])
def test_a_kept_trace_not_whole_or_not_ours_is_a_miss(damage, tmp_path):
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.attention_core.api import TraceRequest, trace_for, trace_key
    from attention_explainer.scenes.pipeline.trace_store import (TRACE_HEADER, TraceStore,
                                                                 kept_or_computed)

    req = TraceRequest(sentence=DEFAULT)
    store, key = TraceStore(tmp_path / "traces"), trace_key(req)
    computed = []

    def compute():
        computed.append(1)
        return trace_for(req)

    first = kept_or_computed(key, store.folder, compute)
    path = store.file(key)
    data = path.read_bytes()
    if damage == "bytes flipped":
        path.write_bytes(data[:-40] + bytes(b ^ 0xFF for b in data[-40:]))
    elif damage == "not a trace":        # a right header over bytes that are no trace
        import hashlib
        payload = b"PK\x05\x06" + b"\0" * 18
        path.write_bytes(TRACE_HEADER + hashlib.sha256(payload).hexdigest().encode()
                         + b"\n" + payload)
    elif damage == "symlink":
        (tmp_path / "elsewhere.npz").write_bytes(data)
        path.unlink()
        path.symlink_to(tmp_path / "elsewhere.npz")
    elif damage == "group-writable":
        path.chmod(0o664)
    else:
        path.write_bytes(data.partition(b"\n")[0])
    again = kept_or_computed(key, store.folder, compute)
    assert computed == [1, 1], "the damaged file was used"
    assert again.fingerprint() == first.fingerprint() == compute_trace(DEFAULT).fingerprint()
    assert store.load(key) is not None and not path.is_symlink()   # kept whole again


def test_no_trace_is_kept_with_the_cache_off(tmp_path):
    for name, extra in (("no-cache", ["--no-cache"]), ("cap 0", [])):
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / name))
        if name == "cap 0":
            env["ATTENTION_EXPLAINER_CACHE_MB"] = "0"
        proc = run_warm("frames", DEFAULT, "--beat", "title", "--at", "key",
                           "--resolution", "64x36", "--out", tmp_path / name / "stills",
                           *extra, env=env)
        assert proc.returncode == 0, proc.stderr
        assert _kept(tmp_path / name) == []
