"""The numbers are the model's: our explicit MiniLM forward pass against Hugging Face
transformers (the oracle), the seed's MultiHeadAttention against torch's own
scaled_dot_product_attention, half precision and CUDA against float32 on the CPU."""
import shutil

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention_explainer.attention_core import bert, compute_trace
from attention_explainer.attention_core.api import model_files
from attention_explainer.attention_core.attention import build_mask, masked_softmax, parse_mask
from attention_explainer.attention_core.scratch import build_module, seeded_module
from tests.conftest import DEFAULT

MASKS = ["none", "causal", "window:1", "window:3"]


FORTY_WORDS = ("When the old lighthouse keeper finally retired after forty winters on the "
               "rocky island, the villagers gathered at the harbour with lanterns, songs and "
               "warm bread, because nobody could remember a single storm in which his light "
               "had failed them")


SENTENCES = [
    "The cat ate the fish",
    "Wait, what?! The dog (not the cat) barked; then silence...",
    "I can't believe it's already over, isn't it?",
    "我爱北京天安门，因为那里很美。",
    FORTY_WORDS,
    "Crème brûlée à la française",
]


def test_forty_word_sentence_is_forty_words():
    assert len(FORTY_WORDS.split()) == 40


@pytest.fixture(scope="module")
def hf_model():
    transformers = pytest.importorskip("transformers")
    folder = str(bert.minilm_dir())
    model = transformers.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    return model, tokenizer


@pytest.fixture(scope="module")
def ours():
    files = model_files("minilm")
    return files, files.load_weights(torch.device("cpu"), torch.float32)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_every_layer_and_head_matches_transformers(sentence, hf_model, ours):
    model, tokenizer = hf_model
    files, weights = ours
    tokens = files.tokenize(sentence)
    enc = tokenizer(sentence, return_tensors="pt")
    assert tokens.ids == enc["input_ids"][0].tolist()
    with torch.inference_mode():
        ref = model(**enc, output_attentions=True, output_hidden_states=True)
        hidden, captures = bert.forward(weights, torch.tensor([tokens.ids]), [len(tokens.ids)])
    assert len(captures) == 6 == len(ref.attentions)
    for layer in range(6):
        ours_w = captures[layer].weights[0].numpy()
        ref_w = ref.attentions[layer][0].numpy()
        assert ours_w.shape == ref_w.shape == (12, len(tokens.ids), len(tokens.ids))
        assert np.abs(ours_w - ref_w).max() <= 1e-5, f"layer {layer}"
        # the layer output (after attention, residual, LayerNorm and the feed-forward)
        diff = np.abs(hidden[layer + 1][0].numpy() - ref.hidden_states[layer + 1][0].numpy()).max()
        assert diff <= 1e-4, f"layer {layer} hidden state differs by {diff}"


def test_padded_batch_matches_transformers(hf_model, ours):
    """Padding mask: a batch of sentences of different lengths gives each one's own numbers."""
    model, tokenizer = hf_model
    files, weights = ours
    batch = tokenizer(SENTENCES, return_tensors="pt", padding=True)
    lengths = batch["attention_mask"].sum(dim=1).tolist()
    assert len(set(lengths)) > 1
    with torch.inference_mode():
        ref = model(**batch, output_attentions=True, output_hidden_states=True)
        hidden, captures = bert.forward(weights, batch["input_ids"], lengths)
    for b, n in enumerate(lengths):
        for layer in range(6):
            w = captures[layer].weights[b, :, :n, :].numpy()
            assert np.abs(w - ref.attentions[layer][b, :, :n, :].numpy()).max() <= 1e-5
            assert np.all(captures[layer].weights[b, :, :, n:].numpy() == 0.0)  # padding keys
        h = hidden[-1][b, :n].numpy()
        assert np.abs(h - ref.hidden_states[-1][b, :n].numpy()).max() <= 1e-4


