"""Sentences chosen to stress the film's layout (3 to 20 tokens, a relative clause,
pronouns, Chinese, Japanese, accents and word pieces, an apostrophe, numbers, punctuation,
a very long word; minilm and scratch; a causal mask; every head; each theme), and the layout
audit of a whole film of one, drawn on the scene graph without frames."""
from __future__ import annotations

from pathlib import Path

CORPUS = [
    ("The cat ate the fish", {}, "3b1b"),
    ("Hi", {}, "3b1b"),
    ("The chef who trained in Paris cooked a wonderful meal for the guests",
     {"focus": "cooked"}, "3b1b"),
    ("小猫吃了一条鱼", {}, "3b1b"),
    ("猫が魚を食べた", {}, "illustrated"),
    ("Le chat a mangé le poisson", {}, "colorblind"),
    ("Die Straßenbahnhaltestelle liegt gegenüber", {}, "3b1b"),
    ("The lawyer questioned the witness because she was lying", {"focus": "she"}, "3b1b"),
    ("The animal didn't cross the street because it was too tired", {"focus": "it"},
     "3b1b"),
    ("In 1969, 3 astronauts flew 384,400 km to the Moon!", {}, "3b1b"),
    ("Antidisestablishmentarianism is long", {"heads": "all"}, "3b1b"),
    ("We saw her duck", {"mask": "causal"}, "3b1b"),
    ("When the quick brown fox finally jumped over the lazy dog, the whole village cheered",
     {}, "3b1b"),
    ("The dog chased the ball", {"model": "scratch"}, "3b1b"),
]


def audit_film(sentence: str, options: dict, theme: str, folder: Path, beats=None,
               width: int = 1920, height: int = 1080) -> list[tuple]:
    """The layout audit's log of the film of ``sentence`` (every play's middle and end)."""
    from manim import tempconfig

    from attention_explainer.attention_core import compute_trace
    from attention_explainer.scenes.film.scene import FilmScene
    from attention_explainer.scenes.vocabulary import style

    trace = compute_trace(sentence, **options)
    style.set_theme(theme)
    try:
        with tempconfig({"pixel_height": height, "pixel_width": width, "frame_rate": 30,
                         "format": "none", "disable_caching": True,
                         "media_dir": str(folder / "media"), "seed": 0,
                         "output_file": str(folder / "out"), "progress_bar": "none",
                         "verbosity": "ERROR"}):
            scene = FilmScene(trace, beats=beats, skip_animations=True)
            scene.audit = True
            scene.render()
    finally:
        style.set_theme("3b1b")
    return scene.layout_log
