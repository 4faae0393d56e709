"""Contact sheets of the film in motion (docs/film-*.png): for every beat three frames
inside it (a quarter, half and three quarters of the way through) and its key frame, for
the sentences the film is judged on (issue 20's acceptance: the default, a relative
clause, Chinese, French in word pieces, two pronouns; issue 34's: German in pieces past the
window, numbers with hyphens, two Japanese; issue 35's: Arabic and Hebrew read from the
right, Japanese under a window; issue 57's: Hindi and Russian), to see at a glance what each beat
looks like mid-way and where it rests.

    .venv/bin/python docs/make_film_sheets.py            # all of them (several minutes)
    .venv/bin/python docs/make_film_sheets.py default    # one of them
    .venv/bin/python docs/make_film_sheets.py teaches    # docs/film-teaches.png alone

docs/film-teaches.png shows what the film teaches with, inside each beat and at its key
frame: the question asked (title), the position vectors (the optional beat, learned and
sines), the update and the answer the film closes on (update, its end).
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
    # unseen by the film's design (issue 34): a window over words in pieces, numbers with
    # hyphens, Japanese with [UNK]s and kana read otherwise, Japanese the model reads
    "german": ("Die Katze sah gestern den warmen Ofen, weil sie müde war und schlafen "
               "wollte.", {}),
    "hyphens": ("Between 1999-2004 the 3-person team shipped 12 well-tested releases", {}),
    "japanese-unk": ("彼は図書館で珍しい本を読んだ", {}),
    "japanese": ("犬が水を飲んだ", {}),
    # issue 35: right to left, joined and read from the right; a Japanese sentence long
    # enough for a window
    "arabic": ("القط الصغير أكل السمكة", {}),
    "hebrew": ("החתול הקטן אכל את הדג", {}),
    "japanese-window": ("私たちは駅の近くの店でラーメンを食べました", {}),
    # issue 57: a lecturer's unseen sentences in Devanagari (vowel signs the normaliser
    # drops, drawn inside their words) and Cyrillic (read letter by letter, in a window)
    "hindi": ("बिल्ली ने मछली खाई क्योंकि वह भूखी थी।", {}),
    "russian": ("Кошка съела рыбу, потому что она была голодна.", {}),
}
SHARES = (0.25, 0.5, 0.75)    # and the key frame
SIZE = (640, 360)             # each frame is drawn at this size: what a small screen shows


def beat_times(trace, beats=None) -> dict[str, tuple[float, float]]:
    """(start, end) of every beat of the film (or of ``beats``), without drawing a frame."""
    from manim import tempconfig

    from attention_explainer.files.outputs import scratch_folder
    from attention_explainer.scenes.pipeline.capture import make_film, manim_config
    with scratch_folder("sheet-") as scratch, \
            tempconfig(manim_config(*SIZE, 10, fmt="none", media_dir=scratch,
                                    output_file=None)):
        film = make_film(trace, beats, stills=True)
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


# (sentence name, model, beat, when): "when" a share of the beat, "key" or "end"
TEACHES = [("lawyer", "minilm", "title", w) for w in (0.3, 0.55, "key")] + \
    [("lawyer", "minilm", "position", w) for w in (0.3, 0.6, "key")] + \
    [("default", "scratch", "position", w) for w in (0.3, 0.6, "key")] + \
    [("lawyer", "minilm", "update", w) for w in (0.4, "key", "end")] + \
    [("animal", "minilm", "update", w) for w in (0.4, "key", "end")]


def teaching_sheet() -> Path:
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.scenes.pipeline.regression import contact_sheet
    from attention_explainer.scenes.pipeline.render import render_stills
    frames = []
    for name, model, beat, when in TEACHES:
        sentence, options = SENTENCES[name]
        trace = compute_trace(sentence, model=model, **options)
        start, end = beat_times(trace, [beat])[beat]
        at = when if isinstance(when, str) else round(when * (end - start), 1)
        image = next(iter(render_stills(trace, beat=beat, times=[at], width=SIZE[0],
                                        height=SIZE[1], fps=10).values()))
        said = {"key": "key frame", "end": "end"}.get(at, f"{at} s") if isinstance(at, str) \
            else f"{at:.1f} s of {end - start:.1f}"
        frames.append((f"{beat} · {name} ({model}) · {said}", image))
    path = ROOT / "docs" / "film-teaches.png"
    contact_sheet(frames, columns=3, thumb_width=SIZE[0]).save(path, optimize=True)
    return path


def main(names: list[str]) -> None:
    for name in names or [*SENTENCES, "teaches"]:
        print(teaching_sheet() if name == "teaches" else sheet_for(name))


if __name__ == "__main__":
    main(sys.argv[1:])
