"""Golden regression: numbers first (the model), then frames (the drawing)."""
import shutil
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from attention_core import compute_trace
from attention_core.trace import ARRAY_FIELDS, AttentionTrace
from tests.conftest import ROOT
from tests.make_golden import FRAME_ARGS, GOLDEN, SENTENCE, TRACE

BEATS = ("title", "embed", "project", "sparks", "softmax", "pull", "heads", "mask", "summary")


def frames(*args):
    return subprocess.run([sys.executable, "-c", "import cli; cli.main()", "frames", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_golden_numbers_unchanged():
    """A difference here is a MODEL change (torch, weights, tokenizer or our forward)."""
    golden = AttentionTrace.load(TRACE)
    fresh = compute_trace(SENTENCE)
    assert fresh.tokens == golden.tokens, "model change: tokens differ"
    assert fresh.heads == golden.heads and fresh.layer == golden.layer, \
        "model change: a different layer/head is chosen"
    for name in ARRAY_FIELDS:
        a, b = getattr(fresh, name), getattr(golden, name)
        diff = float(np.abs(a.astype(float) - b.astype(float)).max())
        assert diff <= 1e-5, f"model change: {name} differs from the golden trace by {diff:.2e}"


@pytest.fixture(scope="module")
def fresh_key_frames(tmp_path_factory):
    out = tmp_path_factory.mktemp("fresh")
    proc = frames("--trace", TRACE, *FRAME_ARGS, "--out", out, "--check", GOLDEN)
    return out, proc


def test_golden_frames_unchanged(fresh_key_frames):
    """Drawn from the golden trace, so a difference here is a DRAWING change."""
    out, proc = fresh_key_frames
    assert sorted(p.name for p in GOLDEN.glob("*.png")) == sorted(f"{b}-key.png" for b in BEATS)
    assert proc.returncode == 0, "drawing change:\n" + proc.stderr
    assert not list(out.glob("*.diff.png"))


def test_check_fails_on_a_few_changed_pixels(fresh_key_frames, tmp_path):
    out, _ = fresh_key_frames
    altered = tmp_path / "golden"
    shutil.copytree(GOLDEN, altered)
    pixels = np.asarray(Image.open(altered / "pull-key.png").convert("RGB")).copy()
    pixels[10:12, 10:13] = [255, 0, 255]          # six pixels
    Image.fromarray(pixels).save(altered / "pull-key.png")
    fresh = tmp_path / "fresh"
    proc = frames("--trace", TRACE, "--beat", "pull", "--at", "key", "--resolution", "320x180",
                  "--fps", "10", "--out", fresh, "--check", altered)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "pull-key.png" in lines[0] and "similarity" in lines[0]
    assert (fresh / "pull-key.diff.png").is_file()


def test_pytest_helper_matches_golden():
    from scenes.testing import assert_frame_matches

    assert_frame_matches(GOLDEN / "softmax-key.png", beat="softmax", trace=TRACE, fps=10)
