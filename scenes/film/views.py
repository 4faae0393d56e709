"""Trace-aware layout shared by several beats: which tokens are drawn, the token strip,
the 2-D views of embeddings and of one head's queries, keys and values, the sentence's
grid, and the project beat's panels that the embed beat hands on (the matrix product on
the left, the embedding view on the right).

Kept apart from the vocabulary (which never reads a trace) so a beat and the beat after
it draw the same picture of the same vectors, and no beat imports another.
"""
from __future__ import annotations

import weakref

import numpy as np
from manim import DOWN, LEFT, UP, VGroup

from ...attention_core.projection import Projection2D, fit_pca
from ...attention_core.trace import (POSITIONS_ROTARY, drawn_projection_rows,
                                    kept_projection_rows)
from ...attention_core.word_model import WordModel
from ..vocabulary import stage, style
from ..vocabulary.grid import make_grid
from ..vocabulary.labels import baseline_drop, place_arrow_labels
from ..vocabulary.matrices import MatrixVectorProduct, WeightMatrix, entries_of
from ..vocabulary.planes import LabelledArrow, Plane2D
from ..vocabulary.scripts import in_their_words, reads_right_to_left
from ..vocabulary.text import label_text, wrapped
from ..vocabulary.tokens import TokenRow
from ..vocabulary.vectors import VectorColumn
from .question import answer_named
from .wording import mark_label, word_quoted

__all__ = [
    "HEAVY_KEYS", "LABEL_ALL_UP_TO", "LABEL_TOP", "LEFT_PANEL", "LETTERS", "NOTE_WIDTH",
    "PLANE_H", "PLANE_W", "RIGHT_CENTER", "ROW_PITCH", "SENTENCE_GRID_BOX",
    "SENTENCE_GRID_CENTER", "drawn_indices", "drawn_words", "embedding_panel", "head_color", "embedding_plane",
    "embedding_view", "focus_row_dots", "input_column", "joined_pieces", "named_indices", "plot_label", "place_header", "place_note",
    "product", "qk_view", "sentence_grid", "shown_tokens_note", "strip_row", "token_row",
    "outside_the_window", "ranked_groups", "tied", "token_word", "value_view", "window_label", "WINDOW_RULE",
]


HEAVY_KEYS = 5          # a long sentence's drawn tokens hold the focus's heaviest keys
# what a window keeps, in the order it keeps it (``drawn_indices``), as the film says it
WINDOW_RULE = (f"the focus word, the words named, its {HEAVY_KEYS} heaviest keys and its "
               "neighbours")


def drawn_indices(trace, limit: int | None = None) -> list[int]:
    """Token positions drawn in full, whole words only (a word is never split by the
    window): all of them up to ``limit`` tokens (default: as many as the strip shows
    legibly, at most ``style.MAX_TOKENS_DRAWN``); for a longer sentence, in this order
    (:data:`WINDOW_RULE`, which the film says): the focus word, the word each drawn head
    gives the most weight to, the words the answer names, the ``HEAVY_KEYS`` words the
    followed head weighs most (a word: the sum of its pieces), then the focus's
    neighbours, nearest first, each word taken whole while it fits. What the film names
    is so drawn wherever it fits; a named word that does not fit is said to lie outside
    (:func:`outside_the_window`)."""
    limit = legible_count(trace) if limit is None else limit
    T, f = trace.num_tokens, trace.focus_index
    if T <= limit:
        return list(range(T))
    words = WordModel.of_trace(trace)
    own = words.index_of(f)
    chosen: list[int] = []
    size = 0

    def take(w: int) -> None:
        nonlocal size
        length = len(words.words[w].pieces)
        if w not in chosen and (size + length <= limit or w == own):
            chosen.append(w)
            size += length
    take(own)
    for slot in range(len(trace.heads)):
        take(int(np.argmax(words.sums(trace.weights[slot, f]))))
    for span, _ in answer_named(trace):
        take(words.index_of(span[0]))
    sums = words.sums(trace.weights[trace.primary_slot, f])
    for w in np.argsort(-sums, kind="stable")[:HEAVY_KEYS]:
        take(int(w))
    for step in range(1, len(words)):
        for w in (own - step, own + step):
            if 0 <= w < len(words):
                take(w)
        if size >= limit:
            break
    return sorted(j for w in chosen for j in words.words[w].pieces)


