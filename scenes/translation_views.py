"""What the translation film draws, and where: the windows of tokens its rows and grids
draw (whole words; a right-to-left word drawn whole is one chip), a row of tokens, a grid
that is not square fitted to its space, the focus word marked in a row and boxed in a grid.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, UP, Rectangle, RoundedRectangle, VGroup, VMobject

from .vocabulary import style
from .vocabulary.grid import AttentionGrid, grid_cell
from .vocabulary.scripts import InWord, in_their_words, reads_right_to_left
from .vocabulary.text import label_text, line_of, wrapped
from .vocabulary.tokens import TokenRow

__all__ = ["ROW_WIDTH", "WRITTEN", "centred_lines", "drawn_windows", "fitted_grid", "mark_focus",
           "row", "rows_box", "side_lines", "side_text", "spark_trail", "spread_numbers"]

ROW_WIDTH = 13.0          # scene units a row of tokens may take
# the grids' beats: words in a column on the right of the stage
SIDE_X, SIDE_WIDTH = 2.3, 4.4
SIDE_ROOM = 6.9 - SIDE_X    # to the frame's edge, its margin kept
SIDE_TOP = 2.55             # under the title
WRITTEN = 3               # the heaviest source words get their weight written


def fitted_grid(rows, cols, row_special, col_special, *, max_width: float,
                max_height: float, row_title: str | None, col_title: str | None
                ) -> AttentionGrid:
    """A rows x cols grid whose drawing (labels and titles too) fits the space, its cell
    from ``grid.grid_cell``'s rule and shrunk until the drawing holds (as ``make_grid``)."""
    cell = grid_cell(list(rows), list(row_special), cols=list(cols),
                     col_special=list(col_special), max_width=max_width,
                     max_height=max_height, font_size=style.FONT_LABEL, limit=0.8)
    for _ in range(6):
        grid = AttentionGrid(list(rows), list(cols), row_special=list(row_special),
                             col_special=list(col_special), cell_size=cell,
                             font_size=style.FONT_LABEL, row_title=row_title,
                             col_title=col_title,
                             right_to_left=_reads_from_right(cols, col_special))
        over = max(grid.width - max_width, grid.height - max_height)
        if over <= 1e-3:
            break
        cell -= over / max(grid.n_cols, grid.n_rows) + 1e-3
    return grid


def _reads_from_right(texts, special) -> bool:
    """Whether a row reads from the right: its own words decide, not the tokens its
    tokenizer adds (a [CLS] before an Arabic sentence is no Latin word), as the film's."""
    return reads_right_to_left(t for t, added in zip(texts, special) if not added)


def row(texts, special, indices, words) -> TokenRow:
    """A row of the drawn tokens, the pieces of a word drawn together (its window said
    once, under the title, not under the row)."""
    row = TokenRow(texts, special, max_width=ROW_WIDTH, indices=indices,
                   joined=[(w.first, w.last) for w in words.words if w.split],
                   right_to_left=_reads_from_right(texts, special))
    if row.window_note is not None:
        row.remove(row.window_note)
    return row


def _legible(texts, special, indices, words) -> bool:
    return row(texts, special, indices, words).drawn_size >= style.MIN_FONT - 1e-6


def _units(words, texts, tokens) -> int:
    """How many chips ``tokens`` draw: a word of pieces drawn whole (a right-to-left word,
    in the form its word gives each piece) is one."""
    shown = {words.index_of(j) for j in tokens
             if isinstance(texts[j], InWord)}
    return len([j for j in tokens if not isinstance(texts[j], InWord)]) + len(shown)


def _window(words, texts, special, order, grid: bool = False) -> list[int]:
    """The token positions a row draws: whole words, taken in ``order`` (what matters
    first) while the row holds at most ``style.MAX_TOKENS_DRAWN`` chips, legibly; or a
    grid's axis (``grid``): at most that many tokens (a grid gives each piece a cell)."""
    def fits(tokens):
        if grid:
            return len(tokens) <= style.MAX_TOKENS_DRAWN
        return _units(words, texts, tokens) <= style.MAX_TOKENS_DRAWN and \
            _legible(texts, special, tokens, words)

    every = list(range(len(texts)))
    if fits(every):
        return every
    chosen: list[int] = []
    for w in order:
        trial = sorted(set(chosen) | set(words.words[w].pieces))
        if not chosen or fits(trial):
            chosen = trial
    return chosen


