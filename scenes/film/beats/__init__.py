"""The beats' scripts, one module per beat, named as in ``facts.BEATS`` (the registry
loads ``beats.<name>``). A beat imports the vocabulary and the film, never another beat."""

__all__: list[str] = []
