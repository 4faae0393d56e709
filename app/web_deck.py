"""The lecture pack's web deck (index.html): one self-contained page, filled in by
``LecturePack.deck_html``. A template, not code: its braces for CSS and JavaScript are
doubled for ``str.format``."""
from __future__ import annotations

__all__ = ["DECK"]

DECK = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Attention: {title}</title>
<style>
  :root {{ color-scheme: {scheme}; }}
  body {{ margin: 0; background: {stage}; color: {text};
         font: 18px/1.4 "CMU Serif", Georgia, serif;
         display: grid; grid-template-columns: 17rem 1fr; min-height: 100vh; }}
  nav {{ padding: 1.2rem; border-right: 1px solid {line}; }}
  nav h1 {{ font-size: 1.1rem; margin: 0 0 .4rem; color: {ink}; }}
  nav p {{ margin: 0 0 1rem; font-size: .85rem; color: {dim}; }}
  nav ol {{ padding-left: 1.4rem; margin: 0; }}
  nav li {{ margin: .35rem 0; }}
  nav a {{ color: {soft}; text-decoration: none; }}
  nav li.current a {{ color: {current}; }}
  .time {{ color: {dim}; font-size: .8rem; }}
  main {{ display: flex; align-items: center; justify-content: center; padding: 1rem 2rem; }}
  main section {{ width: 100%; max-width: calc((100vh - 11rem) * {aspect}); }}
  section h2 {{ font-weight: normal; margin: 0 0 .6rem; color: {ink}; }}
  video {{ width: 100%; height: auto; background: {stage}; display: block;
          outline: 1px solid {line}; cursor: pointer; }}
  .caption {{ min-height: 2.8em; margin: .5rem 0 0; text-align: center; color: {text};
             font-size: 1.1rem; line-height: 1.4; unicode-bidi: plaintext;
             white-space: pre-line; }}
  .keys {{ margin-top: 1rem; font-size: .8rem; color: {dim}; }}
</style>
</head>
<body>
  <nav>
    <h1>“{sentence}”</h1>
    <p>{model}</p>
    <ol id="chapters">
{chapters}
    </ol>
    <p class="keys">→ space PageDown: next · ← PageUp: back · k or a click: play, pause ·
      f: full screen · p: presenter view (notes, next beat, time)</p>
  </nav>
  <main>
{sections}
  </main>
