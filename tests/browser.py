"""Chromium for the tests that open what we write in a real browser (the web deck, the
view, the docs site): found on the PATH and driven by playwright, or the test skips
saying which is missing."""
from __future__ import annotations

import shutil

import pytest


def browser_or_skip():
    """(Chromium's path, playwright's sync_playwright), or skip saying what is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if chromium is None or sync_playwright is None:
        pytest.skip("no Chromium (apt-get install chromium) or no playwright: nothing was "
                    "opened in a browser")
    return chromium, sync_playwright


def launch(p, chromium):
    """A Chromium that asks nothing of the network by itself (updates, sync, a first run)."""
    return p.chromium.launch(executable_path=chromium, args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"])
