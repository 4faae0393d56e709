"""Installed like other tools (issue 24): a wheel built from the repository, installed into a
fresh virtual environment (its dependencies the ones `make` set up, so torch is not
installed again), runs from a folder outside the repository and draws a 160x90 still."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.conftest import ROOT


def _source_copy(folder: Path) -> Path:
    """The repository's tracked files, copied (a build writes build/ beside its source:
    never into the repository under test)."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if name.startswith(("tests/golden", "docs/")):
            continue
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, target)
    return folder


def test_a_wheel_installs_and_draws_outside_the_repository(tmp_path):
    source = _source_copy(tmp_path / "source")
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "--no-index", "-w", str(wheels), str(source)],
                   check=True, capture_output=True, cwd=tmp_path)
    wheel = next(wheels.glob("attention_explainer-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the dependencies `make` installed, seen after the new environment's own packages
    (site / "make-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # pip from the make environment, run by the new one's Python (its scripts then start
    # that Python); --ignore-installed: the editable install beside it is left alone
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                    "--no-index", "--ignore-installed", str(wheel)], check=True,
                   capture_output=True)
    command = venv / "bin" / "attention-explainer"
    assert command.is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import attention_explainer as ae; print(ae.__file__, ae.__version__)"],
                           capture_output=True, text=True, cwd=elsewhere, env=env, check=True)
    assert where.stdout.startswith(str(site)), where.stdout     # the wheel's, not the repo's
    proc = subprocess.run([str(command), "frames", "--beat", "title", "--at", "key",
                           "--resolution", "160x90", "--out", "stills"],
                          capture_output=True, text=True, cwd=elsewhere, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    from PIL import Image

    assert Image.open(elsewhere / "stills" / "title-key.png").size == (160, 90)
    version = subprocess.run([str(command), "--version"], capture_output=True, text=True,
                             env=env, cwd=elsewhere)
    from attention_explainer import __version__

    assert __version__ in version.stdout
