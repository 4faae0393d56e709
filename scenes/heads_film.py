"""The heads experiment as a short film, from results.json alone: d_model split into more
and more heads (d_k shrinking), the measured accuracy and memory growing to their values,
then each seed's expectation beside what was measured, with its verdict.

Accuracy is drawn as bars on an axis that starts where the chart's does (labelled, with
its tick marks), memory from zero; every number written is one of results.json's.
"""
from __future__ import annotations

import html
from pathlib import Path

from manim import (DOWN, LEFT, RIGHT, UP, Create, DashedLine, FadeIn, FadeOut, GrowFromEdge,
                   Line, Rectangle, ReplacementTransform, Scene, VGroup, Write)

from .vocabulary import style
from .vocabulary.patches import our_drawing
from .vocabulary.text import label_text, make_markup

__all__ = ["film_scene", "write_film"]

PANEL_W, PANEL_H, PANEL_BOTTOM = 5.2, 1.95, -0.3
# a verdict says itself in words; its colour only sets "not shown" back (no hue: every
# hue of a theme may be a role's)
VERDICT_INKS = {"holds": "ink", "contradicted": "ink", "fails": "ink", "not shown": "dim"}


D_K, D_MODEL = "d<sub>k</sub>", "d<sub>model</sub>"


def _markup(markup: str, font_size: float, color: str | None = None):
    """Our own wording with subscripts (d_k, d_model), in the film's serif."""
    return make_markup(markup, font=style.SERIF, font_size=font_size,
                       color=color or style.PALETTE.text)


def _axis_range(results: dict) -> tuple[float, float]:
    """The accuracy axis: from a little below the lowest value (or the baseline) to a
    little above the highest, in whole 5-point steps."""
    rows, base = results["rows"], results["majority_baseline"]
    low = min(min(r["accuracy_min"] for r in rows), base)
    high = max(max(r["accuracy_max"] for r in rows), base)
    return max(0.0, int(low * 20) / 20), min(1.0, (int(high * 20) + 1) / 20)


def _strip(d_model: int, heads: int, d_head: int, width: float):
    """d_model as a strip cut into ``heads`` pieces of d_k each."""
    pal = style.PALETTE
    piece = width * d_head / d_model
    cells = VGroup(*[Rectangle(width=piece, height=0.5, stroke_width=1.5, stroke_color=pal.background,
                               fill_color=pal.head(n), fill_opacity=0.9).shift(RIGHT * piece * n)
                     for n in range(heads)])
    cells.move_to(UP * 0.8)
    word = "head" if heads == 1 else "heads"
    caption = _markup(f"{heads} {word} × {D_K} {d_head} = {heads * d_head}",
                      style.FONT_BODY).next_to(cells, DOWN, buff=0.3)
    return VGroup(cells, caption)


def _panel(rows, values, left: float, title: str, label, axis, colour, *, spans=None,
           line=None):
    """Bars growing from the panel's floor, each value written above it (and above the
    seeds' range, ``spans``, and the dashed ``line``, where they are higher), the head
    counts and the word "heads" below; returns (frame, bars, labels)."""
    low, high = axis
    slot = PANEL_W / len(rows)

    def y_of(v):
        return PANEL_BOTTOM + max(0.02, (v - low) / (high - low) * PANEL_H)

    floor = Line([left, PANEL_BOTTOM, 0], [left + PANEL_W, PANEL_BOTTOM, 0],
                 color=style.PALETTE.soft, stroke_width=2)
    heading = label_text(title, font_size=style.FONT_LABEL).move_to(
        [left + PANEL_W / 2, PANEL_BOTTOM + PANEL_H + 0.45, 0])
    if heading.width > PANEL_W + 0.6:
        heading.scale_to_fit_width(PANEL_W + 0.6)
    bars, numbers, names = VGroup(), VGroup(), VGroup()
    for n, (row, value) in enumerate(zip(rows, values)):
        x = left + slot * (n + 0.5)
        bar = Rectangle(width=slot * 0.55, height=y_of(value) - PANEL_BOTTOM, stroke_width=0,
                        fill_color=colour, fill_opacity=0.9)
        bar.move_to([x, (y_of(value) + PANEL_BOTTOM) / 2, 0])
        top = y_of(value)
        if spans:                      # the seeds' range, with its caps
            a, b = y_of(spans[n][0]), y_of(spans[n][1])
            bar.add(*[Line([x + dx0, y0, 0], [x + dx1, y1, 0], color=style.PALETTE.ink,
                           stroke_width=3)
                      for dx0, y0, dx1, y1 in ((0, a, 0, b), (-0.1, a, 0.1, a), (-0.1, b, 0.1, b))])
            top = max(top, b)
        if line is not None and abs(y_of(line) - top) < 0.3:
            top = max(top, y_of(line))
        bars.add(bar)
        numbers.add(label_text(label(value), font_size=style.FONT_SMALL).move_to(
            [x, top + 0.27, 0]))
        names.add(label_text(f"{row['heads']}", font_size=style.FONT_LABEL).move_to(
            [x, PANEL_BOTTOM - 0.35, 0]))
    word = label_text("heads", font_size=style.FONT_SMALL, color=style.PALETTE.soft)
    word.move_to([left + PANEL_W / 2, PANEL_BOTTOM - 0.78, 0])
    return VGroup(floor, heading, names, word), bars, numbers


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _verdict_lines(results: dict):
    """Each expectation in a line, its verdict first; the run's own check only where it
    fails (a run that learned nothing says so before anything else is read)."""
    pal = style.PALETTE
    lines = VGroup()
    for said in results["expectations"]:       # one markup: one baseline per line
        if said["source"] == "this run" and said["holds"]:
            continue
        claim = said["claim"].split(" (")[0]
        source = said["source"].replace("seed article", "article")
        text = html.escape(f"{claim} ({source})").replace("d_k", D_K)
        ink = getattr(pal, VERDICT_INKS[said["verdict"]])
        lines.add(_markup(f'<span foreground="{ink}"><b>{said["verdict"]}</b></span>'
                          f'  ·  {text}', style.FONT_SMALL))
    lines.arrange(DOWN, aligned_edge=LEFT, buff=0.16)
    if lines.width > 12.6:
        lines.scale_to_fit_width(12.6)
    return lines.to_edge(LEFT, buff=0.6).to_edge(DOWN, buff=0.4)