def outside_the_window(trace, named) -> list[str]:
    """The words ``named`` ((span, text) pairs: what a caption or the answer names) that the
    window does not draw, quoted as the captions name them (‘cat’ (2nd)): the film says
    they lie outside it."""
    words = WordModel.of_trace(trace)
    drawn = set(drawn_words(trace))
    return [word_quoted(words.words[w])
            for w in dict.fromkeys(words.index_of(span[0]) for span, _ in named)
            if w not in drawn]


def drawn_words(trace) -> list[int]:
    """The words (indices in the trace's ``WordModel``) the window draws, in order."""
    return WordModel.of_trace(trace).words_of(drawn_indices(trace))


_LEGIBLE_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def legible_count(trace) -> int:
    """The most tokens (at most ``style.MAX_TOKENS_DRAWN``) whose strip fits the stage's
    text width with its words at ``style.MIN_FONT`` or more: long words leave fewer
    tokens drawn, never words too small to read."""
    if trace not in _LEGIBLE_COUNTS:
        style.register_fonts()      # measured in the film's own fonts, wherever asked first
        count = min(style.MAX_TOKENS_DRAWN, trace.num_tokens)
        while count > 3:
            row = token_row(trace, drawn_indices(trace, count),
                            max_width=strip_width(count < trace.num_tokens))
            if row.drawn_size >= style.MIN_FONT - 1e-6:
                break
            count -= 1
        _LEGIBLE_COUNTS[trace] = count
    return _LEGIBLE_COUNTS[trace]


def drawn_tokens(trace) -> list[str]:
    """The tokens' texts as drawn: a piece of a word of a right-to-left script knows its
    word (``scripts.InWord``), so it is drawn in the form it takes inside it, joined."""
    cached = trace.__dict__.get("_drawn_tokens")
    if cached is None:
        cached = in_their_words(trace.display_tokens, WordModel.of_trace(trace))
        trace.__dict__["_drawn_tokens"] = cached
    return cached


def token_row(trace, indices=None, **kwargs) -> TokenRow:
    """The sentence's tokens as chips, special tokens dimmed; a long sentence shows the
    drawn tokens (``drawn_indices``) and says so; a right-to-left sentence reads from the
    right."""
    return TokenRow(drawn_tokens(trace), trace.special,
                    indices=drawn_indices(trace) if indices is None else indices,
                    joined=joined_pieces(trace), right_to_left=reads_from_right(trace),
                    **kwargs)


def reads_from_right(trace) -> bool:
    """Whether the sentence reads right to left (its first strong letter, special tokens
    aside): the strip, the grids' keys, the bars, the head rows and the columns of numbers
    all run from the right then."""
    return reads_right_to_left(t for t, sp in zip(trace.display_tokens, trace.special)
                               if not sp)


def joined_pieces(trace) -> list[tuple[int, int]]:
    """Runs of tokens drawn as one word: each word as written that is several tokens, and
    the run the user named with --focus (a CJK word)."""
    runs = [(a, b) for a, b, _ in trace.written_words]
    first, last = trace.focus_span
    if last > first and (first, last) not in runs:
        runs = [r for r in runs if r[1] < first or r[0] > last] + [(first, last)]
    return sorted(runs)


def strip_width(windowed: bool) -> float:
    """How wide the strip may be: the text width, or — where a window's note under it
    lifts it to the corner formula's height — from the text's left edge to the formula's
    (a long strip ran under the formula and hid √d_k; :func:`strip_row` moves it left)."""
    if not windowed:
        return stage.TEXT_WIDTH
    return min(stage.TEXT_WIDTH, strip_right_end() + stage.TEXT_WIDTH / 2)


def strip_right_end() -> float:
    """The farthest right a lifted strip may reach: short of the corner formula."""
    from ..vocabulary.formula import FormulaMap, added_terms, divisor

    # a model's own divisor is wider or narrower; its own score terms add " + B"
    key = f"map_left {divisor()}{added_terms()}"
    if key not in _MAP:
        _MAP[key] = float(FormulaMap(None).formula.get_left()[0])
    return _MAP[key] - STRIP_CLEAR


_MAP: dict[str, float] = {}
STRIP_CLEAR = 0.2       # between the strip's end and the corner formula


