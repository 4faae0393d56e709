"""The heads experiment's chart: validation accuracy (the seeds' mean, their range as an
error bar, the majority-class baseline dashed), peak memory and time per epoch against the
number of heads, and the seeds' expectations with what was measured — drawn with Cairo's
own SVG and PNG surfaces from results.json alone."""
from __future__ import annotations

from pathlib import Path

__all__ = ["write_chart"]

WIDTH, HEIGHT = 1800, 1000
FONT = "DejaVu Sans"
PANEL_W, PANEL_H, TOP = 440, 410, 190
BAR = (0.30, 0.55, 0.85)
INK, SOFT, GRID = (0.1, 0.1, 0.1), (0.35, 0.35, 0.35), (0.86, 0.86, 0.86)
BASELINE = (0.75, 0.2, 0.15)
VERDICT = {"holds": (0.15, 0.55, 0.25), "contradicted": (0.75, 0.20, 0.15),
           "fails": (0.75, 0.20, 0.15),
           "not shown": (0.45, 0.45, 0.45)}


def _text(ctx, x, y, text, size, colour=INK, anchor="left", bold=False):
    import cairo

    ctx.select_font_face(FONT, cairo.FONT_SLANT_NORMAL,
                         cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL)
    ctx.set_font_size(size)
    width = ctx.text_extents(text).x_advance
    ctx.set_source_rgb(*colour)
    ctx.move_to(x - {"left": 0, "centre": width / 2, "right": width}[anchor], y)
    ctx.show_text(text)


def _panel(ctx, x0, title, rows, values, *, axis, label, spans=None, line=None):
    """``values`` (one per row) on a vertical axis from ``axis[0]`` to ``axis[1]``: bars
    from zero where the axis starts at zero, else points with the seeds' range (``spans``)
    and tick marks, so that a cut axis is never read as bar lengths."""
    low_end, high_end = axis
    bars = low_end == 0
    _text(ctx, x0, TOP - 40, title, 26, bold=True)
    bottom = TOP + PANEL_H
    slot = PANEL_W / len(rows)

    def y_of(v):
        return bottom - (v - low_end) / (high_end - low_end) * PANEL_H

    ctx.set_line_width(2)
    ctx.set_source_rgb(*SOFT)
    ctx.move_to(x0, bottom)
    ctx.line_to(x0 + PANEL_W, bottom)
    ctx.stroke()
    if not bars:                       # ticks, with grid lines: 3 to 8 of them
        step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2) if (high_end - low_end) / s <= 8)
        tick = step * (int(low_end / step) + 1)
        while tick < high_end:
            ctx.set_source_rgb(*GRID)
            ctx.move_to(x0, y_of(tick))
            ctx.line_to(x0 + PANEL_W, y_of(tick))
            ctx.stroke()
            _text(ctx, x0 - 8, y_of(tick) + 7, f"{100 * tick:.0f} %", 18, SOFT, anchor="right")
            tick += step
    if line is not None:               # the majority-class baseline, dashed
        ctx.set_source_rgb(*BASELINE)
        ctx.set_dash([10, 8])
        ctx.move_to(x0, y_of(line))
        ctx.line_to(x0 + PANEL_W, y_of(line))
        ctx.stroke()
        ctx.set_dash([])
    for n, (row, value) in enumerate(zip(rows, values)):
        cx = x0 + slot * (n + 0.5)
        ctx.set_source_rgb(*BAR)
        if bars:
            ctx.rectangle(cx - slot * 0.3, y_of(value), slot * 0.6, bottom - y_of(value))
            ctx.fill()
        else:
            ctx.arc(cx, y_of(value), 9, 0, 6.2832)
            ctx.fill()
        top_y = y_of(value) - (12 if bars else 18)
        if spans:                      # the seeds' range
            low, high = spans[n]
            ctx.set_source_rgb(*INK)
            ctx.set_line_width(3)
            for a, b in (((cx, y_of(low)), (cx, y_of(high))),
                         ((cx - 12, y_of(low)), (cx + 12, y_of(low))),
                         ((cx - 12, y_of(high)), (cx + 12, y_of(high)))):
                ctx.move_to(*a)
                ctx.line_to(*b)
                ctx.stroke()
            top_y = min(top_y, y_of(high) - 12)
        if line is not None and abs(top_y - 8 - y_of(line)) < 16:    # off the dashed line
            top_y = y_of(line) - 10
        _text(ctx, cx, top_y, label(value), 22, anchor="centre")
        _text(ctx, cx, bottom + 32, f"{row['heads']}", 24, anchor="centre", bold=True)
        _text(ctx, cx, bottom + 60, f"d_k {row['d_head']}", 20, SOFT, anchor="centre")
    _text(ctx, x0 + PANEL_W / 2, bottom + 92, "heads", 22, SOFT, anchor="centre")


