"""The film: the beats of the explainer played as one continuous scene.

- ``beat``: the beat protocol (:class:`~beat.Beat`, the :class:`~beat.Stage` it hands on
  by :class:`~beat.Role`, ``morph``); ``scene``: the :class:`~scene.FilmScene` that plays
  the beats and does their bookkeeping once
- ``registry``: the one ordered list of beats (``facts.BEATS``), parsing ``--beats`` and
  loading each beat's class
- ``beats/``: the beats' scripts, one module per beat
- ``views``: which tokens are drawn, the token strip, the 2-D views, the sentence's grid
  and the project beat's panels (trace-aware layout shared by several beats)
- ``readouts``: every number drawn, read from the trace and recorded
- ``audits``: the checks the scene runs on itself while drawing (legible texts, no glyph
  morphs); ``captions``: the captions' timing

Imports the vocabulary, never the render pipeline. Importing this package imports no
manim: the registry is read by ``--help``.
"""

__all__: list[str] = []
