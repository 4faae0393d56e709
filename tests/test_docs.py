"""The documentation: a README a newcomer reads in five minutes, and a site built from the
repository offline and strictly (a warning, a broken link or anchor fails it), whose
storyboard, command-line and API pages are written from the code when it is built."""
from __future__ import annotations

import shutil
import subprocess
import sys

from tests.conftest import ROOT


def build(config, site) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(config), "--site-dir", str(site)], capture_output=True,
                          text=True, timeout=300)


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150, len(lines)


def test_the_site_builds_strictly_with_its_pages_from_the_code(tmp_path):
    from attention_explainer.cli import COMMANDS
    from attention_explainer.facts import BEATS

    proc = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-3000:]
    storyboard = (tmp_path / "site" / "storyboard" / "index.html").read_text(encoding="utf-8")
    assert all(f"<td>{b.name}</td>" in storyboard for b in BEATS)
    cli = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    assert all(f"attention-explainer {name} [OPTIONS]" in cli for name in COMMANDS)
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert "ae.render" in api and "assert_frame_matches" in api


def test_a_broken_link_fails_the_build(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "course.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the missing page](gone.md).\n",
                    encoding="utf-8")
    proc = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0 and "gone.md" in proc.stderr, proc.stderr[-2000:]
