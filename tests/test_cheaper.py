"""The seeds' cheaper attentions on a real head (issue 41): each variant's mask and weights,
and what `inspect` says each keeps, re-derived here from the trace's own scores and values
with a softmax of the test's own; the cheap implementations against full attention under
the same masks; the atlas's tags against inspect; the mask beat's film audited."""
from __future__ import annotations

import json

import numpy as np
import pytest

SENTENCES = ["The cat ate the fish",
             "Die Lehrerin, die gestern krank war, unterrichtet heute wieder",
             "她把书放在桌子上，然后很快离开了房间"]
VARIANTS = ["window:2", "global:[CLS]+window:1", "topk:2"]


def softmax(scores, blocked):
    x = np.where(blocked, -np.inf, np.asarray(scores, np.float64))
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mask_of(variant: str, scores: np.ndarray, tokens: list[str]) -> np.ndarray:
    """H x T x T: the variant's mask, built here from its definition."""
    H, T, _ = scores.shape
    i, j = np.indices((T, T))
    kind, _, rest = variant.partition(":")
    if kind == "topk":
        top = int(rest)
        blocked = np.ones((H, T, T), dtype=bool)
        for h in range(H):
            for q in range(T):
                blocked[h, q, np.argsort(-scores[h, q], kind="stable")[:top]] = False
        return blocked
    if kind == "window":
        return np.broadcast_to(np.abs(i - j) > int(rest), (H, T, T))
    named, window = rest.split("+window:")
    glob = np.array([t in named.split(",") for t in tokens])
    return np.broadcast_to((np.abs(i - j) > int(window)) & ~glob[:, None] & ~glob[None, :],
                           (H, T, T))


def measures(real, after, values, f):
    shared = np.minimum(real, after).sum(axis=-1)
    out, moved = real @ values, after @ values

    def error(a, b):
        return np.linalg.norm(b - a) / np.linalg.norm(a)

    def cosine(a, b):
        return float(a.ravel() @ b.ravel()) / np.linalg.norm(a) / np.linalg.norm(b)
    return {"weight_kept": shared[f], "weight_kept_all": shared.mean(),
            "error": error(out[f], moved[f]), "error_all": error(out, moved),
            "cosine": cosine(out[f], moved[f]), "cosine_all": cosine(out, moved)}


