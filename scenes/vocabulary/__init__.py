"""The drawing vocabulary: the drawable nouns a beat is written in, one family per module,
each knowing nothing of beats or renders.

- ``style``: palette (one colour per role), fonts, sizes, every timing; ``stage``: the
  16:9 stage, its safe edges and the frame size for any pixel size; ``colors``: colour
  ramps; ``fonts``: the fonts the film reaches, and nothing else
- ``text``: our wording and the user's (never markup), words on one baseline;
  ``fastcopy``: exact, cheap copies of built mobjects
- ``tokens``: TokenChip, TokenRow, word rows; ``vectors``: VectorColumn, vector symbols
- ``planes``: Plane2D, LabelledArrow, CarryPlane; ``labels/``: labels that never overlap
- ``grid``: AttentionGrid (rows = queries, columns = keys); ``sparks``: Spark, SparkTravel
- ``bars``: SoftmaxBars; ``matrices``: MatrixVectorSweep; ``formula``: the formula map
- ``headers``: a beat's line and the head/layer names

Imports neither the film nor the render pipeline.
"""
