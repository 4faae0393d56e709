"""The README's pictures of the web deck: a lecture pack's index.html in headless Chromium,
on the sparks beat at its key frame (web-deck.png), and its presenter view on that beat
(presenter-view.png).

    attention-explainer pack --out /tmp/pack --resolution 720p
    .venv/bin/python docs/make_deck_picture.py /tmp/pack
"""
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

pack = Path(sys.argv[1]).resolve()
out = Path(__file__).resolve().parent / "web-deck.png"
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"])
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto((pack / "index.html").as_uri() + "#beat-4")
    page.wait_for_function("() => window.deck && window.deck.current() === 3")
    page.evaluate("""() => new Promise(done => {
        const v = document.querySelector('section:not([hidden]) video');
        const seek = () => { v.addEventListener('seeked', () => done(), {once: true});
                             v.currentTime = v.duration * 0.62; };
        if (v.readyState >= 1) seek(); else v.addEventListener('loadedmetadata', seek);
    })""")
    page.wait_for_timeout(300)
    page.screenshot(path=str(out))
    with page.expect_popup() as opened:
        page.keyboard.press("p")
    view = opened.value
    view.set_viewport_size({"width": 960, "height": 720})
    view.wait_for_function("() => document.getElementById('now').textContent !== ''")
    view.wait_for_timeout(2200)            # the clock has run
    view.screenshot(path=str(out.with_name("presenter-view.png")))
    browser.close()
print(out)
