"""An interactive view of every layer and head on a sentence, as one self-contained HTML
file (no CDN, no network; inline in Jupyter too): every head of a layer at once, a token's
weights as lines in each head's colour (bertviz's head view), a key's query·key products,
its ÷√d and its weight; a thumbnail of every layer × head with its pattern tag (the
model view); each head of the measured layer silenced (``inspect --ablation``'s numbers,
computed here: the page runs no model). The numbers are the model's, from one run: the
weights, q and k as float32, exactly."""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import numpy as np

from ..attention_core.errors import InputError
from .requests import ViewRequest
from .signals import interrupts_held

__all__ = ["pair_page", "silencing_of", "view", "view_data", "view_html", "view_page"]


def _floats(array) -> str:
    """A float32 array as base64 (little-endian), for a Float32Array in the page."""
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode()


def _named(words, tokens, token: int) -> str:
    """A token of every layer's run (no trace: ``wording.word_name`` needs one) named by
    the film's rule: ‘word’, or ‘piece’ in ‘word’ where the tokenizer cut the word (and the
    word's ordinal where it is written twice)."""
    word = words.word_of(token)
    whole = f"\u2018{word.text}\u2019{word.told_apart}"
    return whole if not word.split else f"\u2018{tokens[token]}\u2019 in {whole}"


def silencing_of(trace, rows) -> dict:
    """Each head of the trace's layer silenced alone (``ablation.ablation_table``'s rows),
    as `inspect --ablation` prints it: the output, the measure and each head's number at
    the same digits, for the view's silence buttons (precomputed: the page runs no model);
    the focus named as the film names it."""
    from ..scenes.film.wording import focus_name

    kl = bool(rows) and rows[0].effect.kl is not None
    return {"layer": int(trace.layer), "output": rows[0].effect.kind if rows else "output",
            "unit": "nats (KL)" if kl else "degrees",
            "focus": focus_name(trace),
            "heads": {str(r.head): {
                "effect": f"{r.effect.size if kl else r.effect.degrees:.5f}",
                "beside": "" if kl else f"1 \u2212 cos = {1 - r.effect.cosine:.6f}",
                "answer": f"{r.answer_weight:.3f}"} for r in rows}}


def view_data(layers, atlas, palette, silencing: dict | str | None = None) -> dict:
    """What the page draws, from ``layers`` (an Attentions), ``atlas`` (the patterns), the
    theme's ``palette`` and ``silencing`` (:func:`silencing_of`, or why there is none)."""
    L, H, T, d = layers.q.shape
    words = layers.words
    blocked = np.ascontiguousarray(np.asarray(layers.blocked, dtype=np.uint8))
    return {
        "sentence": layers.sentence, "model": layers.model, "tokens": list(layers.tokens),
        "named": [_named(words, layers.tokens, t) for t in range(T)],
        "cut": [words.word_of(t).split for t in range(T)],
        "special": [bool(s) for s in layers.special], "L": L, "H": H, "T": T, "d": d,
        "weights": _floats(layers.weights), "q": _floats(layers.q), "k": _floats(layers.k),
        "blocked": base64.b64encode(blocked.tobytes()).decode(),
        "tags": [[p.tag for p in atlas.patterns[n * H:(n + 1) * H]] for n in range(L)],
        "shares": [[[round(p.share, 2), round(p.chance, 2), p.of or p.tag]
                    for p in atlas.patterns[n * H:(n + 1) * H]] for n in range(L)],
        "film": [atlas.film_layer, atlas.film_head],
        "heads": [palette.head(h) for h in range(H)],
        "silencing": silencing if isinstance(silencing, dict) else None,
        "unsilenced": silencing if isinstance(silencing, str) else "",
        "colours": {"background": palette.background, "text": palette.text,
                    "dim": palette.dim, "query": palette.query, "key": palette.key,
                    "line": palette.ink, "faint": palette.faint},
    }


def view_page(data: dict) -> str:
    """The whole page: its data, style and script inline."""
    from .view_page import PAGE

    c = data["colours"]
    title = html.escape(f"{data['sentence']} · {data['model']}")
    embedded = json.dumps(data).replace("</", "<\\/")     # a token may hold "</script>"
    return _filled(PAGE, TITLE=title, DATA=embedded, BG=c["background"], TEXT=c["text"],
                   DIM=c["dim"], QUERY=c["query"], KEY=c["key"])


