"""The seed's MultiHeadAttention (bugs fixed) against torch's own scaled_dot_product_attention."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention_core import compute_trace
from attention_core.masks import build_mask, parse_mask
from attention_core.scratch import build_module, seeded_module

MASKS = ["none", "causal", "window:1", "window:3"]


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("num_heads", [1, 4, 8, 16])
def test_matches_sdpa(mask, num_heads):
    torch.manual_seed(1)
    module = build_module(512, num_heads).eval()
    x = torch.randn(2, 9, 512)
    blocked = torch.from_numpy(build_mask(parse_mask(mask), 9))
    with torch.inference_mode():
        out, d = module(x, blocked, return_details=True)
        q, k, v = d["q"], d["k"], d["v"]
        ref_ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=~blocked)  # True = attend
        ref_out = module.out_proj(ref_ctx.transpose(1, 2).reshape(2, 9, 512))
    assert q.shape == (2, num_heads, 9, 512 // num_heads)
    torch.testing.assert_close(d["context"], ref_ctx, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=1e-5)
    w = d["weights"]
    torch.testing.assert_close(w.sum(-1), torch.ones(2, num_heads, 9), atol=1e-6, rtol=0)
    assert torch.all(w[..., blocked] == 0.0)          # masked entries exactly zero
    assert torch.all(w[..., ~blocked] > 0.0)


def test_batch_size_is_not_a_global():
    """Seed bug: the head helpers used `batch_size` from forward's scope."""
    module = build_module(64, 4).eval()
    with torch.inference_mode():
        for batch in (1, 3):
            assert module(torch.randn(batch, 5, 64)).shape == (batch, 5, 64)


def test_seeded_weights_are_reproducible():
    a = seeded_module(128, 4, seed=7, device="cpu", dtype=torch.float32)
    b = seeded_module(128, 4, seed=7, device="cpu", dtype=torch.float32)
    c = seeded_module(128, 4, seed=8, device="cpu", dtype=torch.float32)
    assert torch.equal(a.qkv_proj.weight, b.qkv_proj.weight)
    assert not torch.equal(a.qkv_proj.weight, c.qkv_proj.weight)


@pytest.mark.parametrize("mask", MASKS)
def test_scratch_trace(mask):
    trace = compute_trace("The cat ate the fish", model="scratch", num_heads=4, d_model=128,
                          heads="all", mask=mask)
    T = trace.num_tokens
    assert trace.q.shape == (4, T, 32) and trace.heads == [0, 1, 2, 3]
    np.testing.assert_allclose(trace.weights.sum(-1), 1.0, atol=1e-6)
    assert np.all(trace.weights[:, trace.mask] == 0.0)
    np.testing.assert_allclose(trace.context, trace.weights @ trace.v, atol=1e-5)
    assert trace.meta["model"] == "scratch" and trace.meta["seed"] == 0


def test_bad_head_count_is_refused_before_running(run_cli):
    code, out, err = run_cli("inspect", "--model", "scratch", "--num-heads", "7", "--d-model", "512")
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "--num-heads 7 does not divide --d-model 512" in err
