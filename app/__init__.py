"""The application: each capability of the program written once, as a typed request
checked whole before any work and a function that does it and returns values (paths,
facts, the trace), never printed text. The command line, the Python API and the course are
its faces: they build requests and show results; nothing here imports them or click."""
