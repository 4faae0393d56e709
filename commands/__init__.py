"""The command line's commands, one module each (``cli.py`` imports one when it runs or is
listed), with the option sets they share (``options``), what else they share (``common``)
and the progress bars on a terminal (``progress``)."""
