"""For a lecture repo: the chosen beats at chosen times as PNGs, a contact sheet of their
key frames and a check against a folder of golden PNGs (:class:`StillsJob`, the beats
drawn in worker processes by ``scenes.pipeline.stills``).

The PNGs and the sheet are one output set (all written, or none); a check never writes
into its golden folder.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..attention_core.errors import InputError
from ..facts import STILL_FORMATS
from ..files.outputs import OutputSet, output_path, sigterm_as_interrupt
from ..scenes.pipeline.draw import default_workers, run_in_workers
from ..scenes.pipeline.estimate import beat_weight
from ..scenes.pipeline.regression import check_against, contact_sheet
from ..scenes.pipeline.stills import still_label, stills_in_worker
from ..scenes.vocabulary import style

__all__ = ["SHEET_FORMATS", "StillsJob"]

SHEET_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}


@dataclass
class StillsJob:
    """Stills of ``beats`` at ``times`` (seconds, "key", "end") written as one set into
    ``out_dir``, with a contact sheet of their key frames if ``sheet`` is given, and
    compared with the PNGs in ``golden`` if that is given. :meth:`check` first, then
    :meth:`run`, then :meth:`compare`."""

    beats: list[str]
    times: list
    out_dir: Path
    width: int
    height: int
    fps: int
    sheet: Path | None = None
    golden: Path | None = None
    jobs: int | None = None           # beats drawn at once (default: the cores)
    cache: object = None              # a BeatCache: texts built once per machine
    force: bool = False               # replace existing stills and sheet (else refuse)
    format: str = "png"               # png, or svg / pdf: the same picture as vector graphics
    width_mm: float | None = None     # a vector still's width on paper (None: a px or pt a pixel)
    settings: object = None           # how the beats are drawn (FilmSettings; None: defaults)
    stills: list[Path] = field(default_factory=list)

    def names(self) -> list[tuple[str, str]]:
        """(beat, file name) of every still, in order."""
        return [(beat, f"{beat}-{still_label(t)}.{self.format}") for beat in self.beats
                for t in self.times]

    def check(self) -> "StillsJob":
        """Refuse what cannot work, writing nothing: the stills' folder is a file or lies
        in the golden folder, the golden folder is none, the sheet has an unknown format
        or lands among the goldens."""
        asked_out, asked_sheet = Path(self.out_dir), self.sheet    # links are looked for there
        if self.format not in STILL_FORMATS:
            raise InputError(f"--format {self.format!r}: use {', '.join(STILL_FORMATS)}.")
        if self.width_mm is not None and self.format == "png":
            raise InputError("--width-mm sizes a vector still on paper; add --format svg or "
                             "--format pdf, or drop --width-mm.")
        if self.format != "png" and self.golden is not None:
            raise InputError(f"--check compares PNG stills with golden PNGs; drop --format "
                             f"{self.format}, or --check.")
        self.out_dir = output_path(self.out_dir)
        if self.out_dir.exists() and not self.out_dir.is_dir():
            raise InputError(f"the stills' folder {self.out_dir} is a file; give a folder "
                             "for the stills.")
        if self.golden is not None:
            self.golden = output_path(self.golden)
            if not self.golden.is_dir():
                raise InputError(f"the golden folder {self.golden} is not a folder of golden "
                                 "PNGs; make one first: the stills of a good render, written "
                                 "into a folder of their own.")
            if self.golden == self.out_dir:
                raise InputError(f"the stills' folder {self.out_dir} is the golden folder; a "
                                 "check never writes into its golden folder: give the stills "
                                 "another folder.")
            if _inside(self.out_dir, self.golden):
                raise InputError(f"the stills' folder {self.out_dir} is inside the golden "
                                 "folder; a check never writes into its golden folder: give "
                                 "the stills a folder outside it.")
        files = {f"still:{name}": asked_out / name for _, name in self.names()}
        if self.sheet is not None:
            self.sheet = output_path(self.sheet)
            if Path(asked_sheet).suffix.lower() not in SHEET_FORMATS:
                raise InputError(f"the contact sheet {Path(asked_sheet).name}: use a .png, .jpg or "
                                 ".webp name.")
            if self.golden is not None and _inside(self.sheet, self.golden):
                raise InputError(f"the contact sheet {self.sheet} is in the golden folder; a "
                                 "check never writes into its golden folder.")
            files["sheet"] = Path(asked_sheet)
        self.outputs = OutputSet(files, force=self.force, what="still",
                                 hint="choose another folder for the stills")
        self.outputs.check()
        return self

    def run(self, trace, report=None) -> list[Path]:
        """Render the stills (and the sheet) and commit them as one set."""
        times = list(self.times) + (["key"] if self.sheet and "key" not in self.times else [])
        texts = self.cache.texts if self.cache is not None else None
        vector = None if self.format == "png" else (self.format, self.width_mm)
        calls = [(trace, beat, times, self.width, self.height, self.fps, style.theme_name(),
                  texts, vector, self.settings) for beat in self.beats]
        with sigterm_as_interrupt(), self.outputs.opened(report=report):
            key_frames = []
            drawn = run_in_workers(stills_in_worker, calls,
                                   workers=self.jobs or default_workers(),
                                   weights=[beat_weight(beat) for beat in self.beats])
            for beat, pictures in zip(self.beats, drawn):
                images, vectors = pictures["images"], pictures["vectors"]
                for when in self.times:
                    label = still_label(when)
                    path = self.outputs.path(f"still:{beat}-{label}.{self.format}")
                    if vector is None:
                        images[label].save(path, format="PNG")
                    else:
                        path.write_bytes(vectors[label])
                key_frames.append((beat, images.get("key")))
            if self.sheet is not None:
                sheet = contact_sheet(key_frames)
                fmt = SHEET_FORMATS[self.sheet.suffix.lower()]
                sheet.save(self.outputs.path("sheet"), format=fmt,
                           **({"optimize": True} if fmt == "PNG" else {"quality": 92}))
            written = self.outputs.commit()
        self.stills = [p for p in written if p != self.sheet]
        return written

    def compare(self, *, tolerance: int, max_share: float) -> list[str]:
        """One line per still that differs from its golden twin (or has none)."""
        results = check_against(self.out_dir, self.golden, [p.name for p in self.stills],
                                tolerance=tolerance, max_share=max_share)
        return [r.line() for r in results if not r.passed]


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies in ``folder`` at any depth, symlinks and ``..`` resolved."""
    return path.resolve().is_relative_to(folder.resolve())


# ---- drawing stills -------------------------------------------------------------------
