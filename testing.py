"""A pytest helper for lecture repos: assert that a beat still matches a golden PNG.

    from attention_explainer.testing import assert_frame_matches

    def test_pull_beat_is_unchanged():
        assert_frame_matches("golden/pull-key.png", beat="pull", at="key",
                             sentence="The cat ate the fish")

The helper is the command line's ``frames``: it takes the options ``frames`` takes (theme,
fps, max_tokens, trace, and the model's: model, focus, layer, heads, mask, ...), and what
is not given comes from where the command line takes it — ATTENTION_EXPLAINER_* variables,
then the settings file (attention-explainer.toml, or [tool.attention-explainer] in
pyproject.toml), then the built-in default. The settings file is the one ``settings=PATH``
names, else the nearest in the golden's own folder or above it (as pytest finds its
config), so a check does not depend on where pytest runs; a failure names it. So goldens
written by ``frames`` in a lecture repo check here unchanged, whatever its settings say.

The still is rendered at the golden PNG's own size from the renderer's raw frames. On a
change the fresh frame and a diff image are written into a folder beside the golden one
(``golden/NAME.png`` -> ``golden-changed/NAME.fresh.png`` and ``NAME.diff.png``; or into
``failures``, e.g. pytest's ``tmp_path``), never into the golden folder, and the assertion
says how much changed and where the pictures are.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["assert_frame_matches", "frames_options", "render_still", "trace_for_drawing"]

# the frames command's options that decide a still, by the helper's names (the command's
# own, but "trace" for --trace); their flags are read from the command itself
OPTIONS = ("trace", "theme", "fps", "max_tokens", "model", "focus", "layer", "heads", "mask",
           "device", "dtype", "num_heads", "d_model", "seed")


def frames_options(sentence: str | None = None, *, settings=None, near=None,
                   **given) -> dict:
    """The ``frames`` command's options as the command line resolves them: ``given`` (by
    the names of :data:`OPTIONS`), else the environment, else the settings file, else the
    default. The settings file: ``settings`` (a path), else the nearest in ``near`` or a
    folder above it, else the working folder's. Its name is the result's "settings".
    Raises InputError for what ``frames`` refuses."""
    import click

    from .app.settings_file import find_config_upward, read_config
    from .attention_core.errors import InputError
    from .cli import cli
    from .commands.settings import commands_of, default_map, find_config

    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise InputError(f"{unknown[0]!r} is not an option of the helper; its options are "
                         f"{', '.join(OPTIONS)}.")
    command = commands_of(cli)["frames"]
    flags = {("trace" if p.name == "trace_path" else p.name): max(p.opts, key=len)
             for p in command.params if isinstance(p, click.Option)}
    config = (read_config(Path(settings)) if settings is not None
              else find_config_upward(Path(near)) if near is not None else find_config())
    defaults = default_map(cli, config).get("frames", {})
    argv = [str(part) for name, value in given.items() if value is not None
            for part in (flags[name], value)]
    argv += ["--", sentence] if sentence is not None else []
    try:
        ctx = command.make_context("frames", argv, default_map=defaults, obj=config)
    except click.ClickException as exc:
        raise InputError(exc.format_message()) from None
    return {**ctx.params, "sentence_given": sentence is not None,
            "trace_given": given.get("trace") is not None, "settings": config.label}


def trace_for_drawing(*, sentence: str | None = None, trace=None, **options):
    """The trace a still is drawn from, as ``frames`` finds it: ``trace`` (an
    AttentionTrace or a saved .npz), or the model's trace of ``sentence`` (default: the
    README's sentence) with the model options given or set for the folder."""
    from .attention_core.trace import AttentionTrace

    if isinstance(trace, AttentionTrace):
        return trace
    return _trace_of(frames_options(sentence, trace=trace, **options))


def _trace_of(params: dict):
    """The trace ``frames`` draws with these resolved options: the saved one given or set
    for the folder (a sentence given instead wins over the settings' one), else the model's
    of the sentence, checked drawable first."""
    from dataclasses import fields

    from .attention_core.api import trace_for
    from .attention_core.errors import InputError
    from .attention_core.trace import AttentionTrace
    from .app.requests import TraceOptions
    from .app.work import check_drawable, drawable_sentence

    if params["trace_given"] and params["sentence_given"]:
        raise InputError("a sentence cannot be used with a trace: the saved trace already "
                         "fixes its sentence; drop one of them.")
    if params["trace_path"] is not None and not params["sentence_given"]:
        trace = AttentionTrace.load(params["trace_path"])
        check_drawable(trace.num_tokens, params["max_tokens"])
        return trace
    tracing = TraceOptions(**{f.name: params[f.name] for f in fields(TraceOptions)})
    drawable_sentence(params["sentence"], tracing, params["max_tokens"])
    return trace_for(tracing.request(params["sentence"]))


