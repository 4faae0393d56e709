"""sentence -> AttentionTrace: the one entry point of the numbers side.

Three kinds of model make a trace: a BERT encoder computed explicitly (the bundled MiniLM
or a local BERT folder, every layer as trained), a local Hugging Face folder of another
family run by transformers itself (RoBERTa, DistilBERT, ELECTRA, GPT-2, Llama, Mistral,
Qwen2: :mod:`.hf_models`), and the seed article's MultiHeadAttention (``scratch``: one
seeded layer on MiniLM's token embeddings). :mod:`.model_kinds` says what differs
between them; :func:`trace_for` does the rest once.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..facts import TRACE_DEFAULTS
from . import DEFAULT_SENTENCE, bert, grammar, selection
from .attention import MaskSpec, build_mask, parse_mask, resolve_mask
from .variants import asked_blocked, blocked_for_all, kept_shares, mask_meta
from .device import one_cpu_thread
from .errors import InputError, check_sentence
from .model_kinds import (MODEL_CHOICES, Forward, HFModelFiles, ModelKind, kind_for,
                          loaded_weights, model_files)
from .word_model import UNICODE_WORD_BREAKS, WordModel
from .words import language_of
from .trace import (POSITIONS_NONE, UPDATE_NORMED, UPDATE_PLAIN, UPDATE_PRENORM,
                    UPDATE_SANDWICH, AttentionTrace, model_label)
from .trace_parts import focus_update, projection_rows

__all__ = ["MODEL_CHOICES", "TraceRequest", "atlas_for", "atlas_of", "check_request",
           "check_sentence", "compute_trace", "count_tokens", "every_layer_run", "model_files",
           "setup_of", "trace_for", "trace_key"]

# the position vectors a trace keeps: this many positions at least (the sentence's, and
# enough more that the position beat's waves show their shape)
POSITION_SPAN = 64


@dataclass(frozen=True)
class TraceRequest:
    """Everything that decides a trace; checked by :func:`trace_for` before the model runs.
    The defaults are ``facts.TRACE_DEFAULTS``."""
    sentence: str = DEFAULT_SENTENCE
    model: str = TRACE_DEFAULTS["model"]
    focus: str | None = None        # None or "": chosen automatically
    layer: str | int = TRACE_DEFAULTS["layer"]
    heads: str = TRACE_DEFAULTS["heads"]
    mask: str = TRACE_DEFAULTS["mask"]
    device: str = TRACE_DEFAULTS["device"]
    dtype: str = TRACE_DEFAULTS["dtype"]
    d_model: int = TRACE_DEFAULTS["d_model"]
    num_heads: int = TRACE_DEFAULTS["num_heads"]
    seed: int = TRACE_DEFAULTS["seed"]


def count_tokens(sentence: str, model: str = TRACE_DEFAULTS["model"]) -> int:
    """How many model tokens (special ones included) the sentence becomes; no torch needed."""
    files = model_files("minilm" if model == "scratch" else model)
    count = len(files.tokenize(check_sentence(sentence)).ids)
    files.check_length(count)     # before the drawing limit: the model could not run it at all
    return count


def _versions(files) -> dict:
    import tokenizers
    import torch

    from . import __version__

    versions = {"attention_explainer": __version__, "torch": torch.__version__,
                "numpy": np.__version__, "tokenizers": tokenizers.__version__}
    if isinstance(files, HFModelFiles):
        import transformers

        versions["transformers"] = transformers.__version__
    return versions


def compute_trace(sentence: str = DEFAULT_SENTENCE, **options) -> AttentionTrace:
    """Run the model on one sentence and capture one layer's attention.

    options: the fields of :class:`TraceRequest` (model, focus, layer, heads, mask,
    device, dtype, d_model, num_heads, seed).
    """
    return trace_for(TraceRequest(sentence=sentence, **options))


# ---- one trace ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Setup:
    """A request, checked and resolved before the model runs."""
    req: TraceRequest
    kind: ModelKind
    tokens: bert.TokenizedSentence
    focus: selection.Focus
    mask_spec: MaskSpec
    mask: np.ndarray                    # T x T bool, True = blocked
    layer_spec: str | int               # "auto" or a layer
    head_spec: str | list[int]          # "auto", "all" or head indices
    device: object                      # torch.device
    dtype: object                       # torch.dtype


@dataclass(frozen=True)
class _Choice:
    """The layer and heads shown, and the head scores they were chosen by."""
    layer: int
    heads: list[int]
    primary: int
    scores: np.ndarray                  # num_layers x num_heads, -inf where not eligible
    question: grammar.Question          # what the scores measured the heads against
    baseline: float                     # the score of an even spread in the chosen layer


def _setup(req: TraceRequest, where_it_runs: bool = True) -> _Setup:
    """Every check of the request, cheapest first; no model weights are loaded. Unless
    ``where_it_runs``, the device and dtype are checked by name only (no torch: whether a
    GPU is there is known where the model runs)."""
    from .device import check_device_name, check_dtype_name, resolve_device, resolve_dtype

    sentence = check_sentence(req.sentence)
    mask_spec = parse_mask(req.mask)
    kind = kind_for(req)
    head_spec = selection.parse_heads(req.heads, kind.num_heads)
    layer_spec = selection.parse_layer(req.layer, kind.num_layers)
    tokens = kind.files.tokenize(sentence)
    kind.files.check_length(len(tokens.ids))
    mask_spec = resolve_mask(mask_spec, tokens.display_tokens, tokens.tokens)
    focus = selection.resolve_focus(req.focus, tokens,
                                    reads_ahead=not kind.extra_meta.get("causal", False))
    if where_it_runs:
        device, dtype = resolve_device(req.device), resolve_dtype(req.dtype)
    else:
        device, dtype = check_device_name(req.device), check_dtype_name(req.dtype)
    return _Setup(req, kind, tokens, focus, mask_spec, build_mask(mask_spec, len(tokens.ids)),
                  layer_spec, head_spec, device, dtype)


def setup_of(req: TraceRequest):
    """The request checked and resolved, its model not run (for :mod:`.ablation`)."""
    return _setup(req)


def check_request(req: TraceRequest) -> None:
    """The checks :func:`trace_for` makes before the model runs (the sentence against the
    tokenizer, focus, heads and layer against the model's config, mask, the device's and
    dtype's names), without torch or the weights: raises InputError. A course checks its
    entries so before its workers start."""
    _setup(req, where_it_runs=False)


def trace_key(req: TraceRequest) -> str | None:
    """A hash of everything that decides the trace of ``req`` on this machine (the request
    as given, the model's files, this package's code, the libraries' versions, the CPU):
    a trace kept under it is the one :func:`trace_for` would compute, and a request it
    would refuse never gets a trace kept. None where that is not known before the model
    runs: a folder of a family transformers runs (its weights are not hashed when loaded)
    or a device that may be a GPU."""
    import hashlib
    import json

    from .device import check_device_name

    files = model_files("minilm" if req.model == "scratch" else req.model)
    if isinstance(files, HFModelFiles) or not _surely_the_cpu(check_device_name(req.device)):
        return None
    parts = {"request": vars(req), "weights": files.sha256, "config": files.config,
             "tokenizer": bert.sha256_of(files.tokenizer_path), **_code_and_machine()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _surely_the_cpu(device: str) -> bool:
    """Whether the model runs on the CPU, known without torch: asked for, or ``auto`` with
    a torch built for the CPU alone (its version says ``+cpu``)."""
    from importlib import metadata

    if device == "cpu":
        return True
    try:
        return device == "auto" and metadata.version("torch").endswith("+cpu")
    except metadata.PackageNotFoundError:
        return False


@functools.lru_cache(maxsize=1)
def _code_and_machine() -> dict:
    """What else decides a trace: this package's numbers code, the versions of the
    libraries it calls, and the CPU (torch's kernels differ by instruction set)."""
    import hashlib
    import platform
    from importlib import metadata
    from pathlib import Path

    code = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for path in sorted([*here.glob("*.py"), here.parent / "facts.py"]):
        code.update(b"%s:%d:" % (path.name.encode(), path.stat().st_size) + path.read_bytes())
    versions = {}
    for name in ("torch", "numpy", "tokenizers", "safetensors", "wordfreq", "regex",
                 "langcodes"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"code": code.hexdigest(), "versions": versions, "cpu": _cpu_identity(),
            "machine": platform.machine()}


def _cpu_identity() -> str:
    """The CPU's instruction-set flags (Linux), else its name."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith(("flags", "Features")):
                    return " ".join(sorted(line.split(":", 1)[1].split()))
    except OSError:
        pass
    return platform.processor()


def trace_for(req: TraceRequest) -> AttentionTrace:
    """Check the request, run its model and capture the chosen layer's attention."""
    import torch

    setup = _setup(req)
    kind, device = setup.kind, setup.device
    with one_cpu_thread(), torch.inference_mode():
        weights = loaded_weights(kind.weights_of, str(device),
                                  str(setup.dtype).replace("torch.", ""))
        run = kind.forward(weights, torch.tensor([setup.tokens.ids], device=device), setup)
        choice = _choose(setup, run.captures)
        cap = run.captures[choice.layer]
        if setup.mask.any() or setup.mask_spec.depends_on_scores:
            cap = run.rerun(choice.layer, cap, asked_blocked(setup.mask_spec, setup.mask, cap))   # the mask asked for
        trace = _trace(setup, choice, cap, run)
    trace.validate()
    return trace


def atlas_for(req: TraceRequest):
    """Every layer's every head on the sentence, as the model runs (its own mask only),
    each tagged by its pattern, and the head the film would explain with ``req``."""
    import torch

    setup = _setup(req)
    with one_cpu_thread(), torch.inference_mode():
        return atlas_of(setup, every_layer_run(setup))


def every_layer_run(setup: _Setup) -> Forward:
    """One run of the request's model through every layer (call under inference mode)."""
    import dataclasses

    import torch

    kind, device = setup.kind, setup.device
    weights = loaded_weights(kind.weights_of, str(device), str(setup.dtype).replace("torch.", ""))
    every_layer = dataclasses.replace(setup, layer_spec="auto")
    return kind.forward(weights, torch.tensor([setup.tokens.ids], device=device), every_layer)


def atlas_of(setup: _Setup, run: Forward):
    """The atlas of a run through every layer (:func:`atlas_for`'s; under inference mode)."""
    from .atlas import Atlas, patterns_of, punctuation_tokens

    kind, req = setup.kind, setup.req
    choice = _choose(setup, run.captures)
    stacked = np.stack([bert.to_numpy(cap.weights[0]) for cap in run.captures])
    blocked = np.stack([bert.to_numpy(cap.blocked[0]).astype(bool) for cap in run.captures])
    film = run.captures[choice.layer]      # its mask is the one the atlas names
    own = bert.to_numpy(film.blocked[0]).astype(bool)
    tokens = setup.tokens
    content = selection.written_content(tokens)
    # --layer N: that layer alone (a large model's every head is more than one picture)
    layers = tuple(range(len(stacked))) if setup.layer_spec == "auto" else (setup.layer_spec,)
    stacked, blocked = stacked[list(layers)], blocked[list(layers)]
    patterns = patterns_of(stacked, tokens.special, content,
                           punctuation_tokens(tokens.display_tokens), layers, blocked)
    causal = bool(kind.extra_meta.get("causal", False))
    meta = mask_meta(setup.mask_spec, own, causal)
    mask = meta.get("model_mask", "none") if own.any() else "none"
    variant, kept = "", None
    if meta["mask_is_illustration"]:        # what the mask asked for keeps of every head
        variant = setup.mask_spec.name
        kept = np.stack([kept_shares(bert.to_numpy(run.captures[n].scores[0].float()),
                                     blocked[i], setup.mask_spec)
                         for i, n in enumerate(layers)])
    return Atlas(req.sentence, model_label({**kind.names, **kind.extra_meta}),
                 tuple(tokens.display_tokens),
                 tuple(tokens.special), stacked, patterns, choice.layer, choice.primary, mask,
                 layers, variant, kept)


def words_of(tokens) -> WordModel:
    """The sentence's words as written (:mod:`.word_model`) from a TokenizedSentence."""
    return WordModel.from_parts(tokens.display_tokens, tokens.special,
                                selection.written_words(tokens),
                                [j for j, u in enumerate(tokens.unknown) if u])


def _check_window(setup: _Setup, cap) -> None:
    """A model that reads both ways is drawn whole: a layer of it that sees only a window
    of nearby tokens (ModernBERT's local layers, on a sentence longer than the window) is
    refused in one line."""
    if setup.kind.extra_meta.get("causal", False) or not bool(cap.blocked.any()):
        return
    blocked = bert.to_numpy(cap.blocked[0]).astype(bool)
    reach = int((~blocked).sum(axis=1).max())
    which = "each of its layers" if setup.layer_spec == "auto" else f"its layer {setup.layer_spec}"
    raise InputError(f"{setup.req.model}: {which} reads a window of at most {reach} of the "
                     f"sentence's {blocked.shape[0]} tokens, a mask the film draws only for a "
                     "model that reads one way; choose a layer that reads the whole sentence "
                     "(--layer N, one of its global layers) or a shorter sentence.")


def _question(setup: _Setup, visible=None) -> grammar.Question:
    """What the focus word asks of the sentence, and the tokens that may answer it, among
    the keys ``visible`` to the focus (a boolean per token; default: all)."""
    tokens, focus = setup.tokens, setup.focus
    content = selection.written_content(tokens)
    # a word the model read as its unknown token answers nothing: it never saw it
    known = words_of(tokens)
    content &= np.array([known.word_of(j).kind != "unknown" for j in range(len(content))])
    classes = grammar.word_classes(tokens.sentence, tokens.offsets, tokens.special,
                                   language_of([text for _, _, text in
                                                selection.every_written_word(tokens)]))
    # the focus word is every piece of the word it is in, never an answer to itself
    own = words_of(tokens).word_of(focus.index)
    span = (min(focus.span[0], own.first), max(focus.span[1], own.last))
    # nor does it look at one as at a word: the open question asks of the words it read
    unseen = [sp or known.word_of(j).kind == "unknown" for j, sp in enumerate(tokens.special)]
    return grammar.question_for(focus.index, span, content, classes, unseen,
                                reads_ahead=not setup.kind.extra_meta.get("causal", False),
                                visible=visible,
                                word_of=[known.index_of(j) for j in range(len(content))])


def _choose(setup: _Setup, captures) -> _Choice:
    """Score every head by the focus row of its weights (with the illustration mask
    applied) against the focus word's question, a word weighing the sum of its pieces,
    and choose the layer and heads. A layer whose mask hides the question's answers from
    the focus is asked the nearest question its visible words answer. Each layer's
    baseline is the score of a head that spreads its weight evenly over what it sees."""
    import torch

    f = setup.focus.index
    word_of = np.array([words_of(setup.tokens).index_of(j)
                        for j in range(len(setup.tokens.ids))])
    num_layers = setup.kind.num_layers
    scores = np.full((num_layers, setup.kind.num_heads), -np.inf)
    baselines = np.zeros(num_layers)
    questions: dict[tuple, grammar.Question] = {}
    asked = []
    for n, cap in enumerate(captures):
        visible = ~(bert.to_numpy(cap.blocked[0, f]).astype(bool) | setup.mask[f])
        key = tuple(visible.tolist())
        if key not in questions:
            questions[key] = _question(setup, visible)
        question = questions[key]
        asked.append(question)
        targets = np.zeros(len(setup.tokens.ids), dtype=bool)
        targets[list(question.targets)] = True
        allowed = torch.as_tensor(~setup.mask[f], device=setup.device)
        row = cap.weights[0, :, f].float() * allowed
        row = row / row.sum(dim=-1, keepdim=True)
        spread = question.kind not in grammar.ONE_ANSWER
        scores[n] = selection.head_scores(bert.to_numpy(row), f, targets, spread=spread,
                                          word_of=word_of)
        baselines[n] = float(selection.head_scores(selection.uniform_row(visible), f, targets,
                                                   spread=spread, word_of=word_of))
    if setup.layer_spec != "auto":
        scores[[n for n in range(num_layers) if n != setup.layer_spec]] = -np.inf
    elif not setup.kind.extra_meta.get("causal", False):
        # a both-ways model's layer that sees a window of the sentence (ModernBERT's local
        # layers on a long one): its mask is not the film's to draw; the others are asked
        scores[[n for n, cap in enumerate(captures) if bool(cap.blocked.any())]] = -np.inf
    layer, heads, primary = selection.choose(scores, setup.layer_spec, setup.head_spec)
    _check_window(setup, captures[layer])
    return _Choice(layer, heads, primary, scores, asked[layer], float(baselines[layer]))


def _trace(setup: _Setup, choice: _Choice, cap, run: Forward) -> AttentionTrace:
    """The AttentionTrace of the chosen heads of one layer's capture."""
    import torch

    sel = torch.as_tensor(choice.heads, device=setup.device)
    f = bert.to_numpy
    maps, after = run.maps(choice.layer), run.after(choice.layer)
    out_norm = run.output_norm(choice.layer)
    rows, w_rows, b_rows = projection_rows(maps, choice.primary, int(cap.q.shape[-1]))
    contributions, bias, updated = focus_update(cap, setup.focus.index, *after, out_norm)
    positions = run.positions(max(len(setup.tokens.ids), POSITION_SPAN))
    prenorm = cap.residual is not None
    return AttentionTrace(
        tokens=tuple(setup.tokens.tokens),
        embeddings=f(cap.embeddings[0]),
        q=f(cap.q[0, sel]), k=f(cap.k[0, sel]), v=f(cap.v[0, sel]),
        scores=f(cap.scores[0, sel]),
        # the model's own mask (a decoder's causal one) and the one asked for
        mask=np.ascontiguousarray(blocked_for_all(bert.to_numpy(cap.blocked[0])) | setup.mask),
        weights=f(cap.weights[0, sel]),
        context=f(cap.context[0, sel]),
        output=f(cap.output[0]),
        meta=_meta(setup, choice, cap, run.captures[choice.layer]) | {"projection_rows": rows,
                                           "update": (UPDATE_SANDWICH if out_norm is not None
                                                      else UPDATE_PRENORM if prenorm else
                                                      UPDATE_NORMED if after[1] else
                                                      UPDATE_PLAIN),
                                           "positions": (POSITIONS_NONE if choice.layer in
                                                         run.unpositioned else
                                                         run.position_kind),
                                           **run.score_terms},
        projection_rows=w_rows, projection_bias=b_rows,
        contributions=f(contributions), output_bias=f(bias), updated=f(updated),
        focus_weights_all=f(cap.weights[0, :, setup.focus.index]),
        positions=None if positions is None else f(positions),
        residual=f(cap.residual[0, setup.focus.index]) if prenorm else None,
        score_terms=None if cap.terms is None else f(cap.terms[:, 0, sel]),
    )


def _shared_heads(setup: _Setup, choice: _Choice) -> dict:
    """Grouped-query attention: the key/value head each shown query head reads, and a
    decoder's start token (its BOS, which heads use as a sink)."""
    extra = {}
    kv = setup.kind.extra_meta.get("kv_heads")
    if kv is not None and kv < setup.kind.num_heads:
        groups = setup.kind.num_heads // kv
        extra["kv_head_of"] = [int(h) // groups for h in choice.heads]
    if setup.kind.extra_meta.get("causal") and setup.tokens.special[0]:
        extra["start_token"] = 0
    return extra


def _meta(setup: _Setup, choice: _Choice, cap, as_run) -> dict:
    """The trace's metadata: the model, the choices made and the tokens' own text."""
    req, tokens, focus, layer = setup.req, setup.tokens, setup.focus, choice.layer
    return {
        **setup.kind.names,
        "weights_sha256": setup.kind.files.sha256,
        "sentence": req.sentence,
        "layer": int(layer),
        "num_layers": int(setup.kind.num_layers),
        "heads": [int(h) for h in choice.heads],
        "primary_head": int(choice.primary),
        "num_heads_total": int(setup.kind.num_heads),
        "head_choice": req.heads if isinstance(req.heads, str) else ",".join(map(str, req.heads)),
        "head_scores": [float(round(choice.scores[layer, h], 6)) for h in choice.heads],
        # what a head spreading its weight evenly over what the focus sees would score
        "head_score_baseline": float(round(choice.baseline, 6)),
        # how many heads the choice looked over (every layer's, or the one layer's)
        "heads_compared": int(np.isfinite(choice.scores).sum()),
        # what the focus word asks, and the tokens whose weight answered it
        "question": choice.question.to_meta(),
        "d_model": int(cap.embeddings.shape[-1]),
        "d_k": int(cap.q.shape[-1]),
        "focus": focus.text,
        "focus_index": int(focus.index),
        "focus_span": [int(focus.span[0]), int(focus.span[1])],
        "focus_span_text": focus.span_text,
        **mask_meta(setup.mask_spec, bert.to_numpy(as_run.blocked[0]).astype(bool),
                     bool(setup.kind.extra_meta.get("causal", False))),  # the model's own
        "device": str(setup.device),
        "dtype": str(setup.dtype).replace("torch.", ""),
        "special": tokens.special,
        "word_ids": tokens.word_ids,
        "words": tokens.words,
        "display_tokens": tokens.display_tokens,
        # tokens the model read as its unknown token (drawn as it read them)
        "unknown_tokens": [j for j, u in enumerate(tokens.unknown) if u],
        # tokens the model's normaliser reads otherwise than written, beyond case: {j: read}
        "read_as": {str(j): r for j, r in enumerate(tokens.read_as) if r is not None},
        # words as written that are several tokens: [first, last, text]
        "written_words": [[a, b, text] for a, b, text in selection.written_words(tokens)],
        # ... and they are the Unicode segmentation of the sentence (an older trace's are
        # the runs of touching tokens)
        "word_breaks": UNICODE_WORD_BREAKS,
        "versions": _versions(setup.kind.files),
        **setup.kind.extra_meta,
        **_shared_heads(setup, choice),
        "layer_choice": "auto" if setup.layer_spec == "auto" else "given",
    }
