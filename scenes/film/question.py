"""The question the film opens on, why its head was chosen, and the answer it closes on.

The question is the focus word's (``attention_core.grammar``: for a pronoun, which noun it
stands for; for a verb, who does it and to what; for an adjective, which noun it describes;
for a number, what it counts; for a noun, what the sentence says of it; otherwise what it
needs from the other words); the answer is the model's, stated plainly even when it
surprises: the followed head's weights on the words that may answer, and their share of
the word's update. Every number is recorded in the film's book, so the tests re-derive it.

Parts are (text, role) pairs, role "ours" (our wording), "focus" (the focus word, in the
query colour) or "word" (another word of the user's); :func:`line` draws them.
"""
from __future__ import annotations

import re

from ...attention_core import derived
from ...attention_core.grammar import ONE_ANSWER, TARGETS_SAID
from ...attention_core.word_model import PIECES_SUM_NOTE, WordModel
from ..vocabulary import style
from ..vocabulary.headers import head_name, layer_name
from ..vocabulary.text import line_of
from .wording import LQ, RQ, focus_whole, quoted, told_apart

__all__ = ["INFLUENCE_GAP", "MAX_NAMED", "answer", "answer_named", "dropped_marks",
           "dropped_said", "influence_gap", "line", "lines", "plain", "reading", "runner_up",
           "question", "target_words", "why"]

MAX_NAMED = 3             # a question names the words that may answer when this few
INFLUENCE_GAP = 0.15      # a word whose mean weight is this much above its share of ΔE ...


def _word(text: str, role: str, told: str = "") -> list:
    """A word quoted, as parts; ``told``: what tells it from others written the same."""
    return [(LQ, "ours"), (text, role), (RQ, "ours")] + ([(told, "ours")] if told else [])


def _focus(trace) -> list:
    """The focus as every claim names it: its word, or — where the focus is a piece of a
    word in several (its query is that piece's, and its weights that piece's row) — the
    piece with its word, ‘с’ in ‘съела’."""
    whole = focus_whole(trace)
    told = told_apart(trace, trace.focus_index)
    if whole and whole != trace.focus_word:
        return [*_word(trace.focus_word, "focus"), (" in ", "ours"), *_word(whole, "word", told)]
    return _word(trace.focus_word, "focus", told)


def target_words(trace) -> list[tuple[tuple[int, int], str]]:
    """The words that may answer, each a word as written (all its pieces; the focus's own
    word never): ((first, last) token span, its text), in sentence order."""
    words = WordModel.of_trace(trace)
    return [(words.words[w].span, words.words[w].text) for w in derived.answer_words(trace)]


def word_weight(book, trace, span, slot: int | None = None) -> str:
    """The weight the focus gives a word (the sum of its pieces), in head ``slot`` (default:
    the followed head), as written and recorded."""
    slot = trace.primary_slot if slot is None else slot
    return book.text("word_weight", (slot, trace.focus_index, *span), 2)


def _weight_of(trace, span, slot: int | None = None) -> float:
    slot = trace.primary_slot if slot is None else slot
    return float(trace.weights[slot, trace.focus_index, span[0]:span[1] + 1].sum())


def _listed(names: list[tuple[str, str]], last: str) -> list:
    """Words (text, what tells it apart) as parts: ‘a’, ‘b’ or ‘c’."""
    parts = []
    for n, (name, told) in enumerate(names):
        if n:
            parts.append((f" {last} " if n == len(names) - 1 else ", ", "ours"))
        parts += _word(name, "word", told)
    return parts


def question(trace) -> list:
    """The question the focus word poses in its sentence, as parts: by its word class
    (a pronoun, a verb, an adjective, a number, a noun) where the tagger knows the
    language and the class offers two answers or more (``grammar.question_for``), else the
    plain question of a content word, in plain words (no tool's name for why)."""
    kind = derived.question(trace)["kind"]
    names = [(name, told_apart(trace, span[0])) for span, name in target_words(trace)]
    few = len(names) <= MAX_NAMED
    if kind == "pronoun":
        if few:
            return [("Which noun does ", "ours"), *_focus(trace), (" stand for: ", "ours"),
                    *_listed(names, "or"), ("?", "ours")]
        return [("Which noun before it does ", "ours"), *_focus(trace),
                (" stand for?", "ours")]
    if kind == "adjective":
        return [("Which noun does ", "ours"), *_focus(trace), (" describe", "ours"),
                *([(": ", "ours"), *_listed(names, "or")] if few else []), ("?", "ours")]
    if kind == "number":
        return [("What does ", "ours"), *_focus(trace), (" count", "ours"),
                *([(": ", "ours"), *_listed(names, "or")] if few else []), ("?", "ours")]
    if kind == "verb":
        return [*_focus(trace), (": who does it, and to what?", "ours")]
    if kind == "noun":
        return [("What does the sentence say of ", "ours"), *_focus(trace), ("?", "ours")]
    if kind == "word":
        return [("What does ", "ours"), *_focus(trace),
                (" need from the other words?", "ours")]
    return [("Where does ", "ours"), *_focus(trace), (" look in its sentence?", "ours")]