def test_trace_tensors_are_the_models(hf_model):
    """compute_trace's q/k/v/scores/weights/context/output agree with the oracle's layer."""
    from attention_explainer.attention_core import compute_trace

    model, tokenizer = hf_model
    trace = compute_trace("The cat ate the fish", heads="all", layer=3)
    enc = tokenizer("The cat ate the fish", return_tensors="pt")
    with torch.inference_mode():
        ref = model(**enc, output_attentions=True, output_hidden_states=True)
    x = ref.hidden_states[3][0]
    attn = model.encoder.layer[3].attention
    T = x.shape[0]

    def heads(t):
        return t.view(T, 12, 32).transpose(0, 1).numpy()

    with torch.inference_mode():
        q, k, v = heads(attn.self.query(x)), heads(attn.self.key(x)), heads(attn.self.value(x))
    np.testing.assert_allclose(trace.embeddings, x.numpy(), atol=1e-5)
    np.testing.assert_allclose(trace.q, q, atol=1e-5)
    np.testing.assert_allclose(trace.k, k, atol=1e-5)
    np.testing.assert_allclose(trace.v, v, atol=1e-5)
    np.testing.assert_allclose(trace.scores, q @ k.transpose(0, 2, 1) / np.sqrt(32), atol=1e-4)
    np.testing.assert_allclose(trace.weights, ref.attentions[3][0].numpy(), atol=1e-5)
    np.testing.assert_allclose(trace.context, trace.weights @ trace.v, atol=1e-5)
    with torch.inference_mode():
        merged = torch.from_numpy(trace.context).transpose(0, 1).reshape(T, 384)
        out = attn.output.dense(merged).numpy()
        # the layer's next step, residual + LayerNorm, reproduces HF's attention output
        after = attn.output.LayerNorm(torch.from_numpy(out) + x).numpy()
    np.testing.assert_allclose(trace.output, out, atol=1e-5)
    assert after.shape == (T, 384)
    # the focus row of every head, and the position vectors the model adds
    f = trace.focus_index
    np.testing.assert_allclose(trace.focus_weights_all, ref.attentions[3][0][:, f].numpy(),
                               atol=1e-5)
    table = model.embeddings.position_embeddings.weight.detach().numpy()
    assert trace.meta["positions"] == "learned" and trace.positions.shape[0] >= T
    np.testing.assert_array_equal(trace.positions, table[:trace.positions.shape[0]])


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


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_matches_cpu():
    cpu = compute_trace(DEFAULT, device="cpu", heads="all")
    gpu = compute_trace(DEFAULT, device="cuda", heads="all")
    assert gpu.meta["device"].startswith("cuda")
    np.testing.assert_allclose(gpu.weights, cpu.weights, atol=1e-4)


@pytest.mark.parametrize("dtype, tol", [("float16", 5e-3), ("bfloat16", 3e-2)])
def test_half_precisions_come_back_float32(dtype, tol, default_trace):
    t = compute_trace(DEFAULT, dtype=dtype, layer=default_trace.layer)
    assert t.weights.dtype == np.float32 and t.meta["dtype"] == dtype
    np.testing.assert_allclose(t.weights.sum(-1), 1.0, atol=1e-2)
    assert np.abs(t.weights[0] - default_trace.weights[0]).max() < tol * 10


def test_local_bert_folder(tmp_path):
    folder = tmp_path / "bert"
    folder.mkdir()
    src = bert.minilm_dir()
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        shutil.copyfile(src / name, folder / name)      # a link out would be refused
    t = compute_trace(DEFAULT, model=str(folder), layer=5, heads="11")
    ref = compute_trace(DEFAULT, layer=5, heads="11")
    np.testing.assert_array_equal(t.weights, ref.weights)
    (folder / "config.json").unlink()
    (folder / "config.json").write_text('{"model_type": "gpt2"}')
    from attention_explainer.attention_core.errors import InputError
    from attention_explainer.attention_core.api import model_files

    model_files.cache_clear()
    with pytest.raises(InputError, match="do not belong together"):
        compute_trace(DEFAULT, model=str(folder))