def render_still(*, beat: str, at="key", sentence: str | None = None, trace=None,
                 width: int = 320, height: int = 180, settings=None, near=None, **options):
    """One still (a PIL image) of ``beat`` at ``at`` (seconds, "key" or "end"), drawn as
    ``frames`` draws it (``options``: theme, fps, max_tokens and the model's; ``settings``
    and ``near``: where its settings file is, as :func:`frames_options` takes them)."""
    return _still_and_options(beat=beat, at=at, sentence=sentence, trace=trace, width=width,
                              height=height, settings=settings, near=near, **options)[0]


def _still_and_options(*, beat: str, at, sentence, trace, width: int, height: int,
                       settings, near, **options):
    from .attention_core.trace import AttentionTrace
    from .scenes.pipeline.render import render_stills, still_label
    from .scenes.vocabulary import style

    where = {"settings": settings, "near": near}
    if isinstance(trace, AttentionTrace):
        params = frames_options(sentence, **where, **options)
        drawn = trace
    else:
        params = frames_options(sentence, trace=trace, **where, **options)
        drawn = _trace_of(params)
    before = style.theme_name()
    style.set_theme(params["theme"])
    try:
        stills = render_stills(drawn, beat=beat, times=[at], width=width, height=height,
                               fps=params["fps"])
    finally:
        style.set_theme(before)          # a later drawing in this process keeps its colours
    return stills[still_label(at)], params


def assert_frame_matches(golden_png, *, beat: str, at="key", tolerance: int | None = None,
                         max_share: float | None = None, failures=None, settings=None,
                         **kwargs) -> None:
    """Fail (AssertionError) when the fresh still differs from ``golden_png``: by default
    past the tolerance a new machine needs (``scenes.pipeline.regression.DEFAULT_TOLERANCE``);
    ``tolerance=0`` compares exactly. The settings file is ``settings`` (a path), else the
    nearest in the golden's folder or above it; a failure names it. ``kwargs``:
    ``sentence`` or ``trace``, and the options of :func:`render_still`."""
    from PIL import Image

    from .scenes.pipeline.regression import (DEFAULT_MAX_SHARE, DEFAULT_TOLERANCE, compare,
                                             diff_image)

    tolerance = DEFAULT_TOLERANCE if tolerance is None else tolerance
    max_share = DEFAULT_MAX_SHARE if max_share is None else max_share

    golden_png = Path(golden_png)
    if not golden_png.is_file():
        raise AssertionError(f"no golden frame at {golden_png}; write one with "
                             "`attention-explainer frames --out DIR`")
    with Image.open(golden_png) as golden:
        golden = golden.convert("RGB")
    kwargs.setdefault("sentence", None)
    kwargs.setdefault("trace", None)
    fresh, params = _still_and_options(beat=beat, at=at, width=golden.width,
                                       height=golden.height, settings=settings,
                                       near=golden_png.parent, **kwargs)
    result = compare(golden_png.name, fresh, golden, tolerance=tolerance, max_share=max_share)
    if not result.passed:
        pictures = [("fresh", fresh)] + ([] if result.reason
                                         else [("diff", diff_image(fresh, golden))])
        where = _keep_failure(golden_png, failures, pictures)
        raise AssertionError(result.line() + f" (settings: {params['settings']})"
                             + (f"; see {where}" if where else ""))


def _keep_failure(golden_png: Path, failures, pictures) -> Path | None:
    """Write the failure's pictures into ``failures`` (default: a folder beside the golden
    one, ``<golden>-changed``), never into the golden folder and never through a link;
    the folder, or None when nowhere safe was found."""
    folder = Path(failures) if failures is not None else \
        golden_png.parent.with_name(golden_png.parent.name + "-changed")
    if folder.is_symlink() or folder.resolve() == golden_png.parent.resolve():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    for kind, image in pictures:
        path = folder / f"{golden_png.stem}.{kind}.png"
        if path.is_symlink():
            path.unlink()
        image.save(path)
    return folder