def inspected(run_cli, *args) -> dict:
    code, out, err = run_cli("inspect", *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_inspects_kept_share_and_error_equal_a_rederivation(sentence, variant, run_cli):
    doc = inspected(run_cli, sentence, "--mask", variant)
    scores, values = np.array(doc["scores"]), np.array(doc["v"], np.float64)
    blocked = mask_of(variant, scores, doc["tokens"])
    after = softmax(scores, blocked)
    # the trace's weights are the variant's: the model's rerun under the mask built here
    assert np.abs(np.array(doc["weights"]) - after).max() < 1e-5
    real = softmax(scores, np.zeros_like(blocked))       # MiniLM reads both ways: no mask
    f = doc["meta"]["focus_index"]
    assert len(doc["keeps"]) == len(doc["meta"]["heads"])
    for slot, kept in enumerate(doc["keeps"]):
        assert kept["head"] == doc["meta"]["heads"][slot]
        want = measures(real[slot], after[slot], values[slot], f)
        for name, value in want.items():
            assert kept[name] == pytest.approx(value, abs=1e-5), (name, slot)


@pytest.mark.parametrize("sentence", SENTENCES[:2])
def test_the_low_rank_approximation_is_the_scores_truncated_svd(sentence, run_cli):
    doc = inspected(run_cli, sentence, "--approx", "lowrank:2")
    scores, values = np.array(doc["scores"], np.float64), np.array(doc["v"], np.float64)
    u, s, vt = np.linalg.svd(scores)
    approx = np.einsum("hir,hr,hrj->hij", u[..., :2], s[..., :2], vt[:, :2])
    none = np.zeros(scores.shape, dtype=bool)
    real, after = softmax(scores, none), softmax(approx, none)
    assert np.abs(np.array(doc["weights"]) - real).max() < 1e-5    # the trace stays real
    for slot, kept in enumerate(doc["keeps"]):
        want = measures(real[slot], after[slot], values[slot], doc["meta"]["focus_index"])
        for name, value in want.items():
            assert kept[name] == pytest.approx(value, abs=1e-5), (name, slot)


def test_a_decoders_own_causal_mask_stays_under_a_window(tmp_path, run_cli):
    """On a decoder, the real weights are its causal ones, and a window is added to them."""
    from tests import tiny_models

    folder = tiny_models.build("gpt2", tmp_path / "gpt2")
    doc = inspected(run_cli, "the cat sat on the mat today", "--model", folder,
                    "--mask", "window:1", "--heads", "all")
    scores, values = np.array(doc["scores"]), np.array(doc["v"], np.float64)
    T = scores.shape[-1]
    i, j = np.indices((T, T))
    causal = np.broadcast_to(j > i, scores.shape)
    after = softmax(scores, causal | (np.abs(i - j) > 1))
    assert np.abs(np.array(doc["weights"]) - after).max() < 1e-5
    real = softmax(scores, causal)
    for slot, kept in enumerate(doc["keeps"]):
        want = measures(real[slot], after[slot], values[slot], doc["meta"]["focus_index"])
        assert kept["weight_kept_all"] == pytest.approx(want["weight_kept_all"], abs=1e-5)
        assert kept["error"] == pytest.approx(want["error"], abs=1e-5)


def test_top_k_keeps_k_keys_in_every_row_of_every_head(run_cli):
    doc = inspected(run_cli, SENTENCES[1], "--mask", "topk:3", "--heads", "all")
    weights = np.array(doc["weights"])
    assert ((weights > 0).sum(axis=-1) == 3).all()
    # the trace's own mask is what every head blocks: each head has its own besides
    assert not np.logical_and(weights > 0, np.array(doc["mask"])[None]).any()


@pytest.mark.parametrize("heads, T, d, w, g", [(3, 13, 8, 2, 2), (2, 7, 4, 3, 1),
                                               (2, 20, 4, 5, 0), (1, 5, 4, 8, 1)])
def test_the_cheap_implementations_equal_full_attention_under_their_masks(heads, T, d, w, g):
    import torch

    from attention_explainer.attention_core import cheap_attention as cheap

    generator = torch.Generator().manual_seed(T)
    q, k, v = (torch.randn(heads, T, d, dtype=torch.float64, generator=generator)
               for _ in range(3))
    scores = (q @ k.transpose(-2, -1)).numpy() / np.sqrt(d)
    i, j = np.indices((T, T))

    def under(blocked):
        return softmax(scores, blocked) @ v.numpy()
    assert np.allclose(cheap.window(q, k, v, w).numpy(), under(np.abs(i - j) > w), atol=1e-12)
    glob = np.arange(T) < g
    assert np.allclose(cheap.global_window(q, k, v, w, g).numpy(),
                       under((np.abs(i - j) > w) & ~glob[:, None] & ~glob[None]), atol=1e-12)
    tokens = [str(n) for n in range(T)]
    assert np.allclose(cheap.topk(q, k, v, 2).numpy(),
                       under(mask_of("topk:2", scores, tokens)), atol=1e-12)
    assert np.allclose(cheap.fused(q, k, v).numpy(), cheap.full(q, k, v).numpy(), atol=1e-12)
    projection = torch.randn(3, T, dtype=torch.float64, generator=generator)
    k_r, v_r = (projection @ k).numpy(), (projection @ v).numpy()
    linear = softmax(q.numpy() @ k_r.transpose(0, 2, 1) / np.sqrt(d), np.zeros((T, 3), bool))
    assert np.allclose(cheap.linformer(q, k, v, projection).numpy(), linear @ v_r, atol=1e-12)


def test_the_atlas_tags_what_inspect_measures(run_cli):
    from attention_explainer.attention_core.api import TraceRequest, atlas_for

    doc = inspected(run_cli, SENTENCES[0], "--mask", "window:1", "--heads", "all")
    atlas = atlas_for(TraceRequest(sentence=SENTENCES[0], mask="window:1"))
    assert atlas.variant == "window:1"
    layer = doc["meta"]["layer"]
    for kept in doc["keeps"]:
        assert atlas.kept_share(layer, kept["head"]) == pytest.approx(kept["weight_kept_all"],
                                                                      abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_mask_beat_holds_its_layout_with_every_variant(sentence, variant, tmp_path):
    from attention_explainer.scenes.film.claims import claim_faults
    from tests.layout_corpus import audit_film, sum_faults

    scene = audit_film(sentence, {"mask": variant}, "3b1b", tmp_path,
                       beats=["title", "mask"])
    assert not scene.layout_log, scene.layout_log[:5]
    assert not scene.audit_log, scene.audit_log[:5]
    assert not sum_faults(scene.trace, scene.shown_numbers)
    assert not claim_faults(scene.trace, scene.book.claims)
    said = " ".join(c.content for c in scene.renderer.file_writer.subcaptions)
    assert "keeps" in said and "%" in said         # what the mask keeps, said with its number
