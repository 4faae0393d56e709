"""Drawing only: an AttentionTrace -> Manim beats -> an MP4. Never runs a model.

Three packages, each importing only the ones before it:

- ``vocabulary/``: the drawable nouns (tokens, vectors, planes, the grid, sparks, bars,
  matrices, the formula, labels), the style, the stage, the fonts
- ``film/``: the beat protocol, the registry of beats, the nine beats' scripts, the views
  and the numbers drawn; the FilmScene that plays them
- ``pipeline/``: a render from plan to files: segments drawn in parallel or taken from the
  beat cache, joined, encoded; stills, contact sheets and golden-frame comparison

``plain_manim`` exposes each beat as a plain-manim Scene (``manim render
scenes/plain_manim.py SparksBeat``).
"""
from .vocabulary import fonts as _fonts

# before anything asks fontconfig for a font: the film reaches only the fonts it names
_fonts.pin()