def strip_row(trace) -> TokenRow:
    """The token strip: the sentence at the top of the stage, where it lives between beats."""
    windowed = legible_count(trace) < trace.num_tokens
    row = token_row(trace, max_width=strip_width(windowed))
    row.shift([-row.chips.get_x(), stage.STRIP_Y - row.chips.get_y(), 0])
    # a window's note under the chips must not reach into the body: the strip rises, and
    # keeps left of the corner formula at that height
    rise = max(0.0, stage.BODY_TOP + 0.05 - row.get_bottom()[1])
    row.shift(UP * rise)
    if rise > 0:
        row.shift(LEFT * max(0.0, row.chips.get_right()[0] - strip_right_end()))
    return row


LABEL_ALL_UP_TO = 10    # drawn tokens; beyond this a crowded view names the words that matter
LABEL_TOP = 5           # ... the focus and the words it attends to most


def named_indices(trace, slot: int | None = None, *, limit: int = LABEL_ALL_UP_TO,
                  top: int = LABEL_TOP) -> set[int]:
    """Token positions whose labels a 2-D view writes, one per word (a view labels words,
    never pieces: :func:`plot_label`): every drawn word when at most ``limit`` tokens are
    drawn, else the focus word and the ``top`` drawn words it gives the most weight to (their
    pieces' sum, in the primary head, or ``slot``). A word in pieces is labelled at the
    focus token where it holds it, else at its first piece."""
    idx = drawn_indices(trace)
    words = WordModel.of_trace(trace)
    drawn = words.words_of(idx)
    own = words.index_of(trace.focus_index)
    if len(idx) > limit:            # the arrows crowd the view, one a token
        slot = trace.primary_slot if slot is None else slot
        sums = words.sums(trace.weights[slot, trace.focus_index])
        drawn = [own] + [int(w) for w in np.argsort(-sums, kind="stable")
                         if int(w) in set(drawn) and int(w) != own][:top]
    return {int(trace.focus_index) if w == own else words.words[w].first for w in drawn}


PLOT_LABEL_GRAPHEMES = 10       # a longer word is shortened in a 2-D view: "Straßenba…"


def plot_label(trace, index: int) -> str:
    """The label of token ``index``'s point in a 2-D view: its word (a piece's point,
    labelled once for its word, names the word it is a piece of), a long word in pieces
    cut after its first letters with an ellipsis (a view is crowded, a word is not)."""
    import regex

    word = WordModel.of_trace(trace).word_of(index)
    if not word.split or word.kind != "word":
        return token_word(trace, index)
    letters = regex.findall(r"\X", word.text)
    if len(letters) <= PLOT_LABEL_GRAPHEMES:
        return word.text
    return "".join(letters[:PLOT_LABEL_GRAPHEMES - 1]) + "\u2026"


def embedding_view(trace) -> tuple[Projection2D, np.ndarray]:
    """Uncentred PCA of the drawn tokens' embeddings and their 2-D points (N x 2)."""
    idx = drawn_indices(trace)
    proj = fit_pca(trace.embeddings[idx])
    return proj, proj(trace.embeddings[idx])


def qk_view(trace, slot: int) -> tuple[Projection2D, np.ndarray, np.ndarray]:
    """One PCA fitted jointly on a head's queries and keys (as AttentionViz does), so
    q·k pictures compare in one space; returns it and the q and k points."""
    idx = drawn_indices(trace)
    proj = fit_pca(np.vstack([trace.q[slot, idx], trace.k[slot, idx]]))
    return proj, proj(trace.q[slot, idx]), proj(trace.k[slot, idx])


def value_view(trace, slot: int) -> tuple[Projection2D, np.ndarray]:
    """Uncentred PCA of the drawn tokens' value vectors in a head (values live in their
    own space) and their 2-D points (N x 2): the pull beat's view."""
    idx = drawn_indices(trace)
    proj = fit_pca(trace.v[slot, idx])
    return proj, proj(trace.v[slot, idx])


SENTENCE_GRID_BOX = (7.6, 6.8)               # the mask's and the summary's grid, labels in
SENTENCE_GRID_CENTER = np.array([-2.75, -0.45, 0.0])


def sentence_grid(trace):
    """The primary head's grid over the drawn tokens (queries as rows, keys as columns),
    where the mask and the summary beats draw it: the summary fills the grid the mask
    leaves. ``grid.indices`` are the token positions of its rows and columns."""
    indices = drawn_indices(trace)
    grid = make_grid([drawn_tokens(trace)[i] for i in indices],
                     [trace.special[i] for i in indices], max_width=SENTENCE_GRID_BOX[0],
                     max_height=SENTENCE_GRID_BOX[1], font_size=style.FONT_LABEL,
                     right_to_left=reads_from_right(trace))
    grid.move_to(SENTENCE_GRID_CENTER)
    stage.keep_on_stage(grid)           # its titles too: nothing nearer the frame's edge
    grid.indices = indices
    return grid


