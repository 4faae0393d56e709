"""The user's files and the locks held while writing them: an output set checked before
any work, written whole or not at all, never through a link. Below the drawing: it imports
nothing of the film, the application or the faces."""
