"""A lecture pack: one render cut into what a lecturer puts into a course.

``DIR/explainer.mp4`` (+ .srt, .png, .npz, with chapter marks), ``chapters.vtt`` and
``captions.vtt``, ``clips/NN-<beat>.mp4`` + ``.png`` + ``.vtt`` (each beat from the hand-off
into it to its held end state, remuxed, not re-encoded: every segment starts, and every
hand-off begins, on a key frame), ``slides.pptx`` (a title
slide, then a slide per beat with its clip, poster and the beat's captions as speaker
notes) and ``index.html`` (an offline web deck). Written as one set with the render
(``OutputSet``): all new or, after a failure, all as before. Nothing in a pack names an
http(s) address: the deck works from ``file://`` with no network.
"""
from __future__ import annotations

import contextlib
import datetime
import html
import json
from dataclasses import dataclass
from pathlib import Path

from ..attention_core.errors import InputError
from ..facts import DEFAULT_PAUSES, beat_facts
from ..files.outputs import OutputSet, check_place, output_path
from ..scenes.vocabulary.scripts import isolated

__all__ = ["FIXED", "LecturePack", "MIN_CUE", "clip_cues", "clip_name", "pack_outputs", "vtt",
           "vtt_time"]

FIXED = {"video": "explainer.mp4", "captions": "explainer.srt", "poster": "explainer.png",
         "trace": "explainer.npz", "chapters": "chapters.vtt", "captions_vtt": "captions.vtt",
         "slides": "slides.pptx", "deck": "index.html", "handout": "handout.pdf"}


def clip_name(number: int, beat: str) -> str:
    """clips/NN-beat (without suffix), numbered from 01 in storyboard order."""
    return f"clips/{number:02d}-{beat}"


def pack_outputs(folder: Path, beats: list[str], *, force: bool = False,
                 numbers: str = ".npz") -> OutputSet:
    """Every file of a pack in ``folder`` as one output set (checked, nothing written);
    ``numbers``: the suffix of the film's numbers (a trace's .npz, a view's .json)."""
    folder = output_path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder} is a file; give a folder for the lecture pack.")
    check_place(folder)
    files = {kind: folder / name for kind, name in FIXED.items()}
    files["trace"] = files["trace"].with_suffix(numbers)
    for n, beat in enumerate(beats, 1):
        for suffix in (".mp4", ".png", ".vtt"):
            files[f"clip:{beat}{suffix}"] = folder / (clip_name(n, beat) + suffix)
    return OutputSet(files, force=force, what="lecture pack file",
                     hint="choose another --out folder").check()


# ---- WebVTT -------------------------------------------------------------------------------
MIN_CUE = 1.0       # seconds: a caption cut shorter than this by a clip's edge is left out


def clip_cues(captions, start: float, end: float) -> list[tuple[float, float, str]]:
    """The film's captions (start, end, text in film seconds) shown during a clip from
    ``start`` to ``end``, in the clip's own seconds; cut at its edges, and left out when
    what is left of them is too short to read."""
    cues = []
    for a, b, text in captions:
        a, b = max(a, start), min(b, end)
        if b - a >= MIN_CUE or (b > a and b - a >= 0.5 * (end - start)):
            cues.append((a - start, b - start, text))
    return cues


def vtt_time(seconds: float) -> str:
    """WebVTT's HH:MM:SS.mmm.

    >>> vtt_time(3725.5)
    '01:02:05.500'
    """
    millis = round(max(seconds, 0.0) * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d}.{rest % 1000:03d}"


def vtt(cues: list[tuple[float, float, str]], *, numbered: bool = False) -> str:
    """A WebVTT file of (start, end, text) cues."""
    blocks = ["WEBVTT", ""]
    for n, (start, end, text) in enumerate(cues, 1):
        if numbered:
            blocks.append(str(n))
        # a cue's text may not hold an empty line or "-->"; < and & are escaped
        body = "\n".join(isolated(line) for line in text.replace("-->", "→").splitlines()
                         if line.strip())           # right-to-left words in isolates
        blocks += [f"{vtt_time(start)} --> {vtt_time(end)}", html.escape(body, quote=False), ""]
    return "\n".join(blocks)


