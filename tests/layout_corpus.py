"""Sentences chosen to stress the film's layout (3 to 23 tokens, a relative clause,
pronouns, Chinese, Japanese, accents and word pieces, an apostrophe, numbers, punctuation,
a very long word; [UNK]s; a window over words in pieces; numbers with hyphens; Arabic and
Hebrew, right to left; minilm and scratch; a causal mask; every head; each theme; issue
57's lecturer's sentences, a minimal pair and a short film; Devanagari, Bengali, Greek and
Korean), and the layout audit of a whole film of one, drawn on the scene graph without
frames. Each sentence carries several of the stresses: every one costs half a minute of
the suite."""
from __future__ import annotations

from pathlib import Path

CORPUS = [
    ("The cat ate the fish", {}, "3b1b"),
    ("Hi", {}, "3b1b"),
    ("The chef who trained in Paris cooked a wonderful meal for the guests",
     {"focus": "cooked"}, "3b1b"),
    ("小猫吃了一条鱼", {}, "3b1b"),
    ("猫が魚を食べた", {}, "illustrated"),
    ("Le chat a mangé le poisson", {}, "colorblind"),
    ("Die Straßenbahnhaltestelle liegt gegenüber", {"heads": "all"}, "3b1b"),
    ("The lawyer questioned the witness because she was lying", {"focus": "she"}, "3b1b"),
    ("The animal didn't cross the street because it was too tired", {"focus": "it"},
     "3b1b"),
    ("In 1969, 3 astronauts flew 384,400 km to the Moon!", {}, "light"),
    ("We saw her duck", {"model": "scratch", "mask": "causal"}, "3b1b"),
    ("When the quick brown fox finally jumped over the lazy dog, the whole village cheered",
     {}, "3b1b"),
    # a window over words in pieces (German compounds), and numbers with hyphens
    ("Die Katze sah gestern den warmen Ofen, weil sie müde war und schlafen wollte.", {},
     "3b1b"),
    ("Between 1999-2004 the 3-person team shipped 12 well-tested releases", {}, "colorblind"),
    # right to left (issue 35): Arabic joined in pieces, Hebrew on the light stage; and a
    # 23-token Japanese sentence that needs a window, kana in pieces and [UNK]s
    ("القط الصغير أكل السمكة", {}, "3b1b"),
    ("החתול הקטן אכל את הדג", {}, "light"),
    ("私たちは駅の近くの店でラーメンを食べました", {}, "3b1b"),
    # issue 57's nine films a lecturer tried (the translation film's pair is in
    # test_translation_film), and three more scripts: Bengali, Greek (accents the
    # normaliser drops) and Korean (Hangul read as jamo). "versus" and "length" are the film's own options
    ("María le dio el libro a Ana porque ella ya lo había leído.", {"focus": "ella"},
     "3b1b"),
    ("Кошка съела рыбу, потому что она была голодна.", {}, "3b1b"),
    ("बिल्ली ने मछली खाई क्योंकि वह भूखी थी।", {}, "3b1b"),
    ("On 3 March 2025 the U.S. central bank raised rates by 0.25% after inflation hit 4.1%.",
     {}, "3b1b"),
    ("I \u2764\ufe0f New York pizza \U0001f355 more than Chicago's deep-dish!", {}, "light"),
    ("The old man the boats while the young sleep.", {}, "3b1b"),
    ("The doctor called the nurse because she was late",
     {"versus": "The doctor called the nurse because he was late"}, "3b1b"),
    ("Der Hund, den ich gestern im Park sah, bellte laut.", {"length": "short"}, "3b1b"),
    ("বিড়ালটি মাছ খেয়েছে কারণ সে ক্ষুধার্ত ছিল।", {}, "3b1b"),
    ("Η γάτα έφαγε το ψάρι επειδή πεινούσε πολύ.", {}, "colorblind"),
    ("고양이가 생선을 먹었다 왜냐하면 배가 고팠기 때문이다.", {}, "3b1b"),
]


def audit_film(sentence: str, options: dict, theme: str, folder: Path, beats=None,
               width: int = 1920, height: int = 1080, brief: bool = False,
               versus: str | None = None, influence: bool = False):
    """The film of ``sentence`` drawn with the layout audit on (every play's middle and
    end): the scene, with its ``layout_log`` and the numbers it drew. ``brief``: a short
    film's holds (--length); ``versus``: a minimal pair's sentence B (the versus beat);
    ``influence``: every head of the layer silenced and measured (the influence beat)."""
    from attention_explainer.attention_core import compute_trace
    from attention_explainer.scenes.film.scene import FilmScene
    from attention_explainer.scenes.vocabulary import style

    pair = None
    if versus is not None:
        from attention_explainer.attention_core.api import TraceRequest
        from attention_explainer.attention_core.compare import compare_sentences

        comparison = compare_sentences(TraceRequest(sentence=sentence, **options), versus)
        trace, pair = comparison.a, comparison.b
    else:
        trace = compute_trace(sentence, **options)
    if influence:
        from attention_explainer.attention_core.ablation import with_influence
        from attention_explainer.attention_core.api import TraceRequest

        trace = with_influence(trace, TraceRequest(sentence=sentence, **options))
    style.set_theme(theme)
    try:
        def film():
            scene = FilmScene(trace, beats=beats, skip_animations=True, versus=pair)
            scene.brief = brief
            return scene
        return audited(film, folder, width, height)
    finally:
        style.set_theme("3b1b")


