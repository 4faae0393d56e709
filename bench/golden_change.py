"""Render the golden key frames with one deliberate, genuine change to the drawing (for
bench_goldens.py): ``python bench/golden_change.py CHANGE frames ARGS...``.

Each change is the smallest of its kind a reviewer must never miss: a colour role swapped,
a word changed by one letter, one digit of one shown number, a label 1 px to the right,
the dots 5 % larger.
"""
from __future__ import annotations

import sys


def swap_query_and_key() -> None:
    from dataclasses import replace

    from attention_explainer.scenes.vocabulary import style
    for name, palette in list(style.PALETTES.items()):
        style.PALETTES[name] = replace(palette, query=palette.key, key=palette.query)
    style.set_theme("3b1b")


def _patch_text(old: str, new: str) -> None:
    from attention_explainer.scenes.vocabulary import text

    made = text._made

    def changed(kind, value, kwargs):
        return made(kind, value.replace(old, new) if isinstance(value, str) else value, kwargs)

    text._made = changed


def _patch_camera(change) -> None:
    from attention_explainer.scenes.pipeline import capture

    steady = capture.SteadyCamera.transform_points_pre_display

    def transformed(self, mobject, points):
        return change(mobject, steady(self, mobject, points), self)

    capture.SteadyCamera.transform_points_pre_display = transformed


def label_moved_one_pixel() -> None:
    def move(mobject, points, camera):
        if getattr(mobject, "original_text", None) == "cat":
            return points + [camera.frame_width / camera.pixel_width, 0, 0]
        return points
    # the glyphs of a Text are its submobjects: tag them with their word first
    from attention_explainer.scenes.vocabulary import text
    made = text._made

    def tagged(kind, value, kwargs):
        mob = made(kind, value, kwargs)
        if value == "cat":
            for part in mob.get_family():
                part.original_text = "cat"
        return mob

    text._made = tagged
    _patch_camera(move)


def dots_five_percent_larger() -> None:
    from manim import Dot

    def grow(mobject, points, camera):
        if isinstance(mobject, Dot) and len(points):
            centre = points.mean(axis=0)
            return centre + (points - centre) * 1.05
        return points

    _patch_camera(grow)


CHANGES = {
    "colour role swapped": swap_query_and_key,
    "a word changed": lambda: _patch_text("numbers", "numbens"),
    "one digit": lambda: _patch_text("0.37", "0.38"),
    "label moved 1 px": label_moved_one_pixel,
    "dots 5 % larger": dots_five_percent_larger,
}

if __name__ == "__main__":
    CHANGES[sys.argv[1]]()
    from attention_explainer.cli import main
    sys.argv = ["attention-explainer", *sys.argv[2:]]
    main()