# ---- the pack ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Subject:
    """What a pack says its film is of: the sentence, the model, the layer and head drawn
    ("line"), and the word it follows (the explainer's focus, a translation's target
    word; a writing, the text written)."""
    sentence: str
    model: str
    line: str
    focus: str
    followed: str
    explainer: bool

    @classmethod
    def of(cls, trace) -> "Subject":
        board = getattr(trace, "storyboard", "explainer")
        if board == "translation":
            return cls(trace.sentence, trace.model, f"{trace.model} · layer {trace.layer} · "
                       f"head {trace.head}", trace.focus_text,
                       f"focus “{trace.focus_text}”", False)
        if board == "writing":
            heads = len(trace.heads)
            return cls(trace.sentence, trace.model, f"{trace.model} · layer {trace.layer} · "
                       f"the mean of {heads} head{'s' * (heads != 1)}", trace.text,
                       f"writes “{trace.text.strip()}”", False)
        return cls(trace.sentence, trace.meta.get("model", "the model"),
                   f"{trace.model_label} · layer {trace.layer} · head {trace.primary_head}",
                   trace.focus_word, f"focus “{trace.focus_word}”", True)


class LecturePack:
    """Writes the pack's files (beyond the render's own four) into an opened output set:
    the ``also`` step of ``render_video``. Chapters, slides and the deck are titled with
    the beats' titles (``facts.BEATS``)."""

    def __init__(self, trace, width: int, height: int, captions_language: str = "en",
                 pauses: str = DEFAULT_PAUSES):
        self.trace, self.width, self.height = trace, width, height
        self.captions_language = captions_language      # the captions' (a translation's)
        self.pauses = pauses            # where the deck and the slides stop (facts.PAUSES)
        self.subject = Subject.of(trace)
        self.burnt = False              # the captions drawn into the clips' frames

    def __call__(self, segments, starts: list[float], paths: dict, sound=None,
                 burn=None) -> None:
        """The pack's files from the film's drawn segments; ``burn``: (width, height,
        encoder options) where the captions are drawn into the frames (``--burn-captions``:
        each clip and its poster show them in a band below the picture)."""
        from ..scenes.pipeline.cache_files import KEY_FRAME, VIDEO
        from ..scenes.pipeline.join import beat_spans, caption_cues, handoff_frame

        spans = beat_spans(segments, starts)
        chapters = [(a, b, beat_facts(s.beat).title) for s, (a, b) in zip(segments, spans)]
        paths["chapters"].write_text(vtt(chapters, numbered=True), encoding="utf-8")
        captions = caption_cues(segments, starts)      # the film's .srt, as cues
        paths["captions_vtt"].write_text(vtt(captions), encoding="utf-8")
        # a beat's clip opens on the hand-off into it and ends on its own held end state
        # (its hand-off opens the next clip): stopped there, the room sees the picture
        self.burnt = burn is not None
        for n, s in enumerate(segments):
            with contextlib.ExitStack() as stack:
                parts = []
                if n:
                    before = segments[n - 1]
                    parts.append((stack.enter_context(before.opened(VIDEO)),
                                  handoff_frame(before), before.frames))
                end = handoff_frame(s) if n < len(segments) - 1 else s.frames
                parts.append((stack.enter_context(s.opened(VIDEO)), 0, end))
                self._clip(parts, paths[f"clip:{s.beat}.mp4"],
                           None if sound is None else clip_sound(sound, *spans[n]),
                           clip_cues(captions, *spans[n]), burn, s.fps)
            poster = s.read(KEY_FRAME)
            if burn is not None:          # as the clip shows it: with its caption below
                from ..scenes.pipeline.burn import poster_with_band

                at = starts[n] + s.key_time
                shown = next((text for a, b, text in captions if a <= at < b), None)
                poster = poster_with_band(poster, shown, burn[0], burn[1])
            paths[f"clip:{s.beat}.png"].write_bytes(poster)
            paths[f"clip:{s.beat}.vtt"].write_text(vtt(clip_cues(captions, *spans[n])),
                                                   encoding="utf-8")
        from ..attention_core.notes import beat_quotes

        quotes = beat_quotes(self.trace) if self.subject.explainer else {}
        beats = [self._beat_facts(n, s, spans[n - 1], captions, quotes.get(s.beat, []))
                 for n, s in enumerate(segments, 1)]
        for beat, after in zip(beats, beats[1:] + [None]):
            beat["next"] = f"{after['number']}. {after['title']}" if after else "the end"
            beat["notes_text"] = notes_text(beat)
        self.write_slides(paths["slides"], beats, paths)
        self.write_handout(paths["handout"], beats, paths)
        paths["deck"].write_text(self.deck_html(beats), encoding="utf-8")

    def _clip(self, parts, target: Path, sound, cues, burn, fps: int) -> None:
        """A beat's clip: its frames cut from the segments (``join.cut_clip``), or with
        ``burn`` encoded once more with the captions drawn below the picture, then given
        its sound and its subtitle track."""
        from ..scenes.pipeline.join import cut_clip

        if burn is None:
            cut_clip(parts, target, sound, cues, self.captions_language, fps=fps)
            return
        from ..scenes.pipeline.burn import burn_captions

        cut, burnt = (target.with_name(target.name + suffix) for suffix in (".cut.mp4",
                                                                            ".burnt.mp4"))
        try:
            cut_clip(parts, cut, fps=fps)
            width, height, options = burn
            frames = sum(max(0, end - first) for _, first, end in parts)
            burn_captions([cut], cues, burnt, width=width, height=height, fps=fps,
                          options=options, lengths=[frames])
            cut_clip([(burnt, 0, frames)], target, sound, cues, self.captions_language,
                     fps=fps)
        finally:
            cut.unlink(missing_ok=True)
            burnt.unlink(missing_ok=True)

    def _beat_facts(self, number: int, segment, span, captions, quotes) -> dict:
        facts = beat_facts(segment.beat)
        return {"beat": segment.beat, "number": number, "title": facts.title,
                "clip": clip_name(number, segment.beat), "duration": span[1] - span[0],
                "start": span[0], "shows": self._shows(facts),
                "say": [" ".join(text.split()) for _, _, text in segment.captions],
                "quote": quotes,
                "ask": facts.ask.format(focus=f"\u2018{self.subject.focus}\u2019"),
                "cues": clip_cues(captions, *span),
                "steps": beat_steps(clip_cues(captions, *span), span[1] - span[0])}

    def _shows(self, facts) -> str:
        """What the beat shows, said of this sentence: a note on reading from the right or
        on words in pieces only where its tokens need it."""
        from ..attention_core.word_model import WordModel
        from ..scenes.film.views import reads_from_right

        applies = [] if not self.subject.explainer else \
            (["right_to_left"] if reads_from_right(self.trace) else []) + \
            (["pieces"] if WordModel.of_trace(self.trace).any_split() else [])
        shows = facts.shows_for(*applies)
        return shows[:1].upper() + shows[1:]

    # ---- PowerPoint ---------------------------------------------------------------------
    def write_slides(self, path: Path, beats: list[dict], paths: dict) -> None:
        """Slides in the film's aspect (16:9, 4:3, ...) on its stage colour: the title slide,
        then one per beat with its clip as a movie (its poster shown until it plays) and its
        captions as the speaker notes."""
        from pptx import Presentation
        from pptx.dml.color import RGBColor
        from pptx.util import Emu, Inches, Pt

        deck = Presentation()
        # 7.5 in high, as PowerPoint's own 16:9 and 4:3 sizes, and as wide as the film
        # asks (within the 1-56 in PowerPoint allows)
        deck.slide_height = Inches(7.5)
        deck.slide_width = Inches(min(max(7.5 * self.width / self.height, 1.0), 56.0))
        blank = deck.slide_layouts[6]
        colours = {k: RGBColor.from_string(v.lstrip("#").upper())
                   for k, v in deck_colours().items() if v.startswith("#")}

        def new_slide():
            """A blank slide on the film's stage colour."""
            slide = deck.slides.add_slide(blank)
            slide.background.fill.solid()
            slide.background.fill.fore_color.rgb = colours["stage"]
            return slide

        def text_box(slide, text, top, size, *, bold=False, height=0.9):
            box = slide.shapes.add_textbox(Inches(0.6), Inches(top),
                                           deck.slide_width - Inches(1.2), Inches(height))
            frame = box.text_frame
            frame.word_wrap = True
            frame.text = text
            for paragraph in frame.paragraphs:
                for run in paragraph.runs:
                    run.font.size, run.font.bold = Pt(size), bold
                    run.font.color.rgb = colours["ink" if bold else "text"]
            return box

        first = new_slide()
        text_box(first, "Attention, step by step", 1.6, 40, bold=True)
        text_box(first, f"“{self.subject.sentence}”", 2.8, 32, height=1.4)
        text_box(first, f"{self.subject.line} · {self.subject.followed} · "
                 f"{len(beats)} beats", 4.6, 20)
        first.notes_slide.notes_text_frame.text = (
            f"Real attention of {self.subject.model} on this sentence: every "
            "number in the clips is computed by the model, not made up.")
        # the movie fills the slide below the title, in the video's aspect ratio
        top, bottom, side = Inches(1.25), Inches(7.2), Inches(0.6)
        box_w, box_h = deck.slide_width - 2 * side, bottom - top
        scale = min(box_w / self.width, box_h / self.height)
        movie_w, movie_h = Emu(int(self.width * scale)), Emu(int(self.height * scale))
        left = Emu(int((deck.slide_width - movie_w) / 2))
        for n, beat in enumerate(beats, 1):
            clip = paths[f"clip:{beat['beat']}.mp4"]
            poster = paths[f"clip:{beat['beat']}.png"]
            # with --pauses steps a slide per step, each the beat's clip trimmed to it
            steps = beat["steps"] if self.pauses == "steps" else [(0.0, beat["duration"], [])]
            for k, (start, end, said) in enumerate(steps, 1):
                slide = new_slide()
                step = f" ({k}/{len(steps)})" if len(steps) > 1 else ""
                text_box(slide, f"{n}. {beat['title']}{step}", 0.3, 30, bold=True)
                movie = slide.shapes.add_movie(str(clip), left, top, movie_w, movie_h,
                                               poster_frame_image=str(poster),
                                               mime_type="video/mp4")
                if len(steps) > 1:
                    trim_movie(movie, start, end)
                slide.notes_slide.notes_text_frame.text = beat["notes_text"] if k == 1 \
                    else "Say:\n" + "\n".join(f"\u2022 {line}" for line in said)
        deck.save(str(path))

    # ---- the handout ----------------------------------------------------------------------
    def write_handout(self, path: Path, beats: list[dict], paths: dict) -> None:
        """A printable A4 handout, a page per beat: its title, its key frame and its notes,
        in the film's fonts (embedded, the text selectable), white paper in every theme."""
        import logging

        from fpdf import FPDF

        from ..scenes.vocabulary.fonts import FONT_FILES

        logging.getLogger("fontTools").setLevel(logging.ERROR)    # its notes on subsetting
        pdf = FPDF(orientation="portrait", unit="mm", format="A4")
        pdf.set_auto_page_break(True, margin=14)
        pdf.set_creation_date(EPOCH)             # the same pack, the same bytes
        pdf.set_title(f"Attention: {self.subject.sentence}")
        fonts = {"serif": FONT_FILES[0], "serif-bold": FONT_FILES[1],
                 "cjk": FONT_FILES[3], "symbols": FONT_FILES[4], "other": FONT_FILES[5]}
        for name, file in fonts.items():
            pdf.add_font(name, fname=file)
        # a glyph the serif lacks (CJK, a symbol, another script) comes from the next
        pdf.set_fallback_fonts(["cjk", "symbols", "other"], exact_match=False)
        width = pdf.epw
        for beat in beats:
            pdf.add_page()
            pdf.set_font("serif", size=9)
            pdf.set_text_color(90, 90, 90)
            pdf.multi_cell(width, 4.5, f"\u201c{self.subject.sentence}\u201d \u00b7 "
                           f"{self.subject.line.replace(' · ', ', ')}", new_x="LMARGIN",
                           new_y="NEXT")
            pdf.ln(2)
            pdf.set_font("serif-bold", size=16)
            pdf.set_text_color(0, 0, 0)
            pdf.multi_cell(width, 8, f"{beat['number']}. {beat['title']}",
                           new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
            pdf.image(str(paths[f"clip:{beat['beat']}.png"]), w=width,
                      h=width * self.height / self.width)
            pdf.ln(3)
            pdf.set_font("serif", size=10.5)
            for line in notes_text(beat).splitlines()[1:]:
                pdf.multi_cell(width, 5.2, line, new_x="LMARGIN", new_y="NEXT")
        pdf.output(str(path))

    # ---- the web deck -------------------------------------------------------------------
    def deck_html(self, beats: list[dict]) -> str:
        """One self-contained page: a section per beat with its clip, keys to move, a
        chapter list; captions as <track> (data: URLs: Chromium loads no track file from
        file://), written in a band below the picture, never over it; no player controls
        over the film's text (a click or k plays and pauses). No address outside the
        pack."""
        from urllib.parse import quote

        def track(cues) -> str:
            return "data:text/vtt;charset=utf-8," + quote(vtt(cues), safe="")

        def steps(beat) -> str:       # where its clip stops (--pauses steps)
            starts = " ".join(f"{start:.3f}" for start, _, _ in beat["steps"][1:])
            return f' data-steps="{starts}"' if self.pauses == "steps" and starts else ""

        chapters = "\n".join(
            f'      <li><a href="#beat-{n}" data-go="{n - 1}">{html.escape(b["title"])}</a>'
            f' <span class="time">{b["duration"]:.0f} s</span></li>'
            for n, b in enumerate(beats, 1))
        sections = "\n".join(
            f'''    <section id="beat-{n}" data-beat="{b['beat']}"{steps(b)} hidden>
      <h2>{n}. {html.escape(b['title'])}</h2>
      <video src="{b['clip']}.mp4" poster="{b['clip']}.png" preload="auto" playsinline
             width="{self.width}" height="{self.height}">
        <track kind="captions" srclang="{self.captions_language}" label="Captions" default src="{track(b['cues'])}">
      </video>
      <p class="caption" aria-live="polite"{' hidden' if self.burnt else ''}></p>
    </section>''' for n, b in enumerate(beats, 1))
        title = html.escape(self.subject.sentence)
        notes = [{key: b[key] for key in ("number", "title", "duration", "shows", "say",
                                          "quote", "ask", "next")} for b in beats]
        # inside <script>: no "</" may close it early
        notes_json = json.dumps(notes, ensure_ascii=False).replace("<", "\\u003c")
        from .web_deck import DECK

        return DECK.format(title=title, sentence=title, chapters=chapters, sections=sections,
                           notes=notes_json, **deck_colours(),
                           model=html.escape(self.subject.line),
                           count=json.dumps(len(beats)), pauses=self.pauses,
                           aspect=f"{self.width / self.height:.6f}")


def deck_colours() -> dict[str, str]:
    """The deck's and the slides' colours: the film's theme (its stage, its text, the
    query's colour for the beat playing), so a clip sits on a page of its own colour."""
    from ..scenes.vocabulary import colors, style

    pal = style.PALETTE
    light = colors.oklab(pal.background)[0] > 0.5
    return {"scheme": "light" if light else "dark", "stage": pal.background,
            "text": pal.text, "ink": pal.ink, "soft": pal.soft, "dim": pal.dim,
            "line": pal.faint, "current": pal.query}


EPOCH = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)   # a handout's date


