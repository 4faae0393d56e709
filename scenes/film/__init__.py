"""The film: the beat protocol (``beat``), the one ordered list of beats (``registry``),
the :class:`~scene.FilmScene` that plays them, the beats' scripts (``beats/``), which
tokens are drawn and the 2-D views (``views``), every number drawn (``readouts``), and
the checks and captions the scene keeps while it draws (``audits``, ``captions``).

Imports the vocabulary, never the render pipeline. Importing this package imports no
manim: the registry is read by ``--help``.
"""