<script type="application/json" id="notes">{notes}</script>
<script>
(function () {{
  const sections = Array.from(document.querySelectorAll("main section"));
  const items = Array.from(document.querySelectorAll("#chapters li"));
  let current = -1;
  // each clip's captions: its track hidden (the browser would draw them over the
  // picture), the cue of the moment written in the band below it
  sections.forEach((section) => {{
    const video = section.querySelector("video"), band = section.querySelector(".caption");
    const track = video.textTracks[0];
    track.mode = "hidden";
    track.addEventListener("cuechange", () => {{
      // a cue's words as text (its entities decoded, nothing read as markup)
      band.textContent = Array.from(track.activeCues || [])
        .map((cue) => cue.getCueAsHTML().textContent).join("\\n");
    }});
    video.addEventListener("click", () => {{ toggle(video); }});
    // --pauses none: a beat that ends plays the next
    video.addEventListener("ended", () => {{ if (PAUSES === "none") go(current + 1, true); }});
  }});
  function toggle(video) {{
    if (video.paused) {{ playOn(video); }} else {{ video.pause(); }}
  }}
  // --pauses steps: a clip stops where each step of its beat begins (data-steps, its
  // seconds), and the key plays the next step; a key while a step plays completes it
  const PAUSES = "{pauses}";
  let stopAt = null;
  function stops(n) {{
    return (sections[n].dataset.steps || "").split(" ").filter(Boolean).map(Number);
  }}
  function playOn(video) {{
    const next = stops(current).find((t) => t > video.currentTime + 0.05);
    stopAt = PAUSES === "steps" && next !== undefined ? next : null;
    video.play().catch(() => {{}});
  }}
  function stopIfDue() {{
    const video = current >= 0 ? sections[current].querySelector("video") : null;
    if (video && stopAt !== null && !video.paused && video.currentTime >= stopAt - 0.01) {{
      video.pause(); video.currentTime = stopAt; stopAt = null;
    }}
    requestAnimationFrame(stopIfDue);
  }}
  requestAnimationFrame(stopIfDue);
  function advance() {{
    const video = sections[current].querySelector("video");
    if (PAUSES === "steps" && stopAt !== null && !video.paused) {{
      video.pause(); video.currentTime = stopAt; stopAt = null;        // the step, whole
    }} else if (PAUSES === "steps" && video.paused
               && stops(current).some((t) => t > video.currentTime + 0.05)) {{
      playOn(video);
    }} else {{
      go(current + 1, true);
    }}
  }}
  function step() {{          // the step of the beat on screen (from 0)
    const video = sections[current].querySelector("video");
    return stops(current).filter((t) => t <= video.currentTime + 0.05).length;
  }}
  function go(n, play) {{
    n = Math.max(0, Math.min({count} - 1, n));
    if (n === current) return;
    if (current >= 0) {{ sections[current].querySelector("video").pause(); }}
    sections.forEach((s, i) => {{ s.hidden = i !== n; }});
    items.forEach((li, i) => li.classList.toggle("current", i === n));
    current = n;
    const video = sections[n].querySelector("video");
    video.currentTime = 0;
    stopAt = null;
    if (play) {{ playOn(video); }}
    history.replaceState(null, "", "#beat-" + (n + 1));
    showNotes();
  }}
  // the presenter view: a second window with the current beat's notes, the next beat and
  // the time since it opened; its keys drive this page. Filled with textContent only.
  const notes = JSON.parse(document.getElementById("notes").textContent);
  let presenter = null, opened = 0;
  function fill(doc, id, lines, tag) {{
    const box = doc.getElementById(id);
    box.replaceChildren(...lines.map((line) => {{
      const item = doc.createElement(tag); item.textContent = line; return item; }}));
  }}
  function showNotes() {{
    if (!presenter || presenter.closed || current < 0) return;
    const n = notes[current], doc = presenter.document;
    doc.getElementById("now").textContent =
      n.number + ". " + n.title + " (" + Math.round(n.duration) + " s)";
    doc.getElementById("shows").textContent = n.shows;
    fill(doc, "say", n.say, "li");
    fill(doc, "quote", n.quote, "li");
    doc.getElementById("ask").textContent = n.ask;
    doc.getElementById("next").textContent = "Next: " + n.next;
  }}
  function tick() {{
    if (!presenter || presenter.closed) return;
    const s = Math.floor((Date.now() - opened) / 1000);
    presenter.document.getElementById("elapsed").textContent =
      Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }}
  function openPresenter() {{
    if (presenter && !presenter.closed) {{ presenter.focus(); return; }}
    presenter = window.open("", "presenter", "width=960,height=720");
    if (!presenter) return;
    const doc = presenter.document;
    doc.open();
    doc.write(PRESENTER);
    doc.close();
    doc.addEventListener("keydown", (event) =>
      document.dispatchEvent(new KeyboardEvent("keydown", {{ key: event.key }})));
    opened = Date.now();
    showNotes();
    tick();
    setInterval(tick, 250);
  }}
  const PRESENTER = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Presenter view</title><style>
  body {{ margin: 1.5rem 2rem; background: {stage}; color: {text};
         font: 20px/1.45 "CMU Serif", Georgia, serif; }}
  #elapsed {{ float: right; font-size: 2.2rem; color: {ink}; }}
  #now {{ font-size: 1.6rem; color: {ink}; margin: 0 0 .6rem; font-weight: normal; }}
  h3 {{ font-size: 1rem; color: {dim}; margin: 1rem 0 .2rem; font-weight: normal; }}
  ul {{ margin: 0; padding-left: 1.3rem; }}
  #ask {{ color: {current}; }}
  #next {{ color: {soft}; margin-top: 1.2rem; }}
</style></head><body>
<div id="elapsed">0:00</div><h2 id="now"></h2>
<p id="shows"></p><h3>Say</h3><ul id="say"></ul><h3>Quote</h3><ul id="quote"></ul>
<h3>Ask the room</h3><p id="ask"></p><p id="next"></p></body></html>`;
  document.addEventListener("keydown", (event) => {{
    if (event.key === "ArrowRight" || event.key === " " || event.key === "PageDown") {{
      event.preventDefault(); advance();
    }} else if (event.key === "ArrowLeft" || event.key === "PageUp") {{
      event.preventDefault(); go(current - 1, true);
    }} else if (event.key === "p") {{
      openPresenter();
    }} else if (event.key === "k") {{
      toggle(sections[current].querySelector("video"));
    }} else if (event.key === "f") {{
      const video = sections[current].querySelector("video");
      if (document.fullscreenElement) {{ document.exitFullscreen(); }}
      else {{ video.requestFullscreen().catch(() => {{}}); }}
    }}
  }});
  items.forEach((li, i) => li.querySelector("a").addEventListener("click", (event) => {{
    event.preventDefault(); go(i, true);
  }}));
  const start = parseInt((location.hash.match(/^#beat-(\\d+)$/) || [0, 1])[1], 10) - 1;
  go(start, false);
  window.deck = {{ go: go, current: () => current, count: {count}, step: step }};
}})();
</script>
</body>
</html>
"""