def why(book, trace) -> list:
    """One line: why the followed head was chosen, its measure recorded beside what a head
    spreading its weight evenly would score (the chance level), a hidden question said, and
    that a word in pieces weighs the sum of its pieces where one is asked about."""
    asked = derived.question(trace)
    said = TARGETS_SAID.get(asked["kind"], TARGETS_SAID["word"])
    slot = trace.primary_slot
    weight = book.text("target_weight", (slot,), 2)
    even = book.text("uniform_target_weight", (), 2)
    head = head_name(book, slot)
    # the measure (selection.head_scores): weight on the targets, spread over them but
    # where one word answers (a pronoun's noun, an adjective's)
    spread = asked["kind"] not in ONE_ANSWER and len(target_words(trace)) > 1
    doing = f"spreading weight from {{}} over {said}" if spread else \
        f"sending weight from {{}} to {said}"
    before, after = doing.split("{}")
    if trace.meta.get("head_choice", "auto") not in ("auto", "all"):
        parts = [(f"{head[:1].upper()}{head[1:]}, chosen with --heads, sends {weight} of the "
                  f"weight from ", "ours"), *_focus(trace),
                 (f" to {said} (an even spread: {even})", "ours")]
    else:
        compared = book.text("heads_compared", (), 0)
        among = f"all {compared} heads" if trace.meta.get("layer_choice") == "auto" \
            else f"the {compared} heads of {layer_name(book)}"
        # the chosen head's share beside an even spread's, compared as drawn: the best
        # by the measure may give them no more than chance, and that is said
        more = float(weight) > float(even)
        parts = [(f"Why {head}: of {among}, the best at {before}", "ours"), *_focus(trace),
                 (f"{after}: {weight} (an even spread: {even})" if more else
                  f"{after}: {weight}, no more than an even spread gives ({even})", "ours")]
    hidden = asked.get("hidden")
    if hidden:
        parts.append((f"; the mask hides {TARGETS_SAID[hidden]} from it", "ours"))
    words = WordModel.of_trace(trace)
    if words.any_split(derived.answer_words(trace)):
        parts.append((f"; {PIECES_SUM_NOTE}", "ours"))
    return parts


def runner_up(book, trace) -> str | None:
    """A caption: which answering word the next best head weighs most, when the heads were
    chosen by how well they answer ("of them": the words that may answer, so it never
    contradicts the row's heaviest word, which may be any), a word the sum of its pieces
    (no number: the heads' rows show theirs)."""
    if trace.meta.get("head_choice", "auto") != "auto" or len(trace.heads) < 2:
        return None
    words = target_words(trace)
    if not words:
        return None
    asked = derived.question(trace)
    said = TARGETS_SAID.get(asked["kind"], TARGETS_SAID["word"])
    slot = 1 if trace.primary_slot == 0 else 0
    span, name = max(words, key=lambda w: (_weight_of(trace, w[0], slot), -w[0][0]))
    told = (f"{head_name(book, slot).capitalize()}, the next best at sending weight from "
            f"{plain(_focus(trace))} to {said}: of them it gives the most to {LQ}{name}{RQ}"
            f"{told_apart(trace, span[0])}")
    book.claim("heaviest", (slot, span, "answer"), told)
    return told


def answer_named(trace) -> list[tuple[tuple[int, int], str]]:
    """The words the answer names, (span, text), heaviest first: the followed head's
    heaviest words that may answer (two where more than MAX_NAMED may)."""
    return _ranked(trace, 2 if len(target_words(trace)) > MAX_NAMED else MAX_NAMED)


def _ranked(trace, count: int) -> list[tuple[tuple[int, int], str]]:
    """The words that may answer, by the followed head's weight on them (each the sum of
    its pieces), most first."""
    words = target_words(trace)
    return sorted(words, key=lambda w: (-_weight_of(trace, w[0]), w[0][0]))[:count]


def influence_gap(book, trace) -> tuple[tuple[int, int], float] | None:
    """The word (a special token, or a word as written: its pieces' sums) whose weight from
    the focus, averaged over every head of the layer, most exceeds its share of the update
    (by INFLUENCE_GAP at least, its share under half its weight): (its span, gap); None
    when no word does or the trace lacks the rows. The focus's own word is not asked."""
    if trace.focus_weights_all is None or not trace.has_update:
        return None
    words = WordModel.of_trace(trace)
    own = words.index_of(trace.focus_index)
    best = None
    for w, word in enumerate(words.words):
        if w == own:
            continue
        weight = book.value("word_mean_weight", word.span)
        share = book.value("word_update_share", word.span)
        gap = weight - share
        if gap >= INFLUENCE_GAP and share <= weight / 2 and (best is None or gap > best[1]):
            best = (word.span, gap)
    return best