def clock(seconds: float) -> str:
    """M:SS.

    >>> clock(75.4)
    '1:15'
    """
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}:{rest:02d}"


def beat_steps(cues, duration: float) -> list[tuple[float, float, list[str]]]:
    """A beat's steps in its clip: (start s, end s, what it says), one from each caption's
    start (the first from the clip's start), where the step before it is drawn and held;
    a caption within half a second of the last step's start joins it."""
    steps: list[list] = [[0.0, duration, []]]
    for start, _, text in cues:
        if start - steps[-1][0] >= 0.5:
            steps[-1][1] = start
            steps.append([start, duration, []])
        steps[-1][2].append(" ".join(text.split()))
    return [(round(a, 3), round(b, 3), said) for a, b, said in steps]


def trim_movie(movie, start: float, end: float) -> None:
    """Trim a slide's movie to play from ``start`` to ``end`` seconds of its clip, as
    PowerPoint's own Trim Video writes it (``p14:trim``, PowerPoint 2010 and later): the
    clip stays one file, played in parts."""
    from lxml import etree

    p14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"
    media = movie._element.find(f".//{{{p14}}}media")
    trim = etree.SubElement(media, f"{{{p14}}}trim")
    trim.set("st", f"{start * 1000:.0f}")
    trim.set("end", f"{end * 1000:.0f}")


def notes_text(beat: dict) -> str:
    """A beat's speaker notes as plain text: what it shows, what to say (its captions, with
    the real numbers), the numbers to quote, a question for the room, its time and the
    next beat."""
    lines = [f"{beat['number']}. {beat['title']}: {beat['duration']:.0f} s, from "
             f"{clock(beat['start'])}; next: {beat['next']}",
             f"Shows: {beat['shows']}.", "Say:"]
    lines += [f"\u2022 {line}" for line in beat["say"]]
    if beat["quote"]:
        lines.append("Quote:")
        lines += [f"\u2022 {line}" for line in beat["quote"]]
    lines.append(f"Ask the room: {beat['ask']}")
    return "\n".join(lines)


def clip_sound(sound, start: float, end: float):
    """The film's sound between ``start`` and ``end`` seconds (a clip's own voice)."""
    from ..scenes.pipeline.narration import RATE

    return sound[int(round(start * RATE)):int(round(end * RATE))]