def test_the_numpy_softmax_of_derived_quantities_is_the_models():
    """Quantities derived from a saved trace (a causal mask's renormalised weights) use the
    same masked softmax as the model's forward pass."""
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(4, 7, 7)).astype(np.float32)
    blocked = build_mask(parse_mask("causal"), 7)
    expected = torch.softmax(torch.from_numpy(scores).masked_fill(torch.from_numpy(blocked),
                                                                   float("-inf")), dim=-1)
    np.testing.assert_allclose(masked_softmax(scores, blocked), expected.numpy(), atol=1e-6)
    assert np.all(masked_softmax(scores, blocked)[..., blocked] == 0.0)


@pytest.mark.parametrize("sentence, options", [
    (DEFAULT, {"layer": 5}),
    ("The lawyer questioned the witness because she was lying", {"focus": "she"}),
    ("小猫吃了一条鱼", {"mask": "causal"}),
])
def test_the_update_of_the_focus_word_is_the_models(sentence, options, hf_model):
    """The focus word's update re-derived from transformers' own modules: each token's
    contribution (its weight times its value, through W_O, over every head) adds up with
    W_O's bias to the attention output before the norm, and the updated vector is the
    layer norm of the residual, as BERT's attention block computes it."""
    model, tokenizer = hf_model
    trace = compute_trace(sentence, **options)
    layer, f = trace.layer, trace.focus_index
    attention = model.encoder.layer[layer].attention
    seen = {}
    hooks = [attention.self.value.register_forward_hook(lambda m, i, o: seen.update(v=o)),
             attention.output.dense.register_forward_hook(lambda m, i, o: seen.update(dense=o)),
             attention.output.register_forward_hook(lambda m, i, o: seen.update(normed=o))]
    enc = tokenizer(sentence, return_tensors="pt")
    mask = None
    if trace.mask.any():     # the trace's own mask, at the shown layer only: re-run that layer
        mask = torch.as_tensor(~trace.mask)
    try:
        with torch.no_grad():
            out = model(**enc, output_attentions=True, output_hidden_states=True)
            if mask is not None:
                extended = torch.where(mask, 0.0, torch.finfo(torch.float32).min)[None, None]
                attention(out.hidden_states[layer], attention_mask=extended,
                          output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    x = out.hidden_states[layer][0]
    values = seen["v"][0].view(x.shape[0], model.config.num_attention_heads, -1)
    if mask is None:
        probs = out.attentions[layer][0]
    else:
        d_k = values.shape[-1]
        q = attention.self.query(x).view(x.shape[0], -1, d_k).transpose(0, 1)
        k = attention.self.key(x).view(x.shape[0], -1, d_k).transpose(0, 1)
        s = q @ k.transpose(1, 2) / d_k ** 0.5
        probs = torch.softmax(s.masked_fill(~mask, float("-inf")), -1)
    dense = attention.output.dense
    with torch.no_grad():
        expected = _contributions(probs, values, dense.weight, f)
    np.testing.assert_allclose(trace.contributions, expected, atol=2e-5)
    np.testing.assert_allclose(trace.output_bias, dense.bias.detach().numpy(), atol=1e-7)
    np.testing.assert_allclose(trace.contributions.sum(0) + trace.output_bias,
                               seen["dense"][0, f].numpy(), atol=5e-5)
    np.testing.assert_allclose(trace.updated, seen["normed"][0][0, f].numpy()
                               if isinstance(seen["normed"], tuple) else
                               seen["normed"][0, f].numpy(), atol=5e-5)


def _contributions(probs, values, w_o, f: int) -> np.ndarray:
    """Token by token, head by head: weight x value through the head's columns of W_O."""
    d_k = values.shape[-1]
    return np.stack([sum((probs[h, f, j] * values[j, h]) @ w_o[:, h * d_k:(h + 1) * d_k].T
                         for h in range(values.shape[1])).numpy()
                     for j in range(values.shape[0])])
