"""Drawing only: an AttentionTrace -> Manim beats -> an MP4. Never runs a model.

A vocabulary, one family of drawable nouns per module, and beats that read as short
scripts over it:

- ``style``: palette (one colour per role), fonts, sizes, every timing; ``stage``: the
  16:9 stage, its safe edges and the frame size for any pixel size
- ``text``: our wording and the user's (never markup), words on one baseline
- ``tokens``: TokenChip, TokenRow, word rows; ``vectors``: VectorColumn, vector symbols
- ``planes``: Plane2D, LabelledArrow, CarryPlane; ``labels/``: labels that never overlap
- ``grid``: AttentionGrid (rows = queries, columns = keys); ``sparks``: Spark, SparkTravel
- ``bars``: SoftmaxBars; ``matrices``: MatrixVectorSweep; ``formula``: the formula
- ``headers``: heading and head/layer tag; ``captions``: the .srt's timing
- ``readouts``: every number drawn, read from the trace and recorded (NumberBook)
- ``views``: which tokens are drawn and the 2-D views of a trace's vectors
- ``film``: the Beat protocol and the FilmScene that runs beats; ``registry``: the one
  ordered list of beats; ``beats/``: the nine scripts; ``plain_manim``: each beat as a
  plain-manim Scene
- ``formats``: resolutions and frame rates; ``render``: the MP4 and stills;
  ``regression``: golden-frame comparison and contact sheets
"""
from . import fonts as _fonts

# before anything asks fontconfig for a font: the film reaches only the fonts it names
_fonts.pin()