def _panels(results: dict):
    """The accuracy panel (its axis cut where the chart cuts it, said in its title; the
    majority class dashed; the seeds' ranges) and the memory panel (from zero)."""
    pal = style.PALETTE
    rows = results["rows"]
    axis, base = _axis_range(results), results["majority_baseline"]
    several = rows[0]["repeats"] > 1
    acc = _panel(rows, [r["accuracy_mean"] for r in rows], -6.4,
                 f"validation accuracy (axis from {100 * axis[0]:.0f} %)",
                 lambda v: f"{100 * v:.1f} %", axis, pal.soft, line=base,
                 spans=[(r["accuracy_min"], r["accuracy_max"]) for r in rows] if several else None)
    note = label_text(f"dashed: the majority class, {100 * base:.1f} %"
                      + (" · bars: the seeds' range" if several else ""),
                      font_size=style.FONT_SMALL, color=pal.soft)
    note.next_to(acc[0][3], DOWN, 0.12).align_to([-6.4, 0, 0], LEFT)
    base_y = PANEL_BOTTOM + (base - axis[0]) / (axis[1] - axis[0]) * PANEL_H
    dashed = DashedLine([-6.4, base_y, 0], [-6.4 + PANEL_W, base_y, 0], color=pal.soft,
                        stroke_width=2)
    peaks = [r["peak_bytes"] / 2 ** 20 for r in rows]
    mem = _panel(rows, peaks, 0.9, "memory, forward + backward (MiB)", lambda v: f"{v:.0f}",
                 (0.0, max(peaks) * 1.1), pal.dim)
    return acc, mem, VGroup(note, dashed)


def film_scene(results: dict) -> type:
    """A manim Scene class that draws ``results``."""

    class HeadsSweepFilm(Scene):
        def render(self, *args, **kwargs):
            with our_drawing():          # our changes to manim's classes, for it alone
                return super().render(*args, **kwargs)

        def construct(self):
            pal = style.PALETTE
            rows, setup = results["rows"], results["setup"]
            d_model = setup["d_model"]
            title = _markup(f"How many heads? Measured at {D_MODEL} {d_model}",
                            style.FONT_TITLE).to_edge(UP, buff=0.35)
            sub = label_text(f"{results['data']['name']}: {_plural(setup['epochs'], 'epoch')}, "
                             f"{_plural(len(setup['seeds']), 'seed')} each",
                             font_size=style.FONT_SMALL, color=pal.soft).next_to(title, DOWN, 0.2)
            self.play(Write(title), FadeIn(sub), run_time=style.T_SHORT)
            strip = _strip(d_model, rows[0]["heads"], rows[0]["d_head"], 9.0)
            self.play(FadeIn(strip), run_time=style.T_STEP)
            for row in rows[1:]:          # d_k shrinks as the heads grow
                nxt = _strip(d_model, row["heads"], row["d_head"], 9.0)
                # the cells split; the caption is read, not morphed: it fades across
                self.play(ReplacementTransform(strip[0], nxt[0]), FadeOut(strip[1]),
                          FadeIn(nxt[1]), run_time=style.T_STEP)
                self.wait(style.T_PAUSE / 2)
                strip = nxt
            self.play(FadeOut(strip), run_time=style.T_QUICK)
            (acc_frame, acc_bars, acc_numbers), (mem_frame, mem_bars, mem_numbers), \
                (note, dashed) = _panels(results)
            self.play(FadeIn(acc_frame), FadeIn(mem_frame), FadeIn(note), Create(dashed),
                      run_time=style.T_STEP)
            self.play(*[GrowFromEdge(b, DOWN) for b in (*acc_bars, *mem_bars)],
                      run_time=style.T_BUILD)
            self.play(FadeIn(acc_numbers), FadeIn(mem_numbers), run_time=style.T_QUICK)
            self.wait(style.T_PAUSE)
            for line in _verdict_lines(results):
                self.play(FadeIn(line, shift=UP * 0.1), run_time=style.T_QUICK)
            self.wait(style.T_LAST_HOLD)

    return HeadsSweepFilm


def write_film(results: dict, target: Path, *, width: int, height: int, fps: int,
               scratch: Path) -> None:
    """Render the film to ``target`` (an MP4), its media in ``scratch``."""
    from .pipeline.capture import render_alone

    render_alone(lambda renderer: film_scene(results)(renderer=renderer), target, width=width,
                 height=height, fps=fps, scratch=scratch)