def answer(book, trace) -> list[list]:
    """The answer the numbers give, as lines of parts: the followed head's weights on the
    words that may answer (each word the sum of its pieces); their shares of the update;
    and, where the numbers show it, a word with much weight and little influence."""
    slot = trace.primary_slot
    ranked = answer_named(trace)
    lines = []
    if ranked:
        parts = [(f"The answer of {layer_name(book)}, {head_name(book, slot)}: ", "ours"),
                 *_focus(trace), (" gives ", "ours")]
        for n, (span, name) in enumerate(ranked):
            weight = word_weight(book, trace, span)
            if n:
                parts.append((", " if n < len(ranked) - 1 else " and ", "ours"))
            parts += [(f"{weight} of its weight to " if n == 0 else f"{weight} to ", "ours"),
                      *_word(name, "word", told_apart(trace, span[0]))]
        lines.append(parts)
        book.claim("ranked", (slot, *[span for span, _ in ranked]), plain(parts))
        if trace.has_update:
            heads = book.text("num_heads_total", (), 0)
            parts = [(f"Of what the layer adds to it (all {heads} heads), ", "ours")]
            for n, (span, name) in enumerate(ranked):
                if n:
                    parts.append((", " if n < len(ranked) - 1 else " and ", "ours"))
                share = book.text("word_update_percent", span, 0)
                parts += [*_word(name, "word", told_apart(trace, span[0])),
                          (f" makes {share}\u00a0%" if n == 0 else f" {share}\u00a0%", "ours")]
            lines.append(parts)
    gap = influence_gap(book, trace)
    if gap is not None:
        lines.append(influence(book, trace, gap[0]))
    return lines


def influence(book, trace, span) -> list:
    """‘[CLS]’ takes 0.40 of the weight, averaged over the 12 heads, and makes 4 % of ΔE
    (a word: the sums of its pieces)."""
    heads = book.text("num_heads_total", (), 0)
    word = WordModel.of_trace(trace).word_of(span[0])
    # a token the model adds is named as the strip writes it, [CLS], not as a word
    named = [(word.text, "word")] if word.kind == "special" else \
        _word(word.text, "word", word.told_apart)
    return [*named,
            (f" takes {book.text('word_mean_weight', span, 2)} of the weight (the mean of "
             f"{heads} heads) but makes {book.text('word_update_percent', span, 0)}\u00a0% of "
             f"\u0394E: weight is not influence", "ours")]


def reading(trace, most: int = 3) -> str | None:
    """One line on what the model saw where it is not what is written: the words its
    normaliser reads otherwise (‘で’ as ‘て’) and which marks it drops doing so
    (:func:`dropped_marks`: ‘बिल्ली’ as ‘बिलली’, its virama dropped), those it reads as its
    unknown token, and that a script written without spaces has each character for a
    word; None when it reads the sentence as written (up to case)."""
    words = WordModel.of_trace(trace)
    said = []
    unknown = [w for w in words.words if w.kind == "unknown"]
    if unknown:
        # the written text of an unknown token is the sentence's, at its word's place
        written = [trace.words[trace.word_ids[w.first]] if trace.word_ids[w.first] >= 0
                   else w.text for w in unknown]
        shown = ", ".join(quoted(t) for t in dict.fromkeys(written[:most]))
        more = f" and {len(unknown) - most} more" if len(unknown) > most else ""
        said.append(f"{len(unknown)} token{'s' * (len(unknown) > 1)} the model cannot read, "
                    f"drawn {unknown[0].text}: "
                    f"{shown}{more}")
    changed = _read_otherwise(trace)
    if changed:
        pairs = [f"{quoted(text)} as {quoted(read)}" for text, read in changed[:most]]
        more = f" and {len(changed) - most} more" if len(changed) > most else ""
        drops = dropped_said(trace)
        said.append("it reads " + ", ".join(pairs) + more + (f": {drops}" if drops else ""))
    if _touching_words(trace):
        # Unicode's word breaks know no dictionary: in a script written without spaces
        # each character is a word of its own
        said.append("written without spaces, each character counts as a word here "
                    "(no dictionary of this script's words is at hand)")
    if not said:
        return None
    return "What the model saw: " + "; ".join(said)


