"""Regenerate tests/golden on purpose (`make golden`): the key frame of every beat drawn from
the default sentence's saved trace (`python -m tests.make_golden --new-trace` computes the
trace again first), small (320x180, 10 fps), for the regression tests.

Numbers first: the frames are drawn from the saved golden trace, so a frame change with
unchanged numbers is a drawing change, and changed numbers are a model change.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
SENTENCE = "The cat ate the fish"
TRACE = GOLDEN / "default-trace.npz"
FRAME_ARGS = ["--beat", "all", "--at", "key", "--resolution", "320x180", "--fps", "10"]
# a film with its captions burnt in: its poster (the key frame above the caption band)
BURNT_ARGS = ["--beats", "softmax", "--resolution", "320x180", "--fps", "10", "--burn-captions"]
BURNT_POSTER = GOLDEN / "burnt" / "poster.png"     # beside, not among, the key frames


def cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "attention_explainer.cli", *args], cwd=ROOT, check=True)


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for old in GOLDEN.glob("*.png"):
        old.unlink()
    # the saved trace stays unless asked for anew (--new-trace): recomputed on another
    # machine its last bits differ (SIMD, threads), and a drawing change would then come
    # with a numbers change it did not make
    if "--new-trace" in sys.argv[1:] or not TRACE.is_file():
        cli("inspect", SENTENCE, "--npz", str(TRACE), "--force")
    cli("frames", "--trace", str(TRACE), *FRAME_ARGS, "--out", str(GOLDEN), "--force")
    with tempfile.TemporaryDirectory() as scratch:
        cli("render", "--trace", str(TRACE), *BURNT_ARGS, "--quiet", "-o",
            str(Path(scratch) / "burnt.mp4"))
        BURNT_POSTER.parent.mkdir(exist_ok=True)
        shutil.copyfile(Path(scratch) / "burnt.png", BURNT_POSTER)
    print(f"golden trace and frames written to {GOLDEN}")


if __name__ == "__main__":
    main()
