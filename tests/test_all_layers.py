"""Every layer at once, for a notebook (issue 43): `ae.attentions()` runs the model once and
returns every layer's q, k, v, scores, weights, mask, z and per-head output, equal to
transformers' own attentions; indexed by TransformerLens's hook names with their shapes
(for one sentence: the batch dimension dropped)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tests import tiny_models

SENTENCE = "The lawyer questioned the witness because she was lying"


def test_every_minilm_layer_equals_transformers_from_one_forward_pass(monkeypatch):
    import transformers

    import attention_explainer as ae
    from attention_explainer.attention_core import bert

    layers_run = []
    original = bert.layer_attention
    monkeypatch.setattr(bert, "layer_attention",
                        lambda weights, n, *a: layers_run.append(n) or original(weights, n, *a))
    ours = ae.attentions(SENTENCE)
    assert layers_run == list(range(6))              # one pass: each layer once
    folder = str(bert.minilm_dir())
    model = transformers.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    with torch.inference_mode():
        ref = model(**tokenizer(SENTENCE, return_tensors="pt"), output_attentions=True)
    assert ours.weights.shape == (6, 12, len(ours.tokens), len(ours.tokens))
    for n, attention in enumerate(ref.attentions):
        np.testing.assert_allclose(ours.weights[n], attention[0].numpy(), atol=1e-5)
        np.testing.assert_allclose(ours["blocks.%d.attn.hook_pattern" % n],
                                   attention[0].numpy(), atol=1e-5)
    assert isinstance(ours.q, np.ndarray) and ours.q.dtype == np.float32
    as_torch = ae.attentions(SENTENCE, as_torch=True)
    assert torch.is_tensor(as_torch.weights)
    torch.testing.assert_close(as_torch.weights, torch.from_numpy(ours.weights))


def test_the_hook_names_have_transformerlens_shapes_on_a_tiny_gpt2(tmp_path):
    """A decoder built here (no download): every hook of every layer has the shape
    TransformerLens documents (batch dropped), the pattern is transformers' own, the
    scores are -inf above the diagonal (its causal mask), and the heads' results add up
    to the attention's output through W_O."""
    import transformers

    import attention_explainer as ae
    from attention_explainer.attention_core.layers import HOOKS

    folder = tiny_models.build("gpt2", tmp_path / "gpt2")
    result = ae.attentions("the cat sat on the mat", model=str(folder))
    oracle, ids = tiny_models.oracle_attentions(folder, "the cat sat on the mat")
    T, (L, H) = len(ids), oracle.shape[:2]
    config = transformers.AutoConfig.from_pretrained(str(folder))
    d, D = config.n_embd // config.n_head, config.n_embd
    sizes = {"T": T, "H": H, "d": d, "D": D}
    assert len(result.keys()) == L * len(HOOKS)
    for n in range(L):
        for hook, shape in HOOKS.items():
            want = tuple(sizes[s] for s in shape.split(" x "))
            assert result[f"blocks.{n}.attn.{hook}"].shape == want, (hook, shape)
        np.testing.assert_allclose(result[f"blocks.{n}.attn.hook_pattern"], oracle[n],
                                   atol=1e-5)
        scores = result[f"blocks.{n}.attn.hook_attn_scores"]
        assert np.isneginf(scores[:, np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]]).all()
        assert np.isfinite(scores[:, np.tril_indices(T)[0], np.tril_indices(T)[1]]).all()
    # the heads' results add up to the attention output (W_O's bias aside)
    model = transformers.AutoModel.from_pretrained(str(folder), attn_implementation="eager")
    outputs = {}
    hooks = [block.attn.c_proj.register_forward_hook(
        lambda module, args, out, n=n: outputs.__setitem__(n, out[0].detach().numpy()))
        for n, block in enumerate(model.h)]
    with torch.no_grad():
        model(input_ids=torch.tensor([ids]))
    for hook in hooks:
        hook.remove()
    for n, block in enumerate(model.h):
        summed = result[f"blocks.{n}.attn.hook_result"].sum(axis=1) \
            + block.attn.c_proj.bias.detach().numpy()
        np.testing.assert_allclose(summed, outputs[n], atol=1e-4)
    with pytest.raises(KeyError, match="hook_mlp_out"):
        result["blocks.0.attn.hook_mlp_out"]