def drawn_windows(view, grid: bool = False) -> tuple[list[int], list[int]]:
    """(source, target) token positions the rows draw (``grid``: the grids' axes): all
    where they fit; for a long source its heaviest words for the followed head, each
    head's heaviest, then the rest by weight; for a long target the focus word, then its
    neighbours nearest first."""
    ranked = view.ranked_words()
    heaviest = [int(np.argmax(view.word_weights(h))) for h in range(view.num_heads)]
    source = _window(view.source_words, in_their_words(view.source, view.source_words),
                     list(view.source_special),
                     ranked[:WRITTEN] + heaviest + ranked[WRITTEN:], grid)
    words = view.target_words
    own = words.index_of(view.focus[0])
    near = sorted(range(len(words)), key=lambda w: (abs(w - own), w))
    return source, _window(words, in_their_words(view.target, words),
                           list(view.target_special), near, grid)


def mark_focus(row: TokenRow, focus) -> None:
    """The focus word's chips in the query colour: a piece's own box, or, for a word drawn
    whole (its pieces shaped together), the outline round the whole word."""
    pal = style.PALETTE
    for j in focus:
        chip = row.chip(j)
        if chip is None:
            continue
        if not chip.shaped:
            chip.set_role_color(pal.query)
            continue
        for part in chip.submobjects:
            if isinstance(part, RoundedRectangle) and part is not chip.box:
                part.set_stroke(pal.query, opacity=1.0)


def rows_box(grid: AttentionGrid, rows) -> VGroup:
    """A box round a run of rows' cells (the pieces of the focus word), their labels in the
    box's colour: a box round the labels too would cross the labels of the rows beside
    them where they stand in tiers."""
    cells = VGroup(*[grid.row_rect(r) for r in rows])
    box = Rectangle(width=cells.width + 0.1, height=cells.height + 0.06).move_to(cells)
    for r in rows:
        grid.row_labels[r].set_color(style.PALETTE.query)
    return VGroup(box.set_stroke(style.PALETTE.highlight, width=3))


def spark_trail(spark) -> VMobject:
    """The arc a spark travelled, as one stroke as bold as its weight."""
    points = [segment.get_start() for segment in spark.halo] + [spark.halo[-1].get_end()]
    return VMobject(stroke_width=1 + 5 * spark.strength, stroke_color=style.PALETTE.key,
                    stroke_opacity=0.25 + 0.75 * spark.strength).set_points_smoothly(points)


def spread_numbers(numbers) -> None:
    """Written weights side by side never touch: a later one steps up a line."""
    placed = []
    for n in sorted(numbers, key=lambda m: m.get_x()):
        while any(abs(n.get_x() - p.get_x()) < (n.width + p.width) / 2 + 0.08
                  and abs(n.get_y() - p.get_y()) < n.height + 0.05 for p in placed):
            n.shift(UP * (n.height + 0.08))
        placed.append(n)


def centred_lines(text: str, width: float, colour: str) -> VGroup:
    """Our wording wrapped to ``width``, each line centred under the one before."""
    lines = VGroup(*[label_text(line, style.FONT_SMALL, colour)
                     for line in wrapped(text, width, style.FONT_SMALL).split("\n")])
    return lines.arrange(DOWN, buff=0.1)


def side_lines(text: str, colour: str) -> list:
    return [[(line, colour)] for line in wrapped(text, SIDE_WIDTH, style.FONT_SMALL).split("\n")]


def _flowed(lines, font_size: float) -> list:
    """Each line of parts as drawn, broken between its parts where it is wider than the
    stage's right column (a long quoted word goes to a line of its own)."""
    drawn = []
    for parts in lines:
        current: list = []
        for part in parts:
            if current and line_of(current + [part], font_size).width > SIDE_ROOM:
                drawn.append(line_of(current, font_size))
                current = [(part[0].lstrip(), part[1])]
            else:
                current.append(part)
        drawn.append(line_of(current, font_size))
    return drawn


def side_text(lines, font_size: float = style.FONT_SMALL) -> VGroup:
    """Lines of words (``line_of``'s parts each) left-aligned in the stage's right column."""
    group = VGroup(*_flowed(lines, font_size))
    group.arrange(DOWN, aligned_edge=LEFT, buff=0.14)
    return group.move_to([SIDE_X + group.width / 2, SIDE_TOP - group.height / 2, 0])
