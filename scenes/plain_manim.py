"""Every beat as a plain-manim Scene, generated from the registry:

    manim render -ql scenes/plain_manim.py SparksBeat

draws the sparks beat alone from $ATTENTION_EXPLAINER_TRACE (a trace saved with
``attention-explainer inspect --npz``), else from the shipped trace of the default sentence.
``Explainer`` draws the default film's beats in one scene. Imported by path (as manim does), so the
package is named by its installed name.
"""
from attention_explainer.scenes.film.scene import FilmScene
from attention_explainer.scenes.film.registry import BEATS, FILM_BEATS


def _scene_for(names: tuple[str, ...], class_name: str) -> type:
    return type(class_name, (FilmScene,), {"default_beats": names, "__module__": __name__})


for _entry in BEATS:
    globals()[_entry.scene_name] = _scene_for((_entry.name,), _entry.scene_name)
Explainer = _scene_for(FILM_BEATS, "Explainer")