def _draw(ctx, results: dict) -> None:
    ctx.set_source_rgb(1, 1, 1)
    ctx.paint()
    rows, setup, data = results["rows"], results["setup"], results["data"]
    _text(ctx, 60, 62, f"Heads at d_model {setup['d_model']}: {data['name']}", 34, bold=True)
    seeds = setup["seeds"]
    _text(ctx, 60, 104, f"{data['training']:,} training and {data['validation']:,} validation "
                        f"examples; {setup['layers']} layer{'s' * (setup['layers'] > 1)}, "
                        f"{setup['epochs']} epoch{'s' * (setup['epochs'] > 1)}, "
                        f"{len(seeds)} seed{'s' * (len(seeds) > 1)} "
                        f"({', '.join(map(str, seeds))}); {results['machine']['device']}, "
                        f"torch {results['machine']['torch']}", 22, SOFT)
    baseline = results["majority_baseline"]
    low = min(min(r["accuracy_min"] for r in rows), baseline)
    high = max(max(r["accuracy_max"] for r in rows), baseline)
    pad = max(0.02, (high - low) * 0.25)
    _panel(ctx, 110, "validation accuracy", rows, [r["accuracy_mean"] for r in rows],
           axis=(max(0.0, low - pad), min(1.0, high + pad) + 0.001),
           label=lambda v: f"{100 * v:.1f} %",
           spans=[(r["accuracy_min"], r["accuracy_max"]) for r in rows] if len(seeds) > 1 else None,
           line=baseline)
    spread = "; bars: the seeds' range" if len(seeds) > 1 else ""
    _text(ctx, 110, TOP - 10, f"dashed: the majority class, {100 * baseline:.1f} %{spread}",
          19, BASELINE)
    peaks = [r["peak_bytes"] / 2 ** 20 for r in rows]
    _panel(ctx, 690, "peak memory, forward + backward (MiB)", rows, peaks, axis=(0, max(peaks) * 1.18),
           label=lambda v: f"{v:.0f}")
    times = [r["epoch_seconds_mean"] for r in rows]
    _panel(ctx, 1270, "seconds per epoch (bars: the range)", rows, times,
           axis=(0, max(r["epoch_seconds_max"] for r in rows) * 1.18),
           label=lambda v: f"{v:.1f}" if v >= 1 else f"{v:.2f}",
           spans=[(r["epoch_seconds_min"], r["epoch_seconds_max"]) for r in rows])
    y = TOP + PANEL_H + 150
    for said in results["expectations"]:
        _text(ctx, 60, y, f"{said['verdict']}", 21, VERDICT[said["verdict"]], bold=True)
        _text(ctx, 230, y, f"{said['source']}: {said['claim']}", 21)
        _text(ctx, 230, y + 26, said["measured"], 18, SOFT)
        y += 60


def write_chart(results: dict, png: Path, svg: Path) -> None:
    """The chart as a PNG and an SVG (the same drawing on both surfaces)."""
    import cairo

    with cairo.SVGSurface(str(svg), WIDTH, HEIGHT) as surface:
        _draw(cairo.Context(surface), results)
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, WIDTH, HEIGHT)
    _draw(cairo.Context(surface), results)
    surface.write_to_png(str(png))
