"""The drawing vocabulary: the drawable nouns a beat is written in, one family per module,
each knowing nothing of beats, traces or renders.

- ``style``: palette (one colour per role), fonts, sizes, every timing; ``stage``: the
  16:9 stage, its safe edges and the frame size for any pixel size; ``colors``: colour
  arithmetic and ramps; ``fonts``: the fonts the film reaches, and nothing else
- ``text``: our wording and the user's (never markup), words on one baseline, outlines;
  ``fastcopy``: exact, cheap copies of built mobjects
- ``tokens``: TokenChip, TokenRow, word rows; ``vectors``: VectorColumn, VectorRow,
  vector symbols; ``matrices``: WeightMatrix, MatrixVectorProduct
- ``planes``: Plane2D, LabelledArrow, CarryPlane; ``labels/``: labels that never overlap
- ``grid``: AttentionGrid (rows = queries, columns = keys) and the one rule for a grid's
  words (LabelFit); ``head_rows``: HeadRows (one word's weights in several heads)
- ``sparks``: Spark, SparkTravel, the arcs of a query; ``bars``: SoftmaxBars;
  ``formula``: the formula and the formula map; ``headers``: a beat's line and the
  head/layer names

Imports neither the film nor the render pipeline.
"""

__all__: list[str] = []
