"""Our changes to manim's classes (a faster copy, bounds, colours and path breaks, and two
fixes) are in place only while our scenes draw (issue 59): a notebook user's own manim
scene draws the same frames before and after one of our films in the same process, and
manim's classes are as it ships them afterwards. A LaggedStart of FadeTransforms shows it:
our fix draws a waiting part at progress 0, manim's draws its target whole."""
from __future__ import annotations

from manim import (DOWN, RIGHT, UP, Circle, FadeTransform, LaggedStart, Mobject, Scene, Square,
                   Triangle, VMobject, tempconfig)

from tests.conftest import synthetic_trace
from tests.test_beats import render_tiny


class Plain(Scene):
    def construct(self):
        a, b = Square().shift(UP), Triangle().shift(DOWN)
        self.add(a, b)
        self.play(LaggedStart(FadeTransform(a, Circle().shift(RIGHT * 2)),
                              FadeTransform(b, Square().shift(RIGHT * 3)), lag_ratio=0.9),
                  run_time=1)
        self.play(b.animate.rotate(0.5), run_time=0.4)


def frames(folder) -> list[bytes]:
    """Every frame the plain scene draws, as bytes."""
    drawn = []
    with tempconfig({"pixel_height": 90, "pixel_width": 160, "frame_rate": 10,
                     "format": "none", "disable_caching": True, "media_dir": str(folder),
                     "progress_bar": "none", "verbosity": "ERROR"}):
        scene = Plain()
        add = scene.renderer.add_frame

        def kept(frame, num_frames=1):
            drawn.append(frame.tobytes())
            return add(frame, num_frames)
        scene.renderer.add_frame = kept
        scene.render()
    return drawn


def test_a_users_own_scene_draws_the_same_before_and_after_a_film(tmp_path, monkeypatch):
    manims = {name: getattr(owner, name) for owner, name in
              ((Mobject, "copy"), (Mobject, "get_family"), (Mobject, "rotate"),
               (VMobject, "generate_rgbas_array"), (FadeTransform, "begin"),
               (Scene, "get_restructured_mobject_list"))}
    before = frames(tmp_path / "before")
    assert len(before) > 5
    render_tiny(["softmax"], synthetic_trace(), tmp_path / "film")
    # ... and after `ae.render` drawing in this very process (one job: no worker process)
    import attention_explainer as ae

    monkeypatch.setenv("ATTENTION_EXPLAINER_JOBS", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))   # every beat drawn here
    ae.render("The cat ate the fish", tmp_path / "film.mp4", resolution="64x36", fps=2,
              beats="title,softmax")
    for name, function in manims.items():
        owner = next(o for o in (Mobject, VMobject, FadeTransform, Scene) if hasattr(o, name))
        assert getattr(owner, name) is function, name
    assert frames(tmp_path / "after") == before
