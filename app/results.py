"""What the Python API's commands give back: the files a command wrote, each shown inline
in a notebook (a film with its captions, stills, a pack's files, the atlas)."""
from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Atlas", "Film", "Pack", "Stills"]


@dataclass(frozen=True)
class Film:
    """A rendered film: the video and, beside it, its captions, poster and trace."""
    video: Path
    files: tuple = field(default_factory=tuple)

    @property
    def captions(self) -> Path:
        return self.video.with_suffix(".srt")

    def _repr_html_(self) -> str:
        kinds = {".mp4": "video/mp4", ".webm": "video/webm"}
        if self.video.suffix not in kinds:          # a GIF is a picture
            return _img(self.video, "image/gif")
        track = ""
        if self.captions.is_file():
            vtt = _vtt(self.captions.read_text(encoding="utf-8"))
            track = (f'<track kind="captions" srclang="en" label="captions" default '
                     f'src="data:text/vtt;base64,{_b64(vtt.encode())}">')
        return (f'<video controls style="max-width:100%" src="data:{kinds[self.video.suffix]};'
                f'base64,{_b64(self.video.read_bytes())}">{track}</video>')


@dataclass(frozen=True)
class Stills:
    """Stills written into ``folder`` (PNG, SVG or PDF)."""
    folder: Path
    files: tuple

    def _repr_html_(self) -> str:
        kinds = {".png": "image/png", ".svg": "image/svg+xml"}     # a PDF: its name only
        return "".join('<figure style="display:inline-block;margin:4px">'
                       + (_img(p, kinds[p.suffix], 320) if p.suffix in kinds else "")
                       + f"<figcaption>{html.escape(p.name)}</figcaption></figure>"
                       for p in self.files)


@dataclass(frozen=True)
class Pack:
    """A lecture pack: clips, slides, the web deck, the handout."""
    folder: Path
    files: tuple

    def _repr_html_(self) -> str:
        return "<ul>" + "".join(f"<li>{html.escape(str(p))}</li>" for p in self.files) + "</ul>"


@dataclass(frozen=True)
class Atlas:
    """The atlas picture: a PNG and an SVG."""
    png: Path
    svg: Path

    def _repr_png_(self) -> bytes:
        return self.png.read_bytes()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _img(path: Path, kind: str, width: int | None = None) -> str:
    size = f' width="{width}"' if width else ' style="max-width:100%"'
    return f'<img src="data:{kind};base64,{_b64(Path(path).read_bytes())}"{size}>'


def _vtt(srt: str) -> str:
    """SRT captions as WebVTT (what a browser's <track> reads): a header, and timestamps
    with a dot before the milliseconds."""
    import re

    body = re.sub(r"(\d\d:\d\d:\d\d),(\d\d\d)", r"\1.\2", srt.replace("\r\n", "\n"))
    return "WEBVTT\n\n" + body