def _read_otherwise(trace) -> list[tuple[str, str]]:
    """(as written, as the model read it) for each word its normaliser reads otherwise."""
    read_as = {int(k): v for k, v in trace.meta.get("read_as", {}).items()}
    return [(w.text, "".join(read_as.get(j, trace.display_tokens[j]) for j in w.pieces))
            for w in WordModel.of_trace(trace).words
            if w.kind == "word" and any(j in read_as for j in w.pieces)]


def dropped_said(trace) -> str | None:
    """"its normaliser drops vowel signs and viramas": what the model's normaliser drops
    from the sentence's words (:func:`dropped_marks`), said once on screen (the title's
    count of tokens) and in the captions (:func:`reading`); None where it drops none."""
    dropped = dropped_marks(_read_otherwise(trace))
    # "marks" beside named kinds are the others
    dropped = [("other marks" if k == "marks" and len(dropped) > 1 else k) for k in dropped]
    return f"its normaliser drops {_and(dropped)}" if dropped else None


# what a dropped mark is called, by a phrase of its Unicode name, first match
_MARK_NAMES = (("VOWEL SIGN", "vowel signs"), ("VIRAMA", "viramas"),
               ("VOICED SOUND MARK", "voicing marks"))
_ACCENTS = range(0x0300, 0x0370)      # Unicode's block of combining diacritical marks


def dropped_marks(pairs) -> list[str]:
    """What the normaliser drops, named by kind in order of first sight ("vowel signs",
    "viramas", "accents", "marks"), from (written, read) pairs of words: the combining
    marks of the written word (decomposed) that its reading lacks."""
    import unicodedata
    from collections import Counter

    kinds: list[str] = []
    for written, read in pairs:
        have = Counter(unicodedata.normalize("NFD", read.casefold()))
        for ch in unicodedata.normalize("NFD", written.casefold()):
            if have[ch] > 0:
                have[ch] -= 1
                continue
            if not unicodedata.category(ch).startswith("M"):
                continue
            name = unicodedata.name(ch, "")
            kind = next((said for phrase, said in _MARK_NAMES if phrase in name),
                        "accents" if ord(ch) in _ACCENTS else "marks")
            if kind not in kinds:
                kinds.append(kind)
    return kinds


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _touching_words(trace) -> bool:
    """Whether two words of letters touch in the sentence with no space between them: a
    script written without spaces, whose words Unicode's segmentation cuts at each
    character (it has no dictionary)."""
    from ...attention_core.word_model import written_segments

    sentence = trace.sentence
    spans = written_segments(sentence)
    return any(b == c and sentence[b - 1].isalpha() and sentence[c].isalpha()
               for (_, b), (c, _) in zip(spans, spans[1:]))


def plain(parts) -> str:
    """The parts as a caption's text."""
    return "".join(text for text, _ in parts)


def lines(parts, width: float, font_size: float = style.FONT_BODY,
          color: str | None = None):
    """The parts drawn as few lines as keep each within ``width`` at no less than the
    smallest legible size, broken between words (a quoted word stays whole), centred."""
    from manim import DOWN, VGroup

    from ..vocabulary.text import legible_fit
    whole = line(parts, font_size, color)
    if whole.width * style.MIN_FONT / font_size <= width:
        return VGroup(legible_fit(whole, width, font_size))
    atoms = []                    # (text, role): our words one by one, a quoted word whole
    for text, role in parts:
        if role != "ours":
            atoms.append((text, role))
            continue
        if text[:1].isspace() and atoms:      # a space before our words ends the last atom
            atoms[-1] = (atoms[-1][0] + " ", atoms[-1][1])
        atoms += [(w, "ours") for w in re.findall(r"\S+\s*", text)]
    units = []                    # atoms a line may not break between: ‘, the word, ’
    for atom in atoms:
        if units and not units[-1][-1][0].endswith(" "):
            units[-1].append(atom)
        else:
            units.append([atom])
    rows, current = [], []
    for unit in units:
        if current and line([*current, *unit], font_size, color).width > width:
            rows.append(current)
            current = []
        current += unit
    rows.append(current)
    drawn = VGroup(*[legible_fit(line([(t.rstrip() if n == len(r) - 1 else t, role)
                                       for n, (t, role) in enumerate(r)], font_size, color),
                                 width, font_size) for r in rows])
    return drawn.arrange(DOWN, buff=0.12)


def line(parts, font_size: float = style.FONT_BODY, color: str | None = None):
    """The parts drawn on one baseline: our words in ``color`` (the text colour), the focus
    in the query colour, the user's other words in the text colour."""
    pal = style.PALETTE
    ours = color or pal.text
    return line_of([(text, ours) if role == "ours"
                    else (text, ("user", pal.query if role == "focus" else pal.text))
                    for text, role in parts], font_size)
