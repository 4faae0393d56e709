"""Minimal pairs: the same model, layer, heads and focus word on two sentences, their words
aligned, and what the focus word's weights and its update's shares do between them.

Words are matched by what they say (case aside), the k-th occurrence in one sentence with
the k-th in the other, so a word that moves ("The cat ate the fish" / "The fish ate the
cat") is compared with itself; a word in one sentence alone is marked as changed. Each
word weighs the sum of its pieces (:mod:`.word_model`).

A pair that changes one word ("… because she was late" / "… because he was late") asks
about that word: it is the focus of both (:func:`pair_focus`), A's word in A and B's in
B, matched with each other whatever they say; the automatic focus of such a pair is it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .trace import AttentionTrace
from .word_model import WordModel

__all__ = ["Comparison", "PairedTrace", "WordPair", "paired", "align_pair", "align_words",
           "compare_sentences", "compare_traces", "focus_of_pair", "mask_rule", "pair_focus",
           "pair_lookup"]

SHOWN = 2            # decimals the weights are said with: a change that rounds to 0 is none


@dataclass(frozen=True)
class WordPair:
    """A word of either sentence: ``a`` and ``b`` its index in each one's word model
    (None: that sentence has no such word)."""
    text: str
    a: int | None
    b: int | None
    text_b: str | None = None     # B's word where it says another (the focus of a pair)

    @property
    def changed(self) -> bool:
        return self.a is None or self.b is None

    @property
    def said_in_b(self) -> str:
        return self.text if self.text_b is None else self.text_b


def _key(text: str) -> str:
    return text.casefold()


def pair_focus(sentence_a: str, sentence_b: str) -> tuple[str, str] | None:
    """The word a minimal pair changes, (A's, B's), where B is A with one word of letters
    or digits replaced by another (the words as written, case aside: "she" / "he"), each
    the first of its text in its sentence; None for any other pair."""
    import difflib

    from .word_model import written_segments

    def words(sentence):
        return [sentence[a:b] for a, b in written_segments(sentence)]
    wa, wb = words(sentence_a), words(sentence_b)
    changes = [op for op in difflib.SequenceMatcher(
        None, [_key(w) for w in wa], [_key(w) for w in wb], autojunk=False).get_opcodes()
        if op[0] != "equal"]
    if len(changes) != 1:
        return None
    kind, a0, a1, b0, b1 = changes[0]
    if kind != "replace" or a1 - a0 != 1 or b1 - b0 != 1:
        return None
    word_a, word_b = wa[a0], wb[b0]
    first = _key(word_a) not in map(_key, wa[:a0]) and _key(word_b) not in map(_key, wb[:b0])
    readable = any(ch.isalnum() for ch in word_a) and any(ch.isalnum() for ch in word_b)
    return (word_a, word_b) if first and readable else None


def focus_of_pair(req_a, sentence_b: str) -> str | None:
    """The focus a pair with no --focus asks about: A's word that the pair changes
    (:func:`pair_focus`), where the model reads it and B's word as written (never as its
    unknown token: it would not see what it is asked); None for any other pair."""
    import dataclasses

    from .api import _setup, words_of

    changed = pair_focus(req_a.sentence, sentence_b)
    if changed is None or (req_a.focus or "").strip():
        return None
    for sentence, word in zip((req_a.sentence, sentence_b), changed):
        setup = _setup(dataclasses.replace(req_a, sentence=sentence, focus=word),
                       where_it_runs=False)
        if words_of(setup.tokens).word_of(setup.focus.index).kind == "unknown":
            return None
    return changed[0]


def align_pair(a, b) -> tuple:
    """The words of two traces aligned (:func:`align_words`), their focus words matched
    with each other where they say different things (the word a pair changes)."""
    words_a, words_b = WordModel.of_trace(a), WordModel.of_trace(b)
    joined = (words_a.index_of(a.focus_index), words_b.index_of(b.focus_index))
    said = (_key(words_a.words[joined[0]].text), _key(words_b.words[joined[1]].text))
    changed = pair_focus(a.sentence, b.sentence)
    if said[0] == said[1] or changed is None or said != tuple(map(_key, changed)):
        joined = None
    return align_words(words_a, words_b, joined)


def align_words(words_a: WordModel, words_b: WordModel, joined=None) -> tuple:
    """The words of both sentences, A's in order then B's own, each matched by its text and
    occurrence (the model's special tokens, [CLS] and [SEP], match each other); ``joined``
    (A's word, B's word) are matched with each other whatever they say."""
    seen_b: dict[str, list[int]] = {}
    for n, w in enumerate(words_b.words):
        if joined is None or n != joined[1]:
            seen_b.setdefault(_key(w.text), []).append(n)
    used: dict[str, int] = {}
    pairs, matched_b = [], set()
    for n, w in enumerate(words_a.words):
        if joined is not None and n == joined[0]:
            pairs.append(WordPair(w.text, n, joined[1], words_b.words[joined[1]].text))
            matched_b.add(joined[1])
            continue
        k = _key(w.text)
        rank = used.get(k, 0)
        used[k] = rank + 1
        others = seen_b.get(k, [])
        b = others[rank] if rank < len(others) else None
        if b is not None:
            matched_b.add(b)
        pairs.append(WordPair(w.text, n, b))
    pairs += [WordPair(w.text, None, n) for n, w in enumerate(words_b.words)
              if n not in matched_b]
    return tuple(pairs)


@dataclass(frozen=True)
class Comparison:
    """Two traces of the same model, layer, heads and focus word, their words aligned."""
    a: object                     # AttentionTrace of sentence A
    b: object                     # of sentence B
    pairs: tuple

    def _words(self, side: str) -> WordModel:
        return WordModel.of_trace(self.a if side == "a" else self.b)

    def weight(self, side: str, pair: WordPair, slot: int = 0) -> float | None:
        """The weight the focus word gives ``pair``'s word in head ``slot`` (on the head axis;
        0 the explained head) of sentence ``side``, its pieces summed."""
        trace, n = (self.a, pair.a) if side == "a" else (self.b, pair.b)
        if n is None:
            return None
        row = trace.weights[slot, trace.focus_index].astype(np.float64)
        return float(self._words(side).total(row, n))

    def change(self, pair: WordPair, slot: int = 0) -> float | None:
        """B's weight minus A's (None for a word of one sentence alone)."""
        if pair.changed:
            return None
        return self.weight("b", pair, slot) - self.weight("a", pair, slot)

    def share(self, side: str, pair: WordPair) -> float | None:
        """``pair``'s word's share of the focus word's update (all the layer's heads)."""
        from .derived import word_update_share

        trace, n = (self.a, pair.a) if side == "a" else (self.b, pair.b)
        if n is None or getattr(trace, "update_base", None) is None:
            return None
        word = self._words(side).words[n]
        return word_update_share(trace, word.first, word.last)

    def named(self, pair: WordPair) -> str:
        """``pair``'s word quoted as the captions name it, told apart from others its
        sentence writes the same: ‘the’ (2nd) (A's word where both have it)."""
        side, n = ("a", pair.a) if pair.a is not None else ("b", pair.b)
        return f"\u2018{pair.text}\u2019" + self._words(side).words[n].told_apart

    @property
    def focus_pair(self) -> WordPair:
        own = WordModel.of_trace(self.a).index_of(self.a.focus_index)
        return next(p for p in self.pairs if p.a == own)

    def movers(self, slot: int = 0) -> tuple[WordPair | None, WordPair | None]:
        """The matched word whose weight grew most and the one that lost most (the focus's
        own word aside), each None where no change rounds to a shown one."""
        step = 0.5 * 10 ** -SHOWN
        changes = [(self.change(p, slot), p) for p in self.pairs
                   if not p.changed and p is not self.focus_pair]
        gain = max(changes, key=lambda c: c[0], default=(0.0, None))
        loss = min(changes, key=lambda c: c[0], default=(0.0, None))
        return (gain[1] if gain[0] >= step else None, loss[1] if loss[0] <= -step else None)

    def summary(self, slot: int = 0) -> str:
        """The measured change in one sentence, as the screen and inspect say it: what the
        words of one sentence alone take, then what moves among the words of both."""
        focus = f"\u2018{self.focus_pair.said_in_b}\u2019"

        def heaviest(side):
            alone = [p for p in self.pairs if (p.b is None if side == "a" else p.a is None)]
            return max(alone, key=lambda p: self.weight(side, p, slot), default=None)
        new, old = heaviest("b"), heaviest("a")
        parts = []
        if new is not None:
            said = f"the new {self.named(new)} {self.weight('b', new, slot):.{SHOWN}f}"
            if old is not None:
                said += (f" (A gave {self.named(old)} "
                         f"{self.weight('a', old, slot):.{SHOWN}f})")
            parts.append(said)
        elif old is not None:
            parts.append(f"nothing to {self.named(old)} (A gave it "
                         f"{self.weight('a', old, slot):.{SHOWN}f})")
        gain, loss = self.movers(slot)
        moved = []
        if gain is not None:
            moved.append(f"{self.change(gain, slot):.{SHOWN}f} more to {self.named(gain)}")
        if loss is not None:
            moved.append(f"{-self.change(loss, slot):.{SHOWN}f} less to {self.named(loss)}")
        both = " and ".join(moved) if moved else (
            f"the same weight to each word of both, to {SHOWN} decimals")
        if not parts:
            return f"In B, {focus} gives {both}" if moved else (
                f"{focus} gives {both}: this head barely changes")
        return f"In B, {focus} gives {parts[0]}; of the words of both, " + (
            f"it gives {both}" if moved else f"each keeps its weight to {SHOWN} decimals")

    def to_json(self) -> dict:
        heads = [int(h) for h in self.a.heads]
        return {"a": self.a.sentence, "b": self.b.sentence, "model": self.a.meta.get("model"),
                "layer": int(self.a.layer), "heads": heads, "focus": self.focus_pair.text,
                "summary": self.summary(),
                "words": [{"word": p.text, "in_a": p.a is not None, "in_b": p.b is not None,
                           "weight_a": [self.weight("a", p, s) for s in range(len(heads))],
                           "weight_b": [self.weight("b", p, s) for s in range(len(heads))],
                           "change": [self.change(p, s) for s in range(len(heads))],
                           "update_share_a": self.share("a", p),
                           "update_share_b": self.share("b", p)} for p in self.pairs]}


def mask_rule(trace) -> str:
    """The trace's mask as a rule: a global mask's tokens by their texts. The same --mask
    global:cat+window:1 names other positions in another sentence (cat is token 2 of one,
    5 of the other); the trace records the positions."""
    import re

    match = re.fullmatch(r"global:([\d,]+)\+(window:\d+)", str(trace.mask_kind))
    if match is None:
        return str(trace.mask_kind)
    positions = [int(p) for p in match.group(1).split(",")]
    texts = sorted({trace.display_tokens[p].strip().casefold() if p < trace.num_tokens
                    else str(p) for p in positions})
    return f"global:{','.join(texts)}+{match.group(2)}"


def compare_traces(a, b) -> Comparison:
    """The comparison of two traces, checked: the same model, layer, heads and focus word
    (the same tokens), and at least one other word in common."""
    same = ("model", "weights_sha256", "layer", "heads")
    differ = [k for k in same if a.meta.get(k) != b.meta.get(k)]
    if a.mask_kind != b.mask_kind and mask_rule(a) != mask_rule(b):
        differ.append("mask")           # the same positions, or the same tokens by text
    if differ:
        raise InputError(f"the two traces differ in {', '.join(differ)}; compare sentences "
                         "on one model, layer and heads.")
    pairs = align_pair(a, b)
    comparison = Comparison(a, b, pairs)
    focus = comparison.focus_pair
    if focus.b is None:
        raise InputError(f"the focus word {focus.text!r} is not in sentence B; choose a focus "
                         "word both sentences have (--focus).")
    word_a = WordModel.of_trace(a).words[focus.a]
    word_b = WordModel.of_trace(b).words[focus.b]
    # the word a pair changes is followed from its first token in each
    same_word = focus.text_b is None
    if (same_word and [a.display_tokens[j] for j in word_a.pieces]
            != [b.display_tokens[j] for j in word_b.pieces]) \
            or b.focus_index != word_b.first:
        raise InputError(f"the focus word {focus.text!r} is cut into different tokens in the "
                         "two sentences (or is not B's focus); choose another focus (--focus).")
    common = [p for p in pairs if not p.changed and p is not focus
              and WordModel.of_trace(a).words[p.a].kind != "special"]
    if not common:
        raise InputError("the two sentences share no word but the focus; a minimal pair "
                         "changes a few words of one sentence.")
    return comparison


def compare_sentences(req_a, sentence_b: str, compute=None) -> Comparison:
    """Sentence A as ``req_a`` asks (its layer, heads and focus chosen on it; with no
    focus, the word the pair changes, :func:`pair_focus`, where it changes one), then B
    with A's layer, heads and focus word (B's own word where the pair changes it);
    ``compute`` (request -> trace) defaults to :func:`.api.trace_for`."""
    import dataclasses

    from .api import trace_for

    compute = compute or trace_for
    changed = pair_focus(req_a.sentence, sentence_b)
    asked = focus_of_pair(req_a, sentence_b)
    if asked is not None:           # a pair that changes one word asks about that word
        req_a = dataclasses.replace(req_a, focus=asked)
    a = compute(req_a)
    words_a = WordModel.of_trace(a)
    focus = words_a.words[words_a.index_of(a.focus_index)]
    rank = sum(1 for w in words_a.words[:words_a.index_of(a.focus_index)]
               if _key(w.text) == _key(focus.text))
    if rank:
        raise InputError(f"the focus word {focus.text!r} comes more than once in A; choose "
                         "its first occurrence or another word (--focus).")
    # the word the pair changes is B's own there; any other focus is the same word in B
    in_b = changed[1] if changed is not None and _key(focus.text) == _key(changed[0]) \
        else focus.text
    req_b = dataclasses.replace(req_a, sentence=sentence_b, layer=int(a.layer),
                                heads=",".join(str(h) for h in a.heads), focus=in_b)
    try:
        b = compute(req_b)
    except InputError as exc:
        if "--focus" not in str(exc):
            raise
        raise InputError(f"the focus word {in_b!r} is not in sentence B; choose a focus "
                         "word both sentences have (--focus).") from None
    return compare_traces(a, b)


@dataclass(frozen=True, eq=False)
class PairedTrace(AttentionTrace):
    """A trace carrying its minimal pair (``versus``: sentence B on the same model, layer,
    heads and focus word), for a film that ends with the versus beat."""
    versus: AttentionTrace | None = None


def paired(a, b) -> PairedTrace:
    """Trace ``a`` carrying ``b`` as its minimal pair."""
    import dataclasses

    return PairedTrace(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)},
                       versus=b)


def pair_lookup(a, b, kind: str, index: tuple) -> float:
    """A number of a minimal pair's film: ``kind`` read from A's trace, ``versus:KIND``
    from B's, ``pair:change`` B's word weight minus A's (index: slot, A's focus, A's word
    first, last, then B's focus, first, last); ``shown_pair:change`` the same of the two
    weights as drawn (decimals last), so a change drawn is the difference of what is
    drawn above it (one value per number)."""
    from .derived import lookup

    if kind.startswith("versus:"):
        return lookup(b, kind[len("versus:"):], index)
    if kind == "pair:change":
        s, fa, a0, a1, fb, b0, b1 = index
        return lookup(b, "word_weight", (s, fb, b0, b1)) - lookup(a, "word_weight",
                                                                    (s, fa, a0, a1))
    if kind == "shown_pair:change":
        s, fa, a0, a1, fb, b0, b1, d = index
        return round(lookup(b, "shown_word_weight", (s, fb, b0, b1, d))
                     - lookup(a, "shown_word_weight", (s, fa, a0, a1, d)), int(d))
    return lookup(a, kind, index)
