"""A translation's cross-attention as the film draws it: the source (the encoder's tokens,
where the keys and values come from), the target (the decoder's, where the queries come
from), every head's weights of one layer, the focus word and the head followed.

From an encoder–decoder folder (``seq2seq.align``: the model's own weights, checked) or
from the scratch encoder–decoder: the seed article's MultiHeadAttention as the encoder's
self-attention, the decoder's causal self-attention and its cross-attention, each seeded
and untrained, on MiniLM's tokens and embeddings. Untrained weights mean nothing yet; the
film says so, and draws the mechanism.

Words are the runs of pieces the tokenizer cut from one written word (``word_model``), so
the answer names source words with the sums of their pieces' weights.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import ClassVar
from functools import cached_property

import numpy as np

from .errors import InputError
from .numbers_file import numbers_fingerprint, save_json
from .word_model import SPACE_TOKEN, WordModel

__all__ = ["CrossView", "cross_view", "scratch_alignment", "translation_files", "view_of",
           "word_runs"]

SCRATCH_TITLE = "scratch encoder–decoder"


def _display(text: str) -> str:
    shown = text.strip()
    return shown if shown else SPACE_TOKEN


def _punctuation(text: str) -> bool:
    return bool(text) and all(unicodedata.category(c)[0] in "PS" for c in text)


def _spaceless(text: str) -> bool:
    """A script written without spaces (Han, kana, Thai ...): its pieces are words."""
    from .selection import _is_cjk

    return _is_cjk(text) or any("\u0e00" <= c <= "\u0eff" for c in text)


def word_runs(raw: list, special: list) -> list[tuple[int, int, str]]:
    """The runs of two or more pieces that are one written word: a piece joins the one
    before it where no space comes between them (a lone space piece starts the word after
    it), neither is added by the tokenizer nor of a script written without spaces; the
    punctuation at a run's ends is its own ("street." is street and ".", "didn't" one)."""
    def joinable(n):
        return not special[n] and not _spaceless(raw[n].strip())

    def punctuation(n):
        return _punctuation(raw[n].strip())

    runs, start = [], 0
    for n in range(1, len(raw) + 1):
        if n < len(raw) and joinable(n) and joinable(n - 1) and not raw[n][:1].isspace():
            continue
        first, last = start, n - 1
        while first < last and punctuation(first):
            first += 1
        while last > first and punctuation(last):
            last -= 1
        if last > first:
            runs.append((first, last, "".join(raw[j].strip() for j in range(first, last + 1))))
        start = n
    return runs


@dataclass(frozen=True)
class CrossView:
    """What the cross-attention film draws: ``weights`` is heads x target x source (every
    head of ``layer``); ``focus`` the target rows of the focus word (a word in pieces is
    all of them: its row is their mean); ``head`` the head followed."""
    model: str
    layer: int
    num_layers: int
    source_raw: tuple
    source_special: tuple
    target_raw: tuple
    target_special: tuple
    decoder_inputs: tuple
    weights: np.ndarray = field(repr=False)
    focus: tuple
    head: int
    translation: str            # "given", "the model's own (greedy)"
    untrained: bool = False
    source_unknown: tuple = ()  # tokens the model reads as its unknown token
    target_unknown: tuple = ()
    sentence: str = ""          # the source sentence as the user wrote it
    storyboard: ClassVar[str] = "translation"      # the film it is drawn by

    def number(self, kind: str, index: tuple) -> float:
        """A number the film draws, by kind: "word_weight" (head, source word), the focus
        word's weight on it; "row_sum" (head,), the sum of those; "words_sum" (head,
        words...), of some; "even_ratio" (head, word), its weight over the share an even
        spread gives it (its tokens' share of the source)."""
        sums = self.word_weights(index[0])
        if kind == "word_weight":
            return float(sums[index[1]])
        if kind == "row_sum":
            return float(sums.sum())
        if kind == "words_sum":          # (head, word, word...): those words' weights summed
            return float(sum(sums[w] for w in index[1:]))
        if kind == "even_ratio":         # (head, word): its weight over an even spread's
            words = self.source_words.words
            count = sum(len(w.pieces) for w in words)
            return float(sums[index[1]]) * count / len(words[index[1]].pieces)
        raise KeyError(kind)

    def fingerprint(self) -> str:
        """A hash of everything the film draws (the beat cache's key)."""
        return numbers_fingerprint(self.storyboard, self.sentence, self.to_json())

    def save(self, path) -> None:
        """The numbers drawn, as JSON (the film's sidecar)."""
        save_json(path, self.to_json())

    @property
    def source(self) -> list:
        return [_display(t) for t in self.source_raw]

    @property
    def target(self) -> list:
        return [_display(t) for t in self.target_raw]

    @property
    def num_heads(self) -> int:
        return int(self.weights.shape[0])

    @cached_property
    def source_words(self) -> WordModel:
        return WordModel.from_parts(self.source, list(self.source_special),
                                    word_runs(list(self.source_raw), list(self.source_special)),
                                    [j for j, u in enumerate(self.source_unknown) if u])

    @cached_property
    def target_words(self) -> WordModel:
        return WordModel.from_parts(self.target, list(self.target_special),
                                    word_runs(list(self.target_raw), list(self.target_special)),
                                    [j for j, u in enumerate(self.target_unknown) if u])

    @property
    def focus_text(self) -> str:
        return self.target_words.word_of(self.focus[0]).text

    def row(self, head: int | None = None) -> np.ndarray:
        """The focus word's weights over the source tokens in ``head`` (the head followed):
        its pieces' rows averaged (each sums to 1, so the mean does)."""
        h = self.head if head is None else head
        return self.weights[h][list(self.focus)].mean(axis=0)

    def word_weights(self, head: int | None = None) -> np.ndarray:
        """The focus word's weight on each source word: its pieces' weights summed."""
        return self.source_words.sums(self.row(head))

    def ranked_words(self, head: int | None = None) -> list[int]:
        """Source words, the heaviest first (ties in sentence order)."""
        sums = self.word_weights(head)
        return sorted(range(len(sums)), key=lambda w: (-round(float(sums[w]), 12), w))

    def to_json(self) -> dict:
        words = self.source_words
        return {"model": self.model, "layer": self.layer, "head": self.head,
                "translation": self.translation, "untrained": self.untrained,
                "source": self.source, "target": self.target,
                "decoder_inputs": list(self.decoder_inputs),
                "focus": {"word": self.focus_text, "rows": list(self.focus)},
                "focus_word_weights": [
                    {"word": words.words[w].text, "tokens": list(words.words[w].pieces),
                     "weight": round(float(v), 6)} for w, v in enumerate(self.word_weights())],
                "weights": self.weights.tolist()}


