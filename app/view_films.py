"""The films of what a model does beyond one trace — a translation's cross-attention
(``translation``), a decoder writing (``writing``) — drawn on the explainer's film and
pipeline: their outputs checked before the model runs, then the film (or the lecture pack)
of the model's view rendered by ``work.film``, with its captions, chapters, voice,
--length, pack and beat cache."""
from __future__ import annotations

from .requests import FilmResult, ShortFilmRequest

__all__ = ["check_outputs", "film_of"]


def check_outputs(request: ShortFilmRequest, sentence: str, storyboard: str,
                  beats: list[str]) -> None:
    """Refuse outputs that cannot be written (taken, a folder, a symlink...) before the
    model runs: those of the film of ``storyboard``'s ``beats`` (a pack's clips)."""
    from .work import film_outputs

    film_outputs(request.film_request(None, beats), sentence, storyboard=storyboard)
    if request.captions is not None:
        from .captions import read_captions

        read_captions(request.captions)


def film_of(request: ShortFilmRequest, view, *, report=None, progress=None) -> FilmResult:
    """The film (or pack) of ``view``, every beat of its storyboard, as ``request`` asks."""
    from ..scenes.film.registry import film_beats
    from .work import film

    return film(request.film_request(view, film_beats(view)), progress=progress,
                report=report)
