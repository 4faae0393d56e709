"""The attention cost chart (bench/attention_cost.py): time and peak memory against the
sentence's length, log-log, one line per variant with its fitted slope, drawn with Cairo's
own SVG and PNG surfaces."""
from __future__ import annotations

import math
from pathlib import Path

__all__ = ["write_chart"]

WIDTH, HEIGHT = 1600, 860
PANEL_W, PANEL_H = 600, 480
LEFT, TOP = 120, 110
COLOURS = {"full": (0.86, 0.30, 0.26), "fused": (0.95, 0.60, 0.25),
           "window": (0.25, 0.55, 0.90), "global_window": (0.35, 0.75, 0.85),
           "topk": (0.60, 0.45, 0.85), "linformer": (0.30, 0.70, 0.40)}
FONT = "DejaVu Sans"


def _draw(ctx, report: dict, labels: dict) -> None:
    import cairo

    ctx.set_source_rgb(1, 1, 1)
    ctx.paint()
    ctx.select_font_face(FONT, cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_NORMAL)
    ctx.set_source_rgb(0.1, 0.1, 0.1)
    ctx.set_font_size(26)
    ctx.move_to(LEFT, 50)
    ctx.show_text(f"One attention layer (d_model {report['d_model']}, {report['heads']} heads) "
                  f"on {report['device']}: cost against the sentence's length")
    panels = [("seconds", "time (s)", "time_slopes", LEFT),
              ("peak_bytes", "peak memory (MiB)", "memory_slopes", LEFT + PANEL_W + 150)]
    for key, title, slopes, x0 in panels:
        _panel(ctx, report, labels, key, title, report[slopes], x0)


def _panel(ctx, report, labels, key, title, slopes, x0) -> None:
    rows = report["rows"]
    scale = 1 / 2 ** 20 if key == "peak_bytes" else 1.0
    points = {v: [(int(T), r[key] * scale) for T, r in sorted(by.items(), key=lambda t: int(t[0]))
                  if r[key] > 0] for v, by in rows.items()}
    xs = [T for p in points.values() for T, _ in p]
    ys = [y for p in points.values() for _, y in p]
    lx0, lx1 = math.log10(min(xs)), math.log10(max(xs))
    ly0, ly1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))

    def at(T, y):
        return (x0 + (math.log10(T) - lx0) / (lx1 - lx0) * PANEL_W,
                TOP + PANEL_H - (math.log10(y) - ly0) / (ly1 - ly0) * PANEL_H)

    ctx.set_line_width(1)
    ctx.set_font_size(18)
    for e in range(ly0, ly1 + 1):              # the decades, with their grid lines
        _, y = at(10 ** lx0, 10 ** e)
        ctx.set_source_rgb(0.88, 0.88, 0.88)
        ctx.move_to(x0, y)
        ctx.line_to(x0 + PANEL_W, y)
        ctx.stroke()
        ctx.set_source_rgb(0.3, 0.3, 0.3)
        ctx.move_to(x0 - 70, y + 6)
        ctx.show_text(f"1e{e}")
    for T in sorted(set(xs)):
        x, _ = at(T, 10 ** ly0)
        ctx.move_to(x - 18, TOP + PANEL_H + 26)
        ctx.show_text(f"{T}")
    ctx.set_source_rgb(0.1, 0.1, 0.1)
    ctx.set_font_size(22)
    ctx.move_to(x0, TOP - 20)
    ctx.show_text(f"{title}, log–log; slope fitted from {report['fit_from']} tokens")
    ctx.move_to(x0 + PANEL_W / 2 - 60, TOP + PANEL_H + 58)
    ctx.show_text("tokens (T)")
    ctx.set_line_width(3)
    for n, (variant, pts) in enumerate(points.items()):
        ctx.set_source_rgb(*COLOURS[variant])
        for m, (T, y) in enumerate(pts):
            (ctx.line_to if m else ctx.move_to)(*at(T, y))
        ctx.stroke()
    ctx.set_font_size(17)
    for n, variant in enumerate(points):          # the legend: a line per variant, its slope
        x, y = x0, TOP + PANEL_H + 92 + n * 26
        ctx.set_source_rgb(*COLOURS[variant])
        ctx.rectangle(x, y - 12, 22, 6)
        ctx.fill()
        ctx.set_source_rgb(0.15, 0.15, 0.15)
        ctx.move_to(x + 30, y - 4)
        ctx.show_text(f"{labels[variant]}: slope {slopes[variant]:.2f}")


def write_chart(report: dict, labels: dict, svg: Path, png: Path) -> None:
    import cairo

    with cairo.SVGSurface(str(svg), WIDTH, HEIGHT) as surface:
        _draw(cairo.Context(surface), report, labels)
    surface = cairo.ImageSurface(cairo.FORMAT_RGB24, WIDTH, HEIGHT)
    _draw(cairo.Context(surface), report, labels)
    surface.write_to_png(str(png))


if __name__ == "__main__":        # the chart again from a run's JSON: cost_chart.py RUN.json
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from attention_cost import LABELS

    run = Path(sys.argv[1])
    write_chart(json.loads(run.read_text()), LABELS, run.with_suffix(".svg"),
                run.with_suffix(".png"))
