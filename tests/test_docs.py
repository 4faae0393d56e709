"""The documentation: a README a newcomer reads in five minutes, and a site built from the
repository offline and strictly (a warning, a broken link or anchor fails it), whose
storyboard, command-line and API pages are written from the code when it is built."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.browser import browser_or_skip, launch
from tests.conftest import ROOT


def build(config, site) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(config), "--site-dir", str(site)], capture_output=True,
                          text=True, timeout=300)


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150, len(lines)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built once as `make docs` builds it."""
    folder = tmp_path_factory.mktemp("docs") / "site"
    proc = build(ROOT / "mkdocs.yml", folder)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-3000:]
    return folder


def test_the_site_builds_strictly_with_its_pages_from_the_code(site):
    from attention_explainer.cli import COMMANDS
    from attention_explainer.facts import BEATS

    storyboard = (site / "storyboard.html").read_text(encoding="utf-8")
    assert all(f"<td>{b.name}</td>" in storyboard for b in BEATS)
    cli = (site / "cli.html").read_text(encoding="utf-8")
    assert all(f"attention-explainer {name} [OPTIONS]" in cli for name in COMMANDS)
    api = (site / "api.html").read_text(encoding="utf-8")
    assert "ae.render" in api and "assert_frame_matches" in api


def test_the_site_opened_from_disk_navigates_and_searches_offline(site):
    """Opened as a lecturer opens it, from the folder (file://): every link of the side
    menu opens its page (not a folder's listing), the search box finds a page, and no
    request leaves the folder (no CDN, no font, no analytics)."""
    chromium, sync_playwright = browser_or_skip()
    inside = site.as_uri() + "/"
    requests, errors = [], []
    with sync_playwright() as p:
        browser = launch(p, chromium)
        page = browser.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(inside + "index.html")
        links = page.eval_on_selector_all(".wy-menu-vertical a[href]",
                                          "links => links.map(a => a.href)")
        pages = sorted({link.split("#")[0] for link in links})
        assert len(pages) >= 15, pages
        for address in pages:
            page.goto(address)
            title = page.title()
            assert page.locator(".rst-content h1").count() >= 1, (address, title)
            assert not title.startswith("Index of"), address
        page.goto(inside + "index.html")
        page.fill("#rtd-search-form input[name=q]", "golden")
        page.press("#rtd-search-form input[name=q]", "Enter")
        page.wait_for_selector("#mkdocs-search-results article a", timeout=20000)
        found = page.eval_on_selector_all("#mkdocs-search-results article a",
                                          "links => links.map(a => a.href)")
        assert any(link.startswith(inside + "goldens.html") for link in found), found
        page.goto(found[0])
        assert page.locator(".rst-content h1").count() >= 1
        page.goto(inside + "search.html?q=zzqxnotaword")
        page.wait_for_function("() => document.querySelector('#mkdocs-search-results')"
                               ".textContent.includes('No results')", timeout=20000)
        browser.close()
    assert not errors, errors
    outside = [url for url in requests if not url.startswith((inside, "data:"))]
    assert requests and not outside, outside


def test_a_broken_link_fails_the_build(tmp_path):
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "course.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the missing page](gone.md).\n",
                    encoding="utf-8")
    proc = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0 and "gone.md" in proc.stderr, proc.stderr[-2000:]
