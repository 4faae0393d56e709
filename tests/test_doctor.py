"""`doctor` (issue 24): on this machine every line is ok; with a font the film's fontconfig
does not reach, or without espeak-ng, the matching line says what to install, on each
system; a drawing command without its fonts says so in one line and points to doctor."""
from __future__ import annotations

import os
import shutil
import sys

import pytest


def lines_of(out: str) -> dict[str, str]:
    return {line.split(":", 1)[0].split(None, 1)[1]: line for line in out.strip().splitlines()}


def test_every_line_is_ok_here(run_cli):
    """Every part here is ok: what a film needs, and the optional programs `make test`
    installs (Chromium, LibreOffice, espeak-ng), where they are installed."""
    code, out, err = run_cli("doctor")
    assert code == 0, out + err
    lines = out.strip().splitlines()
    assert len(lines) >= 15
    optional = {"Chromium": ("chromium", "chromium-browser"),
                "LibreOffice": ("soffice", "libreoffice"), "espeak-ng": ("espeak-ng",)}
    for item, line in lines_of(out).items():
        if item in optional and not any(shutil.which(n) for n in optional[item]):
            assert line.startswith("missing "), line       # said, with how to install it
            continue
        assert line.startswith("ok "), line
    found = lines_of(out)
    for item in ("Cairo and Pango", "font CMU Serif", "font Noto Sans CJK", "codec libx264",
                 "bundled model", "CUDA", "Chromium", "LibreOffice", "espeak-ng",
                 "beat cache"):
        assert item in found, item


def test_a_font_the_fontconfig_lacks(tmp_path, run_cli, monkeypatch):
    """A fontconfig like the film's that does not reach CMU Serif: its line says where it
    should be found and how to install it on Debian, Fedora and macOS; doctor exits 1."""
    from attention_explainer.scenes.vocabulary import fonts

    without = [f for f in fonts.FONT_FILES if "cmunrm" not in f]
    config = tmp_path / "fonts.conf"
    config.write_text(fonts.config_text(without))
    monkeypatch.setattr(fonts, "CONFIG", config)
    code, out, err = run_cli("doctor")
    assert code == 1 and "a film needs is missing" in err
    line = lines_of(out)["font CMU Serif"]
    assert line.startswith("MISSING ")
    assert "gives /usr/share/fonts" in line and "instead" in line
    assert "Debian/Ubuntu `sudo apt-get install fonts-cmu`" in line
    assert "Fedora `" in line and "macOS `brew install --cask font-computer-modern`" in line
    assert lines_of(out)["font CMU Serif Bold"].startswith("ok ")


def test_no_espeak_ng(tmp_path):
    """Without espeak-ng on PATH its line says what to install; it is optional: exit 0."""
    import subprocess

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("fc-match", "chromium", "soffice"):
        found = shutil.which(program)
        if found:
            os.symlink(found, bin_dir / program)
    env = dict(os.environ, PATH=str(bin_dir))
    proc = subprocess.run([sys.executable, "-m", "attention_explainer.cli", "doctor"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    line = lines_of(proc.stdout)["espeak-ng"]
    assert line.startswith("missing ")
    assert "`sudo apt-get install espeak-ng`" in line and "`brew install espeak-ng`" in line


def test_a_drawing_command_without_its_fonts_points_to_doctor(run_cli, monkeypatch, tmp_path):
    from attention_explainer.scenes.vocabulary import fonts

    monkeypatch.setattr(fonts, "BASE_FONT_FILES",
                        ("/nonexistent/cmunrm.ttf", *fonts.BASE_FONT_FILES[1:]))
    code, out, err = run_cli("frames", "--beat", "title", "--at", "key", "--out",
                             tmp_path / "stills")
    assert code == 2
    assert err.strip().splitlines() == [
        "Error: the film's font /nonexistent/cmunrm.ttf is missing; run "
        "`attention-explainer doctor` to see what to install."]
    assert not (tmp_path / "stills").exists()


@pytest.mark.parametrize("argv", [["--help"], ["doctor", "--help"]])
def test_doctor_is_listed(argv, run_cli):
    code, out, _ = run_cli(*argv)
    assert code == 0 and "doctor" in out


def test_the_beat_cache_line_is_what_a_render_finds(run_cli, monkeypatch, tmp_path):
    """doctor makes and writes the cache's folder as a render would: a cache folder under
    a file is said to be unusable (it said ok, and the next `frames` said otherwise), the
    cache switched off is said to be off."""
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file" / "cache"))
    code, out, err = run_cli("doctor")
    line = lines_of(out)["beat cache"]
    assert line.startswith("missing ") and "cannot be used" in line, line
    code, out, err = run_cli("frames", "--beat", "title", "--resolution", "64x36",
                             "--out", tmp_path / "stills")
    assert code == 0 and "cannot be used" in err, err          # what doctor said
    monkeypatch.setenv("ATTENTION_EXPLAINER_CACHE_MB", "0")
    code, out, err = run_cli("doctor")
    assert lines_of(out)["beat cache"].startswith("ok ") and "off" in lines_of(out)["beat cache"]


def test_a_cuda_build_of_torch_without_a_gpu_is_said(run_cli, monkeypatch):
    """Where pip took PyPI's CUDA build (the CPU index out of reach), doctor says so, with
    the size of the GPU libraries and the command that swaps in the CPU wheel (it said
    "for a GPU install a CUDA build of torch" of a CUDA build); and a dry run still plans
    (its trace is then never kept: no key where the device may be a GPU)."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", "12.8")
    monkeypatch.setattr(torch, "__version__", "2.13.0")
    from importlib import metadata

    real = metadata.version
    monkeypatch.setattr(metadata, "version",
                        lambda name: "2.13.0" if name == "torch" else real(name))
    code, out, err = run_cli("doctor")
    line = lines_of(out)["CUDA"]
    assert "is a CUDA 12.8 build" in line and "GB of GPU libraries" in line
    assert "pip install --force-reinstall torch==2.13.0 --index-url " \
           "https://download.pytorch.org/whl/cpu" in line
    code, out, err = run_cli("render", "--dry-run", "--resolution", "96x54")
    assert code == 0, err