def audited(make_scene, folder: Path, width: int = 1920, height: int = 1080):
    """The scene ``make_scene()`` builds (skipping animations) rendered with the layout
    audit on: every play's middle and end, read from the scene graph."""
    from manim import tempconfig

    with tempconfig({"pixel_height": height, "pixel_width": width, "frame_rate": 30,
                     "format": "none", "disable_caching": True,
                     "media_dir": str(folder / "media"), "seed": 0,
                     "output_file": str(folder / "out"), "progress_bar": "none",
                     "verbosity": "ERROR"}):
        scene = make_scene()
        scene.audit = True
        # the audit reads the scene graph, never a pixel: draw no frame at all (manim
        # paints the still objects at every play, even when it skips the animation)
        scene.renderer.update_frame = lambda *args, **kwargs: None
        # nor sort the stage into what moves and what stands still at every play:
        # that sorting only chooses what to paint once (a fiftieth of the audit)
        scene.get_moving_and_static_mobjects = lambda animations: ([], [])
        scene.render()
    return scene


ROW_KINDS = ("shown_weights", "shown_causal_weight", "shown_unmasked_weight", "shown_real_weight",
             "shown_temperature_weight")


def units(text: str, decimals: int) -> int:
    return round(float(text.replace("\u2212", "-")) * 10 ** decimals)


def sum_faults(trace, shown) -> list[str]:
    """Rows of weights whose drawn numbers do not add up as drawn: a row drawn whole that
    does not make 1, a list (of tokens, or of words) whose entries and "+ N more" do not
    make 1, a drawn sum that is not the sum of its row's drawn entries."""
    rows: dict[tuple, dict[int, str]] = {}
    for n in shown:
        if n.kind in ROW_KINDS:
            h, i, j, *extra = n.index
            rows.setdefault((n.beat, n.kind, h, i, *extra), {})[j] = n.text
    faults = []
    for (beat, kind, h, i, *extra), entries in rows.items():
        d = int(extra[-1])
        if len(entries) == trace.num_tokens and sum(units(t, d) for t in entries.values()) \
                != 10 ** d:
            faults.append(f"{beat}: {kind} row {h},{i} drawn whole sums to "
                          f"{sum(units(t, d) for t in entries.values())} / {10 ** d}")
    for n in shown:
        if n.kind in ("shown_weight_rest", "shown_temperature_rest"):
            split = 3 if n.kind == "shown_weight_rest" else 4
            head, listed = n.index[:split], n.index[split:]
            h, i, *extra = head
            d = int(extra[-1])
            kind = "shown_weights" if n.kind == "shown_weight_rest" else "shown_temperature_weight"
            entries = rows.get((n.beat, kind, h, i, *extra), {})
            if not set(listed) <= set(entries):
                faults.append(f"{n.beat}: the rest {n.text} of keys not drawn")
                continue
            total = units(n.text, d) + sum(units(entries[j], d) for j in listed)
            if total != 10 ** d:
                faults.append(f"{n.beat}: listed weights and the rest make {total} / {10 ** d}")
        if n.kind in ("shown_word_rest", "shown_temperature_word_rest"):
            # a list of words (each the sum of its pieces) and "+ N more": one, as drawn
            split = 3 if n.kind == "shown_word_rest" else 4
            (h, i, *extra), firsts = n.index[:split], n.index[split:]
            kind = "shown_word_weight" if split == 3 else "shown_temperature_word_weight"
            listed = {m.index[2]: m.text for m in shown if m.kind == kind and m.beat == n.beat
                      and m.index[:2] == (h, i) and tuple(m.index[4:]) == tuple(extra)}
            d = int(extra[-1])
            if not set(firsts) <= set(listed):
                faults.append(f"{n.beat}: the rest {n.text} of words not drawn")
            elif units(n.text, d) + sum(units(listed[j], d) for j in firsts) != 10 ** d:
                faults.append(f"{n.beat}: listed words and the rest do not make one")
        if n.kind in ("shown_weight_sum", "shown_causal_weight_sum"):
            h, i, d = n.index
            kind = "shown_weights" if n.kind == "shown_weight_sum" else "shown_causal_weight"
            entries = rows.get((n.beat, kind, h, i, d), {})
            if len(entries) == trace.num_tokens and \
                    sum(units(t, d) for t in entries.values()) != units(n.text, d):
                faults.append(f"{n.beat}: drawn sum {n.text} is not its row's")
    return faults
