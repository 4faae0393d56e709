"""A beat renders alone with plain `manim`, from a saved trace named by the environment."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.make_golden import TRACE


@pytest.mark.parametrize("module, scene", [("title", "TitleBeat"), ("softmax", "SoftmaxBeat")])
def test_plain_manim_renders_a_beat(module, scene, tmp_path):
    manim = Path(sys.executable).parent / "manim"
    env = dict(os.environ, ATTENTION_EXPLAINER_TRACE=str(TRACE))
    proc = subprocess.run([str(manim), "render", "-r", "160,90", "--fps", "5", "--disable_caching",
                           "--media_dir", str(tmp_path), str(ROOT / "scenes" / "beats" / f"{module}.py"),
                           scene], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    videos = [p for p in tmp_path.rglob(f"{scene}.mp4") if "partial" not in str(p)]
    assert videos and videos[0].stat().st_size > 1000
