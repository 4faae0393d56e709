"""The render pipeline, read in one direction: plan the segments (one per beat), draw them
in worker processes or take them from the beat cache, join them, write the set.

- ``render``: the MP4 and its companions (plan, draw, join, write); ``stills``: PNG stills
  and contact sheets; ``segments``: one beat's segment drawn, kept, checked and joined
- ``capture``: manim's renderer wired to our camera and encoder; ``encoding``: x264
  settings; ``formats``: sizes and frame rates parsed and checked
- ``beat_cache``, ``cache_files``, ``sources``: the beat cache, its files, and the hash of
  the drawing's source that keys it
- ``regression``: golden-frame comparison and contact sheets

Imports the film and the vocabulary; never the command line.
"""
