"""The families the transformers path runs (:mod:`.hf_models`), each a row of facts: where
its layers keep the parts of attention, and what its attention does beyond
softmax(QKᵀ/√d_k)V on an embedding (:meth:`Family.facts`, the docs' families table).
A family costs a row here, not a path of its own."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAMILIES", "Family", "SUPPORTED", "families_table"]


@dataclass(frozen=True)
class Family:
    """Where a family keeps the parts of attention, from its base model (AutoModel)."""
    title: str              # as said on screen and in messages
    layers: str             # the ModuleList of layers
    attention: str          # in a layer: the module that calls the attention function
    projections: tuple      # in the attention module: q, k, v (or one fused c_attn)
    out: str                # in a layer: W_O
    post_norm: str | None   # in a layer: the norm of E + dE right after attention (post-LN)
    causal: bool
    positions: str | None   # the learned table (from the base model), None for rotary
    qk_norm: bool = False   # each head's query and key RMS-normed (a learned gain) before
    #                         they are turned (Qwen3): the watched q and k are after it
    positions_after_pad: bool = False   # positions counted from pad + 1 (RoBERTa's kin)
    fused_per_head: bool = False        # one fused W_QKV whose rows run head by head, each
    #                                     its query's, key's, value's (GPT-NeoX, Pythia)
    query_pre_scaled: bool = False      # the query is scaled by 1/√d_k before the call,
    #                                     which then scales by 1 (OPT): the same scores
    fused_grouped: bool = False         # a fused W_QKV may run group by group, each key/value
    #                                     head's queries, then its key, then its value
    #                                     (Falcon's new decoder architecture)
    scale_setting: str | None = None    # config: the model's own score scale, not 1/√d_k
    #                                     where it says so (Gemma's query_pre_attn_scalar)
    softcap_setting: str | None = None  # config: scores capped as cap·tanh(s/cap) (Gemma 2)
    output_norm: str | None = None      # in a layer: a norm of ΔE before the residual adds
    #                                     it (Gemma 2 and 3, OLMo 2)
    residual_scale: str | None = None   # config: a number ΔE is multiplied by before it is
    #                                     added (Granite's residual_multiplier)
    rope_layers: str | None = None      # config: per layer, whether it turns q and k (SmolLM3:
    #                                     its other layers use no positions at all)
    shared_layers: bool = False         # one layer's weights run as every layer (ALBERT)
    windowed: bool = False              # some layers see only a window of nearby words
    input_norm: str | None = None       # in a layer: the norm of the stream attention reads
    #                                     (a pre-norm model's), which --why splits
    relative_positions: bool = False    # no position vectors added: positions enter only
    #                                     its score terms (DeBERTa-v2 and v3)
    score_terms: tuple = ()             # what it adds to each score besides QKᵀ scaled and
    #                                     the mask, by name: its attention runs outside
    #                                     transformers' interface and is watched by hooks
    #                                     (:mod:`.term_watch`), each term kept apart

    @property
    def rotary(self) -> bool:
        return self.positions is None and not self.relative_positions

    def facts(self) -> list[str]:
        """What this family's attention does beyond softmax(QKᵀ/√d_k)V on an embedding, in
        words (the docs' families table)."""
        said = ["causal mask, its own" if self.causal else "reads both ways",
                "rotary positions" if self.rotary else
                "relative positions, in its score terms" if self.relative_positions else
                "learned positions" + (", counted from pad + 1" if self.positions_after_pad
                                       else ""),
                "post-norm (a norm of E + ΔE)" if self.post_norm else "pre-norm"]
        if self.qk_norm:
            said.append("QK-norm")
        if self.query_pre_scaled:
            said.append("the query scaled by 1/√d_k before the dot product")
        if len(self.projections) == 1:
            said.append("fused W_QKV" + (", head by head" if self.fused_per_head else
                                         ", group by group" if self.fused_grouped else ""))
        if self.scale_setting:
            said.append(f"its own score scale ({self.scale_setting})")
        if self.softcap_setting:
            said.append("soft-capped scores, cap·tanh(s/cap)")
        if self.windowed:
            said.append("local and global layers")
        if self.rope_layers:
            said.append("some layers without positions")
        if self.output_norm:
            said.append("ΔE normed before it is added")
        if self.residual_scale:
            said.append(f"ΔE scaled ({self.residual_scale})")
        if self.shared_layers:
            said.append("one layer's weights in every layer")
        said += [f"a {term} added to every score" for term in self.score_terms]
        return said


def families_table() -> str:
    """The families the transformers path runs, as a Markdown table (docs/own-model.md
    holds it; a test keeps the two the same)."""
    rows = ["| family | `model_type` | its attention |", "| --- | --- | --- |"]
    rows += [f"| {family.title} | `{name}` | {'; '.join(family.facts())} |"
             for name, family in FAMILIES.items()]
    return "\n".join(rows)


_BERT_LIKE = dict(layers="encoder.layer", attention="attention.self",
                  projections=("query", "key", "value"), out="attention.output.dense",
                  post_norm="attention.output.LayerNorm", causal=False,
                  positions="embeddings.position_embeddings")
_LLAMA_LIKE = dict(layers="layers", attention="self_attn",
                   projections=("q_proj", "k_proj", "v_proj"), out="self_attn.o_proj",
                   post_norm=None, causal=True, positions=None, input_norm="input_layernorm")
FAMILIES = {
    "roberta": Family("RoBERTa encoder", **_BERT_LIKE, positions_after_pad=True),
    "xlm-roberta": Family("XLM-RoBERTa encoder", **_BERT_LIKE, positions_after_pad=True),
    "camembert": Family("CamemBERT encoder", **_BERT_LIKE, positions_after_pad=True),
    "electra": Family("ELECTRA encoder", **_BERT_LIKE),
    "distilbert": Family("DistilBERT encoder", layers="transformer.layer", attention="attention",
                         projections=("q_lin", "k_lin", "v_lin"), out="attention.out_lin",
                         post_norm="sa_layer_norm", causal=False,
                         positions="embeddings.position_embeddings"),
    "gpt2": Family("GPT-2 decoder", layers="h", attention="attn", projections=("c_attn",),
                   out="attn.c_proj", post_norm=None, causal=True, positions="wpe",
                   input_norm="ln_1"),
    "llama": Family("Llama decoder", **_LLAMA_LIKE),
    "mistral": Family("Mistral decoder", **_LLAMA_LIKE),
    "qwen2": Family("Qwen2 decoder", **_LLAMA_LIKE),
    "qwen3": Family("Qwen3 decoder", **_LLAMA_LIKE, qk_norm=True),
    "phi3": Family("Phi-3 decoder", **{**_LLAMA_LIKE, "projections": ("qkv_proj",)}),
    "gemma": Family("Gemma decoder", **_LLAMA_LIKE),
    "starcoder2": Family("StarCoder2 decoder", **_LLAMA_LIKE),
    "olmo": Family("OLMo decoder", **_LLAMA_LIKE),
    "phi": Family("Phi decoder", **{**_LLAMA_LIKE, "out": "self_attn.dense"}),
    "opt": Family("OPT decoder", layers="decoder.layers", attention="self_attn",
                  projections=("q_proj", "k_proj", "v_proj"), out="self_attn.out_proj",
                  post_norm=None, causal=True, positions="decoder.embed_positions",
                  query_pre_scaled=True, input_norm="self_attn_layer_norm"),
    "gemma2": Family("Gemma 2 decoder", **_LLAMA_LIKE, scale_setting="query_pre_attn_scalar",
                     softcap_setting="attn_logit_softcapping", windowed=True,
                     output_norm="post_attention_layernorm"),
    "gemma3_text": Family("Gemma 3 decoder", **_LLAMA_LIKE, qk_norm=True, windowed=True,
                          scale_setting="query_pre_attn_scalar",
                          output_norm="post_attention_layernorm"),
    "olmo2": Family("OLMo 2 decoder", **{**_LLAMA_LIKE, "input_norm": None}, qk_norm=True,
                    output_norm="post_attention_layernorm"),
    "granite": Family("Granite decoder", **_LLAMA_LIKE, scale_setting="attention_multiplier",
                      residual_scale="residual_multiplier"),
    "smollm3": Family("SmolLM3 decoder", **_LLAMA_LIKE, rope_layers="no_rope_layers"),
    "falcon": Family("Falcon decoder", layers="h", attention="self_attention",
                     projections=("query_key_value",), out="self_attention.dense",
                     post_norm=None, causal=True, positions=None, fused_per_head=True,
                     fused_grouped=True),
    "albert": Family("ALBERT encoder", layers="encoder.albert_layer_groups.0.albert_layers",
                     attention="attention", projections=("query", "key", "value"),
                     out="attention.dense", post_norm="attention.LayerNorm", causal=False,
                     positions="embeddings.position_embeddings", shared_layers=True),
    "modernbert": Family("ModernBERT encoder", layers="layers", attention="attn",
                         projections=("Wqkv",), out="attn.Wo", post_norm=None, causal=False,
                         positions=None, windowed=True),
    "mpnet": Family("MPNet encoder", layers="encoder.layer", attention="attention.attn",
                    projections=("q", "k", "v"), out="attention.attn.o",
                    post_norm="attention.LayerNorm", causal=False,
                    positions="embeddings.position_embeddings", positions_after_pad=True,
                    score_terms=("relative position bias",)),
    "deberta-v2": Family("DeBERTa-v2 encoder", layers="encoder.layer",
                         attention="attention.self",
                         projections=("query_proj", "key_proj", "value_proj"),
                         out="attention.output.dense", post_norm="attention.output.LayerNorm",
                         causal=False, positions=None, relative_positions=True,
                         scale_setting="pos_att_type",
                         score_terms=("content-to-position term", "position-to-content term")),
    "gpt_neox": Family("GPT-NeoX decoder", layers="layers", attention="attention",
                       projections=("query_key_value",), out="attention.dense", post_norm=None,
                       causal=True, positions=None, fused_per_head=True,
                       input_norm="input_layernorm"),
}
# what --model takes, said in messages: the explicit BERT path and the families here
SUPPORTED = "bert, " + ", ".join(FAMILIES)
