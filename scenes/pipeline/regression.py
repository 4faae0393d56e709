"""Frame regression: compare fresh stills with golden PNGs, draw diffs, make contact sheets.

Pixels only (Pillow + numpy); no manim here, so checking is fast and importable anywhere.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...attention_core.errors import quoted_reason
from ...facts import DEFAULT_MAX_SHARE, DEFAULT_TOLERANCE

__all__ = ["DEFAULT_MAX_SHARE", "DEFAULT_TOLERANCE", "FrameComparison", "MAX_PIXELS",
           "SHEET_FONT", "UnreadableFrame", "check_against", "compare", "contact_sheet",
           "diff_image", "similarity"]

SHEET_FONT = "/usr/share/fonts/truetype/cmu/cmunrm.ttf"


@dataclass(frozen=True)
class FrameComparison:
    name: str
    identical: bool            # every pixel equal
    differing_share: float     # share of pixels whose largest channel difference > tolerance
    max_difference: int        # largest channel difference, 0..255
    similarity: float          # perceptual score (SSIM on luminance), 1.0 = same
    passed: bool
    reason: str = ""

    def line(self) -> str:
        if self.reason:
            return f"{self.name}: {self.reason}"
        return (f"{self.name}: {self.differing_share:.4%} of pixels differ by more than the "
                f"tolerance (max {self.max_difference}/255), similarity {self.similarity:.4f}")


# The default comparison (facts.DEFAULT_TOLERANCE, DEFAULT_MAX_SHARE: why, there)

MAX_PIXELS = 7680 * 4320      # the largest frame we render: a bigger "golden" is refused


class UnreadableFrame(ValueError):
    """A golden frame that is not a readable PNG of the expected size."""


def _rgb(image, size: tuple[int, int] | None = None) -> np.ndarray:
    """RGB pixels of a PIL image or a PNG file; a file is checked (format, size) from its
    header before any pixel is decoded, so a huge or broken file costs nothing."""
    from PIL import Image

    if not isinstance(image, (str, Path)):
        return np.asarray(image.convert("RGB"), dtype=np.int16)
    _check_size(_png_size(Path(image)), size)
    try:
        with Image.open(image) as im:
            _check_size(im.size, size)
            return np.asarray(im.convert("RGB"), dtype=np.int16)
    except UnreadableFrame:
        raise
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise UnreadableFrame(f"not a readable image ({type(exc).__name__}: "
                              f"{quoted_reason(exc)})") from exc


def _box_mean(x: np.ndarray, size: int) -> np.ndarray:
    """Mean over size x size windows ("valid" positions), by summed-area table."""
    c = np.pad(x, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    return (c[size:, size:] - c[:-size, size:] - c[size:, :-size] + c[:-size, :-size]) / size ** 2


def similarity(a: np.ndarray, b: np.ndarray, window: int = 7) -> float:
    """Structural similarity (SSIM) of two RGB frames' luminance, uniform windows."""
    weights = np.array([0.299, 0.587, 0.114])
    x, y = (np.asarray(a, float) @ weights), (np.asarray(b, float) @ weights)
    if min(x.shape) < window:
        window = max(1, min(x.shape))
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = _box_mean(x, window), _box_mean(y, window)
    vx = _box_mean(x * x, window) - mx * mx
    vy = _box_mean(y * y, window) - my * my
    cov = _box_mean(x * y, window) - mx * my
    ssim = ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    return float(ssim.mean())


