"""Contact sheets of the film in motion (docs/film-*.png): for every beat three frames
inside it (a quarter, half and three quarters of the way through) and its key frame, for
the sentences the film is judged on (issue 20's acceptance: the default, a relative
clause, Chinese, French in word pieces, two pronouns), to see at a glance what each beat
looks like mid-way and where it rests.

    .venv/bin/python docs/make_film_sheets.py            # all of them (several minutes)
    .venv/bin/python docs/make_film_sheets.py default    # one of them
"""
from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = {       # name: (sentence, options)
    "default": ("The cat ate the fish", {}),
    "chef": ("The chef who trained in Paris cooked a wonderful meal for the guests",
             {"focus": "cooked"}),
    "chinese": ("小猫吃了一条鱼", {}),
    "french": ("Le chat a mangé le poisson", {}),
    "lawyer": ("The lawyer questioned the witness because she was lying", {"focus": "she"}),
    "animal": ("The animal didn't cross the street because it was too tired",   # 15 tokens
               {"focus": "it"}),
}
SHARES = (0.25, 0.5, 0.75)    # and the key frame
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
    sentence, options = SENTENCES[name]
    trace = compute_trace(sentence, **options)
    frames = []
    for beat, (start, end) in beat_times(trace).items():
        length = end - start
        times = [round(share * length, 1) for share in SHARES] + ["key"]
        stills = render_stills(trace, beat=beat, times=times, width=SIZE[0], height=SIZE[1],
                               fps=10)
        for t, image in zip(times, stills.values()):
            when = "key frame" if t == "key" else f"{t:.1f} s of {length:.1f}"
            frames.append((f"{entry(beat).title} · {when}",
                           Image.fromarray(image) if not isinstance(image, Image.Image)
                           else image))
    path = ROOT / "docs" / f"film-{name}.png"
    contact_sheet(frames, columns=len(SHARES) + 1, thumb_width=SIZE[0]).save(path,
                                                                          optimize=True)
    return path


def main(names: list[str]) -> None:
    for name in names or list(SENTENCES):
        print(sheet_for(name))


if __name__ == "__main__":
    main(sys.argv[1:])
