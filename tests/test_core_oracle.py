"""Our explicit MiniLM forward pass against Hugging Face transformers (the oracle)."""
import numpy as np
import pytest
import torch

from attention_core import bert
from attention_core.api import model_files

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
    from attention_core import compute_trace

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
