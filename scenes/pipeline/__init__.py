"""The render pipeline, read in one direction: plan the segments (one per beat), draw them
in worker processes or take them from the beat cache, join them, write the set.

- ``render``: the API (an MP4 and its companions, or stills), calling in order
  ``plan`` (the beats as segment tasks, checked), ``draw`` (the segments drawn in worker
  processes), ``join`` (the film, its chapters, captions and poster from the segments)
- ``segments``: one beat's segment drawn alone or taken from the cache, and its files;
  ``stills``: PNG stills, contact sheets and their check against golden PNGs
- ``capture``: manim's renderer wired to our camera and encoder; ``encoding``: x264
  settings; ``formats``: sizes and frame rates parsed and checked
- ``beat_cache``, ``cache_files``, ``sources``, ``text_store``: the beat cache, its files,
  the hash of the drawing's source that keys it, and the texts it keeps
- ``regression``: golden-frame comparison and contact sheets

Imports the film and the vocabulary; never the command line.
"""