def _target_word_rows(target_words: WordModel) -> list[tuple[int, list[int]]]:
    # a word, not a mark: a focus is something written that has a meaning to look for
    return [(n, list(w.pieces)) for n, w in enumerate(target_words.words)
            if w.kind == "word" and any(c.isalnum() for c in w.text)]


def _focus_rows(view: CrossView, focus: str | None) -> tuple:
    """The focus word's rows: the word asked for (as written, case and spaces aside; or
    one of its pieces), else the most decided target word with content of its own (the
    largest weight any one source word takes from it, the heads averaged)."""
    words = view.target_words
    candidates = _target_word_rows(words)
    if not candidates:
        raise InputError("the translation has no word to follow; give a --target with words.")
    if focus:
        wanted = "".join(focus.split()).casefold()
        for n, pieces in candidates:
            if "".join(words.words[n].text.split()).casefold() == wanted:
                return tuple(pieces)
        for n, pieces in candidates:
            for j in pieces:
                if view.target[j].casefold() == wanted:
                    return tuple(pieces)
        shown = ", ".join(repr(words.words[n].text) for n, _ in candidates)
        unread = " (the model reads some of the translation as its unknown token)" \
            if any(view.target_unknown) else ""
        raise InputError(f"--focus {focus!r} is not a word of the translation{unread}; "
                         f"choose from {shown}.")

    def decided(pieces):
        rows = view.weights[:, pieces].mean(axis=(0, 1))
        return float(view.source_words.sums(rows).max())
    # a word with content of its own, never a function word of its language (as the
    # explainer's focus), where the translation has one
    from .words import content_words

    kept = content_words([words.words[n].text for n, _ in candidates])
    pool = [c for c, keep in zip(candidates, kept) if keep] or candidates
    return tuple(max(pool, key=lambda c: (decided(c[1]), -c[0]))[1])


def _followed_head(view: CrossView, heads) -> int:
    """The head given first in --heads, else the one where the focus word's largest
    weight on one source word is largest (the most decided head)."""
    if heads not in (None, "auto", "all"):
        chosen = int(str(heads).split(",")[0])
        if not 0 <= chosen < view.num_heads:
            raise InputError(f"--heads {heads}: this layer has heads 0 to "
                             f"{view.num_heads - 1}.")
        return chosen
    return max(range(view.num_heads), key=lambda h: (float(view.word_weights(h).max()), -h))


def cross_view(model: str, sentence: str, *, target: str | None, focus: str | None = None,
               layer="auto", heads="auto", max_new_tokens: int = 32, seed: int = 0,
               d_model: int = 64, num_heads: int = 4, device, dtype) -> CrossView:
    """The cross-attention of ``model`` (an encoder–decoder folder, or "scratch" with a
    given ``target``) on ``sentence`` and its translation, its focus word and head."""
    from .seq2seq import align

    if model == "scratch":
        if not target:
            raise InputError("the scratch encoder–decoder is untrained and cannot translate; "
                             "give the translation with --target TEXT.")
        found = scratch_alignment(sentence, target, seed=seed, d_model=d_model,
                                  num_heads=num_heads, device=device, dtype=dtype)
    else:
        found = align(translation_files(model), sentence, target=target,
                      kind="cross", layer=layer, heads="all", max_new_tokens=max_new_tokens,
                      device=device, dtype=dtype)
    return view_of(found, focus=focus, heads=heads, max_new_tokens=max_new_tokens,
                   untrained=model == "scratch")


