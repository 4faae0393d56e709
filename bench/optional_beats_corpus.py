"""The flow and why beats over the whole layout corpus (tests/layout_corpus.py): each
sentence's beat drawn with the layout, legibility and claims audits on, as the suite draws
five (tests/test_flow_beat.py). The flow beat runs on each entry's own model (MiniLM, or
the scratch model, which it refuses: one layer); the why beat, which splits a pre-norm
model's stream, on a tiny random GPT-2 of 12 layers built here (layer 8). A sentence the
model refuses (the scratch model, the tiny model's 64 positions) is counted as refused in
one line, not as a fault. Results go to bench/RESULTS.md.

    python bench/optional_beats_corpus.py
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from results import machine, update_section  # noqa: E402


def audit(beat: str, sentence: str, options: dict, theme: str) -> str:
    """'ok', 'refused: …' or the first faults found."""
    from attention_explainer.attention_core.api import TraceRequest, trace_for
    from attention_explainer.attention_core.errors import InputError
    from attention_explainer.attention_core.flow import with_flow
    from attention_explainer.attention_core.why import with_why
    from attention_explainer.scenes.film.claims import (claim_faults, pieces_named_as_words,
                                                        words_not_written)
    from attention_explainer.scenes.film.scene import FilmScene
    from attention_explainer.scenes.vocabulary import style
    from tests.layout_corpus import audited

    try:
        req = TraceRequest(sentence=sentence, **options)
        trace = (with_flow if beat == "flow" else with_why)(trace_for(req), req)
    except InputError as exc:
        return f"refused: {str(exc)[:90]}"
    style.set_theme(theme)
    try:
        scene = audited(lambda: FilmScene(trace, beats=[beat], skip_animations=True),
                        Path(tempfile.mkdtemp()))
    finally:
        style.set_theme("3b1b")
    said = [c.content for c in scene.renderer.file_writer.subcaptions]
    faults = [*scene.layout_log, *scene.findings, *scene.audit_log,
              *claim_faults(trace, scene.book.claims), *pieces_named_as_words(trace, said),
              *words_not_written(trace, said)]
    return "ok" if not faults else f"faults: {faults[:2]}"


def main() -> None:
    from tests import tiny_models
    from tests.layout_corpus import CORPUS

    decoder = tiny_models.build("gpt2", Path(tempfile.mkdtemp()) / "gpt2", n_layer=12)
    rows, counts = [], {}
    for n, (sentence, options, theme) in enumerate(CORPUS):
        kept = {k: v for k, v in options.items() if k not in ("versus", "length")}
        why_options = {"model": str(decoder), "layer": 8,
                       **{k: v for k, v in options.items() if k == "focus"}}
        for beat, asked in (("flow", kept), ("why", why_options)):
            result = audit(beat, sentence, asked, theme)
            counts[(beat, result.split(":")[0])] = counts.get((beat, result.split(":")[0]),
                                                              0) + 1
            rows.append(f"| {n:02d} | {beat} | {sentence[:28]} | {result} |")
            print(rows[-1], flush=True)
    summary = ", ".join(f"{beat} {kind}: {count}" for (beat, kind), count in sorted(counts.items()))
    update_section("optional-beats-corpus", "\n".join([
        "## The flow and why beats over the layout corpus",
        "",
        f"Machine: {machine()}. `python bench/optional_beats_corpus.py`: {summary}.",
        "",
        "| entry | beat | sentence | result |", "|---:|---|---|---|", *rows]))


if __name__ == "__main__":
    main()