def focus_row_dots(trace, grid=None) -> VGroup:
    """The focus row of the primary head's weights as dots in the sentence grid (the
    mask beat's "before" row of a trace without a mask of its own): what the heads beat
    hands the followed head's row on as."""
    grid = grid if grid is not None else sentence_grid(trace)
    idx = grid.indices
    row = trace.weights[trace.primary_slot][np.ix_([trace.focus_index], idx)]
    r = idx.index(trace.focus_index)
    return VGroup(*[grid.weight_dot(r, c, row[0, c], head_color(trace, trace.primary_head))
                    for c in range(len(idx))])


def head_color(trace, head: int) -> str:
    """Head ``head``'s colour: the drawn heads take the palette's first colours in the order
    they are drawn (its colours are picked each farthest from those before it, so a few
    heads drawn are told apart best); a head not drawn, its own."""
    heads = [int(h) for h in trace.heads]
    return style.PALETTE.head(heads.index(int(head)) if int(head) in heads else int(head))


def window_label(trace) -> str | None:
    """The window's label, its rule: "16 of 22 tokens: the focus word, ..." for a view
    that leaves tokens out; None when every token is drawn."""
    n = len(drawn_indices(trace))
    if n == trace.num_tokens:
        return None
    return f"{n} of {trace.num_tokens} tokens: {WINDOW_RULE}"


def shown_tokens_note(trace):
    """The window's label (:func:`window_label`) as drawn under a view that leaves tokens
    out; None when every token is drawn."""
    label = window_label(trace)
    if label is None:
        return None
    return label_text(wrapped(label, NOTE_WIDTH), style.FONT_SMALL, style.PALETTE.dim)


def tied(names: list[str], most: int = 3) -> str:
    """Words that share one drawn number, named together: "cat", "cat and fish",
    "cat, fish and mat"; more than ``most``: "7 words"."""
    if len(names) > most:
        return f"{len(names)} words"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def ranked_groups(texts: dict[int, str], values: dict[int, float]) -> list[list[int]]:
    """Keys grouped by the number drawn for them (``texts``), the largest first (by
    ``values``; keys in sentence order within a group): keys whose drawn numbers are
    equal are a tie, whatever their unrounded values."""
    groups: dict[str, list[int]] = {}
    for j in sorted(texts, key=lambda j: (-values[j], j)):
        groups.setdefault(texts[j], []).append(j)
    return [sorted(g) for g in groups.values()]


def token_word(trace, index: int) -> str:
    """The user's text for a token (for labels: a piece of a right-to-left word as drawn
    inside its word, see :func:`drawn_tokens`)."""
    return drawn_tokens(trace)[index]


def embedding_plane(book, points, indices, *, width=7.0, height=3.6, focus_scale=1.0):
    """The embedding view of the embed and project beats: plane, note and arrows.

    The words are laid out by ``place_arrow_labels`` (inside the plane, clear of each
    other and of the arrows); the focus word is laid out at ``focus_scale`` times its size,
    the size a beat may grow it to later."""
    trace = book.trace
    d_model = book.text("d_model", (), 0)
    n = book.text("num_tokens", (), 0) if len(indices) == trace.num_tokens else str(len(indices))
    note = label_text(f"2-D view of {d_model}-D vectors: their top two principal "
                      f"directions (uncentred PCA of these {n})", style.FONT_SMALL,
                      style.PALETTE.dim)
    plane = Plane2D(points, width=width, height=height, note=note)
    arrows = [LabelledArrow(plane, points[n_], mark_label(plot_label(trace, i)),
                            style.PALETTE.text, special=trace.special[i],
                            font_size=style.FONT_LABEL)
              for n_, i in enumerate(indices)]
    # a crowded view names the focus and the words it attends to most, as the q/k views do
    named = named_indices(trace)
    for arrow, i in zip(arrows, indices):
        if i not in named:
            arrow.drop_word()
    f = indices.index(trace.focus_index) if trace.focus_index in indices else None
    if f is not None:
        arrows[f].word.scale(focus_scale)
    place_arrow_labels(arrows, bounds=plane.plane, segments=plane.axes,
                       solo=[f] if f is not None else [])
    if f is not None:
        arrows[f].word.scale(1 / focus_scale)
    note.next_to(VGroup(plane.plane, *arrows), DOWN, buff=0.15)
    return plane, arrows