def translation_files(model: str):
    """The encoder–decoder folder ``model`` names, checked as far as it can be without
    torch (its files, config.json as written); None for scratch. Its sizes' memory is
    :meth:`~.seq2seq.Seq2SeqFiles.check_memory`'s."""
    from .seq2seq import seq2seq_files

    if model == "scratch":
        return None
    files = seq2seq_files(model)
    if files is None:
        raise InputError(f"--model {model!r} is no encoder–decoder folder (Marian, BART, "
                         "mBART, T5, mT5); use one, or scratch with --target.")
    return files


def view_of(found, *, focus: str | None = None, heads="auto", max_new_tokens: int = 32,
            untrained: bool = False) -> CrossView:
    """The film's view of a cross-attention ``Alignment`` (every head of its layer): its
    focus word (``focus``, else the most decided) and the head followed."""
    from dataclasses import replace

    # the raw texts keep the space a piece starts with: it says where words start
    view = CrossView(found.model, found.layer, found.num_layers, tuple(found.source),
                     tuple(found.source_special), tuple(found.target),
                     tuple(found.target_special), tuple(_display(t) for t in found.decoder_inputs),
                     np.asarray(found.weights, dtype=np.float64), (0,), 0,
                     _translation(found, max_new_tokens), untrained=untrained,
                     source_unknown=tuple(found.source_unknown),
                     target_unknown=tuple(found.target_unknown))
    view = replace(view, focus=_focus_rows(view, focus))
    return replace(view, head=_followed_head(view, heads))


def _translation(found, max_new_tokens: int) -> str:
    """How the film names the translation: given, or the model's own (and, where it
    stopped at the limit without its end token, that it was cut)."""
    if not found.own_translation:
        return "given"
    ended = bool(found.target_special) and found.target_special[-1]
    return "the model's own (greedy)" if ended else \
        f"the model's own (greedy), cut at {max_new_tokens} tokens before it ended"


def scratch_alignment(sentence: str, target: str, *, seed: int, d_model: int,
                      num_heads: int, device, dtype):
    """The scratch encoder–decoder's cross-attention (a ``seq2seq.Alignment``): MiniLM's
    token embeddings through a seeded projection plus sinusoidal positions; the encoder one
    seeded self-attention with its residual; the decoder reads [CLS] and the target but
    its last token (shifted right, as in training), a seeded causal self-attention with its
    residual, then a third seeded module's queries from the decoder over keys and values
    from the encoder. Row i is the query that writes target token i."""
    import torch

    from . import bert, scratch
    from .attention import attention, build_mask
    from .model_kinds import model_files
    from .seq2seq import Alignment

    scratch.check_shape(d_model, num_heads)
    files = model_files("scratch")
    src, tgt = files.tokenize(sentence), files.tokenize(target)
    files.check_length(max(len(src.ids), len(tgt.ids)))
    weights = files.load_weights(device, dtype)
    proj = scratch.seeded_input_projection(weights.d_model, d_model, seed, device, dtype)

    def embedded(ids):
        ids = torch.tensor([ids], device=device)
        return bert.embed(weights, ids, positions=False) @ proj + \
            scratch.sinusoidal_positions(ids.shape[1], d_model, device, dtype)[None]

    encoder, decoder, cross = (scratch.seeded_module(d_model, num_heads, seed + n, device, dtype)
                               for n in range(3))
    with torch.inference_mode():
        x_src = embedded(src.ids)
        memory = x_src + encoder(x_src)
        dec_ids = tgt.ids[:-1]
        x_dec = embedded(dec_ids)
        causal = torch.as_tensor(build_mask("causal", len(dec_ids)), device=device)
        states = x_dec + decoder(x_dec, causal[None, None])
        q = cross.qkv_proj(states).chunk(3, dim=-1)[0]
        _, k, v = cross.qkv_proj(memory).chunk(3, dim=-1)
        _, found, _ = attention(*(cross._split_heads(t) for t in (q, k, v)), None)

    def raw(tokens, start=0, stop=None):
        # the user's own text of each piece, a space before each that starts a word
        pairs = list(zip(tokens.tokens, tokens.display_tokens))[start:stop]
        return [shown if piece.startswith("##") else " " + shown for piece, shown in pairs]

    rows = bert.to_numpy(found[0].double())
    return Alignment("cross", 0, list(range(num_heads)), raw(src), raw(tgt, 1),
                     raw(tgt, 0, -1), rows,
                     f"{SCRATCH_TITLE} (seed {seed}, untrained)", False,
                     tuple(src.special), tuple(tgt.special[1:]), 1, tuple(src.unknown),
                     tuple(tgt.unknown[1:]))
