"""Green on every machine: the renderer reaches only the fonts it names, frames do not follow
the CPU's maths kernels or the user's font folders, x264 is asked for output that depends on
its input alone, and the default golden comparison tolerates a rasteriser's last level
but not a real change (the measured table: bench/RESULTS.md, "goldens")."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from attention_explainer.scenes.pipeline import encoding
from attention_explainer.scenes.vocabulary import fonts
from attention_explainer.scenes.pipeline.regression import DEFAULT_TOLERANCE, compare
from tests.conftest import run_process
from tests.make_golden import GOLDEN, TRACE


def test_the_shipped_fontconfig_is_the_one_the_font_list_gives():
    assert fonts.CONFIG.read_text() == fonts.config_text()
    assert not fonts.missing_files()


def test_a_drawing_process_reaches_only_the_named_fonts():
    machine = {k: v for k, v in os.environ.items() if k != "FONTCONFIG_FILE"}  # ours is set
    system = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True,
                            env=machine).stdout
    probe = ("import json, manimpango\n"
             "from attention_explainer.scenes.vocabulary import fonts, style\n"
             "style.register_fonts()\n"
             "print(json.dumps([fonts.pinned(), sorted(manimpango.list_fonts())]))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    pinned, families = json.loads(out)
    assert pinned, families
    others = {name for line in system.splitlines() for name in line.split(",")} - set(families)
    assert "DejaVu Sans Mono" in others    # the machine has fonts we do not name ...
    assert not others & set(families)      # ... and the drawing reaches none of them


def _still(tmp_path: Path, name: str, env: dict | None = None, beat: str = "embed") -> Path:
    out = tmp_path / name
    proc = run_process("frames", "--trace", TRACE, "--beat", beat, "--at", "key",
                       "--resolution", "320x180", "--fps", "10", "--out", out, "--check", GOLDEN,
                       "--tolerance", "0", env=env)
    assert proc.returncode == 0, proc.stderr
    return out


def test_frames_do_not_follow_the_cpus_blas_kernels(tmp_path):
    """Before coordinates were snapped, OpenBLAS's Haswell kernels moved the embed beat's
    footnote by 9/255 against the AVX-512 ones: now it is exact."""
    for core in ("Haswell", "Prescott"):
        _still(tmp_path, core, env=dict(os.environ, OPENBLAS_CORETYPE=core,
                                        XDG_CACHE_HOME=str(tmp_path / f"xdg-{core}")))


def test_frames_do_not_follow_the_users_font_folders(tmp_path):
    home = tmp_path / "home"
    (home / ".fonts").mkdir(parents=True)
    for font in Path("/usr/share/fonts/truetype/dejavu").glob("*.ttf"):
        shutil.copy(font, home / ".fonts" / font.name)
    _still(tmp_path, "fonts", beat="pull",
           env=dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(tmp_path / "xdg")))


def test_x264_is_asked_for_output_that_depends_on_its_input_only():
    options = encoding.options("final", 1920, 1080, 30)
    assert options["threads"] == "1"
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    if "sse4_2" in flags:
        assert options["x264-params"].startswith("asm=") and "AVX" not in options["x264-params"]


def test_snapped_coordinates_forget_last_bit_noise():
    from attention_explainer.scenes.pipeline.capture import SNAP, SteadyCamera
    points = np.array([[0.1, -2.3, 0.0], [5.0, 1e-9, 0.0]])
    noisy = points + np.spacing(points) * 3
    camera = SteadyCamera.__new__(SteadyCamera)
    a = camera.transform_points_pre_display(None, points)
    b = camera.transform_points_pre_display(None, noisy)
    assert np.array_equal(a, b)
    assert np.abs(a - points).max() <= 0.5 / SNAP


def _frame():
    rng = np.random.default_rng(3)
    pixels = np.zeros((90, 160, 3), np.uint8)
    pixels[20:70, 30:130] = rng.integers(40, 200, (50, 100, 3))
    return pixels


@pytest.mark.parametrize("delta, passes", [(9, True), (DEFAULT_TOLERANCE, True),
                                           (DEFAULT_TOLERANCE + 1, False), (120, False)])
def test_the_default_comparison_tolerates_an_edge_redrawn_not_a_change(delta, passes):
    golden = _frame()
    fresh = golden.astype(int)
    fresh[40, 50] += delta            # one pixel: an antialiased edge, or a real change
    result = compare("a.png", Image.fromarray(fresh.clip(0, 255).astype(np.uint8)),
                     Image.fromarray(golden))
    assert result.passed is passes
    assert not compare("a.png", Image.fromarray(fresh.clip(0, 255).astype(np.uint8)),
                       Image.fromarray(golden), tolerance=0).passed


def test_a_trace_does_not_follow_the_number_of_cpu_threads():
    """torch splits a product's sums over its threads: a render (every core) and a course's
    worker (one thread) got traces a few last bits apart, so a course drew again every beat
    a render had just drawn (the fingerprint names the beat cache's entries)."""
    import threading

    import torch

    from attention_explainer.attention_core.api import TraceRequest, atlas_for, trace_for

    before = torch.get_num_threads()
    sentence = "The cat ate the fish"
    prints, atlases = set(), set()
    try:
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            prints.add(trace_for(TraceRequest(sentence=sentence)).fingerprint())
            atlases.add(atlas_for(TraceRequest(sentence=sentence)).weights.tobytes())
            assert torch.get_num_threads() == threads          # given back as it was
        # two threads of one process tracing at once: each on one thread, the count back
        torch.set_num_threads(2)
        found = []
        runs = [threading.Thread(target=lambda: found.append(
            trace_for(TraceRequest(sentence=sentence)).fingerprint())) for _ in range(2)]
        for run in runs:
            run.start()
        for run in runs:
            run.join()
        prints.update(found)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert len(prints) == 1 and len(atlases) == 1