def _png_size(path: Path) -> tuple[int, int] | None:
    """Width and height from a PNG's header (its first 24 bytes), before PIL sees it."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if len(head) == 24 and head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    return None


def _check_size(found: tuple[int, int] | None, size: tuple[int, int] | None) -> None:
    if found is None:
        return
    width, height = found
    if width * height > MAX_PIXELS or (size is not None and (width, height) != size):
        want = f"the fresh {size[0]}x{size[1]}" if size else "any video frame"
        raise UnreadableFrame(f"size {width}x{height} differs from {want}")


def compare(name: str, fresh, golden, *, tolerance: int = DEFAULT_TOLERANCE,
            max_share: float = DEFAULT_MAX_SHARE) -> FrameComparison:
    """Compare two frames. Passes when no more than ``max_share`` of the pixels differ by
    more than ``tolerance`` levels (``tolerance=0``: exact)."""
    a = _rgb(fresh)
    try:
        b = _rgb(golden, size=(a.shape[1], a.shape[0]))
    except UnreadableFrame as exc:
        return FrameComparison(name, False, 1.0, 255, 0.0, False, f"the golden frame: {exc}")
    if a.shape != b.shape:
        return FrameComparison(name, False, 1.0, 255, 0.0, False,
                               f"size {a.shape[1]}x{a.shape[0]} differs from the golden "
                               f"{b.shape[1]}x{b.shape[0]}")
    diff = np.abs(a - b).max(axis=-1)
    share = float((diff > tolerance).mean())
    identical = not diff.any()
    score = 1.0 if identical else similarity(a, b)
    return FrameComparison(name, identical, share, int(diff.max()), score,
                           identical or share <= max_share)


def diff_image(fresh, golden):
    """A picture of where two frames differ: the golden frame dimmed, changed pixels red
    (brighter = larger difference)."""
    from PIL import Image

    a, b = _rgb(fresh), _rgb(golden)
    diff = np.abs(a - b).max(axis=-1)
    out = (b * 0.3).astype(np.uint8)
    changed = diff > 0
    strength = np.clip(96 + diff[changed] * 2, 0, 255).astype(np.uint8)
    out[changed] = np.stack([strength, np.zeros_like(strength), np.zeros_like(strength)], -1)
    return Image.fromarray(out, "RGB")


def check_against(fresh_dir: Path, golden_dir: Path, names: list[str], *,
                  tolerance: int = DEFAULT_TOLERANCE,
                  max_share: float = DEFAULT_MAX_SHARE) -> list[FrameComparison]:
    """Compare fresh_dir/NAME with golden_dir/NAME for each name; writes NAME.diff.png
    (NAME without .png) beside each fresh frame that fails."""
    results = []
    for name in names:
        fresh, golden = Path(fresh_dir) / name, Path(golden_dir) / name
        if not golden.is_file():      # missing, or a folder, a FIFO, a device
            results.append(FrameComparison(name, False, 1.0, 255, 0.0, False,
                                            f"no golden frame {golden} (a regular PNG file)"))
            continue
        result = compare(name, fresh, golden, tolerance=tolerance, max_share=max_share)
        if not result.passed and not result.reason:
            diff_image(fresh, golden).save(Path(fresh_dir) / (Path(name).stem + ".diff.png"))
        results.append(result)
    return results


def contact_sheet(frames: list[tuple[str, object]], *, columns: int = 3, thumb_width: int = 480):
    """One labelled grid of frames: [(label, PIL image), ...] -> PIL image."""
    from PIL import Image, ImageDraw, ImageFont

    if not frames:
        raise ValueError("no frames for the contact sheet")
    first = frames[0][1]
    thumb_h = round(thumb_width * first.height / first.width)
    label_h, pad = 34, 12
    rows = -(-len(frames) // columns)
    cols = min(columns, len(frames))
    sheet = Image.new("RGB", (pad + cols * (thumb_width + pad),
                              pad + rows * (thumb_h + label_h + pad)), "#111111")
    draw = ImageDraw.Draw(sheet)
    try:
        font = ImageFont.truetype(SHEET_FONT, 22)
    except OSError:
        font = ImageFont.load_default()
    for n, (label, image) in enumerate(frames):
        r, c = divmod(n, columns)
        x, y = pad + c * (thumb_width + pad), pad + r * (thumb_h + label_h + pad)
        sheet.paste(image.convert("RGB").resize((thumb_width, thumb_h), Image.LANCZOS), (x, y))
        draw.text((x + 4, y + thumb_h + 5), f"{n + 1}. {label}", fill="#DDDDDD", font=font)
    return sheet
