"""The atlas of an encoder–decoder: every layer × head of one kind of its attention — the
encoder's self-attention, the decoder's causal self-attention or the cross-attention
(target × source) — each head tagged by the pattern its weights show, under its own label.

The weights are the model's, every layer recomputed from its watched Q and K and checked
(``seq2seq.align``); the words are the runs of pieces one written word makes
(``translation.word_runs``), judged content or function words whole.
"""
from __future__ import annotations

import numpy as np

from .atlas import Atlas, cross_patterns_of, patterns_of, punctuation_tokens

__all__ = ["KIND_TITLES", "kind_atlas"]

KIND_TITLES = {
    "self": "the encoder's self-attention (source × source)",
    "decoder": "the decoder's causal self-attention (target × what it has written)",
    "cross": "cross-attention (target × source)",
}


def _flags(raw, special):
    """(content, punctuation) per token of a sentence as the model cut it."""
    from .translation import word_runs
    from .word_model import WordModel
    from .words import content_words

    shown = [t.strip() for t in raw]
    words = WordModel.from_parts(shown, list(special), word_runs(list(raw), list(special)))
    verdict = content_words([w.text for w in words.words])
    content = np.array([not special[j] and verdict[words.index_of(j)]
                        for j in range(len(raw))], dtype=bool)
    return content, punctuation_tokens(shown)


def kind_atlas(files, sentence: str, *, kind: str, target: str | None, max_new_tokens: int,
               device, dtype) -> Atlas:
    """Every layer × head of ``kind`` on ``sentence`` and its translation (``target``, or
    the model's own); for cross-attention, the head `translate` follows outlined."""
    from .seq2seq import align
    from .translation import view_of

    found = align(files, sentence, target=target, kind=kind, max_new_tokens=max_new_tokens,
                  device=device, dtype=dtype, every_layer=True)
    stack = found.every_layer.astype(np.float32)
    L = stack.shape[0]
    special = list(found.source_special)
    if kind == "cross":
        content, punct = _flags(found.source, special)
        patterns = cross_patterns_of(stack, found.target_special, special, content, punct)
        view = view_of(found, max_new_tokens=max_new_tokens)
        film = (found.layer, view.head)
        caption = (f"outlined: layer {found.layer}, head {view.head}, the head the translate "
                   f"film follows for ‘{view.focus_text}’; rows are the target's tokens "
                   "(queries), columns the source's (keys); cross-attention has no mask")
        key = ("sink: the source's special tokens · punct.: punctuation · content: content "
               "words · each above an even head's share (another sentence's queries have no "
               "previous or next token)")
        tokens = found.target
    else:
        raw = found.source if kind == "self" else found.decoder_inputs
        special = list(found.source_special) if kind == "self" else \
            [False] * len(found.decoder_inputs)
        if kind == "decoder":
            special[0] = True             # the decoder's start token
        content, punct = _flags(raw, special)
        T = len(raw)
        blocked = np.triu(np.ones((T, T), bool), 1) if kind == "decoder" else \
            np.zeros((T, T), bool)
        patterns = patterns_of(stack, special, content, punct, blocked=np.stack([blocked] * L))
        film, key = (-1, -1), ""
        caption = ("rows are queries, columns keys, the same tokens; "
                   + ("its causal mask hides what is not written yet" if kind == "decoder"
                      else "no mask"))
        tokens = raw
    return Atlas(sentence, f"{found.model}: {KIND_TITLES[kind]}",
                 tuple(t.strip() for t in tokens), tuple(special), stack, patterns, film[0],
                 film[1], "causal" if kind == "decoder" else "none", tuple(range(L)),
                 caption=caption, row_name="decoder layer" if kind != "self" else
                 "encoder layer", key=key)