# ---- the project beat's panels (the embed beat hands on the column and the view) -----------
LEFT_PANEL = np.array([-3.0, 0.25, 0.0])     # the matrix product (and its braces), centred here
PLANE_W, PLANE_H = 5.2, 3.8                  # the 2-D view on the right
RIGHT_CENTER = np.array([4.25, -0.75, 0.0])
NOTE_WIDTH = 5.6                             # a note under a panel's view wraps to this
ROW_PITCH = 0.38                             # the product's rows
LETTERS = ("q", "k", "v")                    # what W_Q, W_K, W_V make: projection 0, 1, 2


def turned_by_position(trace, p: int) -> bool:
    """Whether projection ``p``'s output is turned by position before attention uses it
    (a rotary model's query and key), so the trace's q or k is not W E + b itself."""
    return (p < 2 and trace.meta.get("positions") == POSITIONS_ROTARY
            and trace.projection_rows is not None)


def product(book, p: int) -> MatrixVectorProduct:
    """W (of projection ``p``) times the focus word's embedding = its query, key or value,
    laid out in the left panel."""
    trace, pal = book.trace, style.PALETTE
    slot, f, d_model, d_k = trace.primary_slot, trace.focus_index, int(
        trace.embeddings.shape[-1]), trace.d_k
    if trace.projection_rows is not None:
        make, values = entries_of(book, "projection", (p,))
        kept = trace.meta["projection_rows"]
    else:                               # an older trace: the weights are not in it
        def make(r, c):
            return label_text("?", style.FONT_SMALL, pal.dim)

        def values(r, c):
            return 0.0
        kept = kept_projection_rows(d_k)
    cols = [c for c in (0, d_model - 1) if c < d_model]
    matrix = WeightMatrix(make, values, drawn_projection_rows(kept), sorted(set(cols)),
                          pitch=(0.86, ROW_PITCH))
    vector = VectorColumn.from_trace(book, "embeddings", (f,), d_model, row_height=ROW_PITCH,
                                     font_size=style.FONT_SMALL)
    # a rotary model turns q and k by position after W: the product is W E + b, unturned
    kind, index = (("projected", (p, f)) if turned_by_position(trace, p)
                   else (LETTERS[p], (slot, f)))
    output = VectorColumn.from_trace(book, kind, index, d_k, row_height=ROW_PITCH,
                                     bracket_color=pal.projection_color(p),
                                     font_size=style.FONT_SMALL)
    result = MatrixVectorProduct(matrix, vector, output, plus_bias=trace.has_bias)
    return result.move_to(LEFT_PANEL)


def input_column(book) -> VectorColumn:
    """The focus word's embedding, where W_Q takes it."""
    return product(book, 0).vector


def embedding_panel(book) -> VGroup:
    """The embedding view in the right panel, with its header and note."""
    trace = book.trace
    _, points = embedding_view(trace)
    plane, arrows = embedding_plane(book, points, drawn_indices(trace), width=PLANE_W,
                                    height=PLANE_H)
    panel = VGroup(plane, *arrows)
    panel.shift(RIGHT_CENTER - plane.plane.get_center())
    place_note(plane.note, plane, arrows)
    header = label_text(trace.input_name[1], style.FONT_LABEL, style.PALETTE.text)
    place_header(header, plane)
    panel.add(header)
    panel.plane, panel.arrows, panel.header = plane, arrows, header
    return panel


def place_note(note, plane: Plane2D, arrows=()):
    """Place a note under a plane and its arrows, wrapped (never shrunk) to the panel's
    width; returns the note placed (a wrapped note is a new Text)."""
    if note.width > NOTE_WIDTH:
        if note is plane.note:
            note = plane.wrap_note(NOTE_WIDTH)
        else:
            note = label_text(wrapped(note.original_text, NOTE_WIDTH), style.FONT_SMALL,
                              style.PALETTE.dim)
    note.next_to(VGroup(plane.plane, *arrows), DOWN, buff=0.1)
    note.set_x(plane.plane.get_center()[0])
    return stage.keep_on_stage(note)


def place_header(header, plane: Plane2D) -> None:
    """Centre a header over a plane, every header on the same baseline."""
    text = getattr(header, "words", header)
    base = text.get_bottom()[1] + baseline_drop(text)
    header.set_x(plane.plane.get_center()[0])
    header.shift(UP * (plane.plane.get_top()[1] + 0.28 - base))
