"""Contact sheets of the film in motion (docs/film-*.png): three frames inside every beat
(a quarter, half and three quarters of the way through) for the default sentence, a
Chinese one and a 15-token one, to see at a glance what each beat looks like mid-way.

    .venv/bin/python docs/make_film_sheets.py            # all three (a few minutes)
    .venv/bin/python docs/make_film_sheets.py default    # one of them
"""
from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = {
    "default": "The cat ate the fish",
    "chinese": "猫吃了鱼，因为它饿了。",
    "long": "The animal didn't cross the street because it was too tired",   # 15 tokens
}
SHARES = (0.25, 0.5, 0.75)
SIZE = (640, 360)             # each frame is drawn at this size: what a small screen shows


def beat_times(trace) -> dict[str, tuple[float, float]]:
    """(start, end) of every beat of the film, without drawing a frame."""
    from manim import tempconfig

    from attention_explainer.outputs import scratch_folder
    from attention_explainer.scenes.pipeline.capture import make_film, manim_config
    with scratch_folder("sheet-") as scratch, \
            tempconfig(manim_config(*SIZE, 10, fmt="none", media_dir=scratch,
                                    output_file=None)):
        film = make_film(trace, None, stills=True)
        film.renderer.file_writer.expected.add("nothing")
        film.render()
    return dict(film.beat_times)


def sheet_for(name: str) -> Path:
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.scenes.pipeline.regression import contact_sheet
    from attention_explainer.scenes.film.registry import entry
    from attention_explainer.scenes.pipeline.render import render_stills
    trace = compute_trace(SENTENCES[name])
    frames = []
    for beat, (start, end) in beat_times(trace).items():
        length = end - start
        times = [round(share * length, 1) for share in SHARES]
        stills = render_stills(trace, beat=beat, times=times, width=SIZE[0], height=SIZE[1],
                               fps=10)
        for t, image in zip(times, stills.values()):
            frames.append((f"{entry(beat).title} · {t:.1f} s of {length:.1f}",
                           Image.fromarray(image) if not isinstance(image, Image.Image)
                           else image))
    path = ROOT / "docs" / f"film-{name}.png"
    contact_sheet(frames, columns=len(SHARES), thumb_width=SIZE[0]).save(path, optimize=True)
    return path


def main(names: list[str]) -> None:
    for name in names or list(SENTENCES):
        print(sheet_for(name))


if __name__ == "__main__":
    main(sys.argv[1:])