def _filled(template: str, **values: str) -> str:
    """``template`` with each %NAME% replaced by its value in one pass (a value that holds
    a %NAME% of its own, from a user's sentence, is left as written)."""
    import re

    return re.sub(r"%([A-Z_]+)%", lambda m: values.get(m.group(1), m.group(0)), template)


# ---- the view as a capability: checked, computed, written whole ------------------------------
def view(request: ViewRequest, *, report=None) -> list[Path]:
    """Every layer and head on the sentence as one self-contained HTML page: written to
    ``request.output``, whole or not at all."""
    from ..files.outputs import OutputSet

    _check(request)
    if request.output is None:
        raise InputError("the view needs a file to write: give -o FILE.html.")
    page = Path(request.output)
    if page.suffix.lower() not in (".html", ".htm"):
        raise InputError(f"-o {str(request.output)!r} must name an .html file; e.g. -o "
                         "view.html.")
    outputs = OutputSet({"view": page}, force=request.force, what="view",
                        hint="choose another -o or add --force").check()
    text = view_html(request)
    with outputs.opened(report=report):
        outputs.path("view").write_text(text, encoding="utf-8")
        outputs.commit()
    return [Path(p) for p in outputs.files.values()]


def view_html(request: ViewRequest) -> str:
    """The page of ``request`` as text, nothing written (a notebook shows it inline); with
    ``versus``, both sentences' views side by side (:func:`pair_page`)."""
    _check(request)
    if request.versus is not None:
        from .inspection import pair_report

        with interrupts_held():
            report = pair_report(request.sentence, request.versus, request.tracing)
        explained = report.comparison.a
        return pair_page(request, _one_page(request, request.sentence),
                         _one_page(request, request.versus), report.lines(),
                         (int(explained.layer), int(explained.primary_head)))
    return _one_page(request, request.sentence)


def _one_page(request: ViewRequest, sentence: str) -> str:
    import dataclasses

    from ..scenes.vocabulary.style import PALETTES

    with interrupts_held():               # one run of the model gives both
        from ..attention_core.layers import attentions_and_atlas

        req = dataclasses.replace(request.tracing.request(sentence), layer="auto")
        layers, atlas = attentions_and_atlas(req)
        silencing = _silencing(request.tracing.request(sentence))
    return view_page(view_data(layers, atlas, PALETTES[request.theme], silencing))


def pair_page(request: ViewRequest, page_a: str, page_b: str, lines: list[str],
              opened: tuple[int, int]) -> str:
    """Two views side by side, each its sentence's whole page in a frame, with what
    `compare` prints for the pair above them, both opened at ``opened`` (the layer and
    head it explains); the frames keep one layer, head and heads shown (a change in one
    is made in the other)."""
    from ..scenes.vocabulary.style import PALETTES
    from .view_page import PAIR

    c = PALETTES[request.theme]
    a, b = request.sentence, request.versus
    return _filled(PAIR, TITLE=html.escape(f"{a} · versus · {b}"), BG=c.background,
                   TEXT=c.text, DIM=c.dim, A=html.escape(a), B=html.escape(b),
                   COMPARE=html.escape("\n".join(lines)), OPEN=json.dumps(list(opened)),
                   PAGE_A=html.escape(page_a, quote=True),
                   PAGE_B=html.escape(page_b, quote=True))


def _check(request: ViewRequest) -> None:
    if (request.tracing.mask or "none").strip().lower() != "none":
        raise InputError(f"--mask {request.tracing.mask}: the view shows the model's own "
                         "attention in every layer; drop --mask.")


def _silencing(req):
    """The view's silence buttons: each head of the trace's layer silenced alone, as
    `inspect --ablation` measures it (``view.silencing_of``), or why none can be."""
    from ..attention_core.ablation import ablation_table
    from ..attention_core.api import trace_for

    try:
        trace = trace_for(req)
        return silencing_of(trace, ablation_table(trace, req))
    except InputError as exc:
        return f"No head is silenced in this view: {exc}"
