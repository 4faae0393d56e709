"""The interactive view's page (``view.view_page`` fills in its data and colours): the head
view (every head of a layer at once, a colour and a checkbox each, a token's weights as
lines), the q·k breakdown of one head, the silence buttons, and the model view (a
thumbnail of every layer × head, tagged; a click opens it in the head view). Every
thumbnail carries ``data-layer`` and ``data-head``, every head's toggle is an
``<input type="checkbox" data-head=…>``: a user's own script finds them."""
from __future__ import annotations

__all__ = ["PAGE", "PAIR"]

# two views side by side (view --versus): each sentence's page in a frame of its own (the
# same page as alone), what `compare` prints above them, the layer, head and heads shown
# kept the same in both
PAIR = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%TITLE%</title>
<style>
 body { background:%BG%; color:%TEXT%; font: 15px/1.4 "CMU Serif", Georgia, serif;
        margin: 16px; }
 #pair { display:flex; gap: 12px; } #pair iframe { flex: 1 1 50%; min-width: 0;
        height: 92vh; border: 1px solid %DIM%; }
 pre { font-size: 13px; overflow-x: auto; } .dim { color:%DIM%; }
</style></head><body>
<h3>%TITLE%</h3>
<details open><summary class="dim">the pair compared (what <code>compare</code> prints)</summary>
<pre id="compare">%COMPARE%</pre></details>
<div id="pair">
<iframe id="a" title="%A%" srcdoc="%PAGE_A%"></iframe>
<iframe id="b" title="%B%" srcdoc="%PAGE_B%"></iframe>
</div>
<script>
const frames = [document.getElementById("a"), document.getElementById("b")];
window.viewMoved = (from, layer, head, shown) => {
  for (const f of frames) if (f.contentWindow !== from && f.contentWindow.viewShow)
    f.contentWindow.viewShow(layer, head, shown); };
// both open at the layer and head the comparison explains, that head's lines alone
const [LAYER, HEAD] = %OPEN%;
let loaded = 0;
for (const f of frames) f.addEventListener("load", () => { if (++loaded === 2) {
  const heads = frames[0].contentWindow.viewState()[2].map((_, h) => h === HEAD);
  for (const g of frames) g.contentWindow.viewShow(LAYER, HEAD, heads); } });
</script></body></html>
"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%TITLE%</title>
<style>
 body { background:%BG%; color:%TEXT%; font: 15px/1.4 "CMU Serif", Georgia, serif; margin: 16px;
        max-width: 100%; }
 select, button { font: inherit; }
 #pick, #toggles { margin-bottom: 8px; } .dim { color:%DIM%; }
 #toggles label { margin-right: 8px; white-space: nowrap; }
 #toggles .swatch { display:inline-block; width: 10px; height: 10px; margin-right: 3px; }
 #stage { display:flex; gap: 24px; align-items:flex-start; }
 svg text { fill:%TEXT%; font: 14px "CMU Serif", Georgia, serif; cursor: default; }
 svg text.query { fill:%QUERY%; } svg text.key { fill:%KEY%; }
 svg text.on { font-weight: bold; text-decoration: underline; }
 #detail { flex: 1 1 240px; min-width: 220px; max-width: 420px; position: sticky; top: 8px;
           max-height: 92vh; overflow-y: auto; }
 #silence button { margin: 0 4px 4px 0; } #effect { margin-top: 4px; }
 #model { display:grid; gap: 6px; margin-top: 8px; overflow-x: auto;
          justify-content: start; align-items: center; }
 #model .cell { font-size: 11px; text-align: center; cursor: pointer; }
 #model .name { white-space: nowrap; } #legend { font-size: 12px; max-width: 900px; }
 #model canvas { display:block; margin: 0 auto; border: 1px solid %DIM%; }
 #model .cell.on canvas { outline: 2px solid %QUERY%; }
</style></head><body>
<h3>%TITLE%</h3>
<div id="pick">layer <select id="layer"></select> head <select id="head"></select>
 <span class="dim">(the head whose q·k is explained) — hover a token on the left (its
 query), then one on the right (a key)</span></div>
<div id="toggles"></div><div id="hint" class="dim"></div>
<div id="stage"><svg id="lines"></svg><div id="detail"></div></div>
<div id="silence"></div>
<h4>Every layer and head <span class="dim">(rows: queries, columns: keys; each shaded to
 its own largest weight; click one to open it above)</span></h4>
<div id="model"></div>
<p id="legend" class="dim">Tags, each a share of the head's weight measured against an
 even head's on the same sentence (tagged when 0.15 above it): sink — on the special
 tokens and the first one; previous, next, self — on the token before, after, itself;
 punctuation; content — on content words; none — no pattern that far above an even
 head's.</p>
<script>
const D = %DATA%;
function floats(b64) { const s = atob(b64), u = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); return new Float32Array(u.buffer); }
const W = floats(D.weights), Q = floats(D.q), K = floats(D.k);
const B = Uint8Array.from(atob(D.blocked), c => c.charCodeAt(0));   // 1: masked
const T = D.T, d = D.d, H = D.H, L = D.L;
// a layer of many heads and tokens draws the hovered token's lines alone
const LAZY = H * T * T > 30000;
let layer = D.film[0], head = D.film[1], hovered = null, key = null, incoming = null;
const on = new Array(H).fill(true);
function esc(s) { return String(s).replace(/[&<>"']/g, c => "&#" + c.charCodeAt(0) + ";"); }
function weight(l, h, i, j) { return W[((l * H + h) * T + i) * T + j]; }
function masked(l, i, j) { return B[(l * T + i) * T + j] === 1; }
function vec(A, l, h, i) { const at = ((l * H + h) * T + i) * d; return A.subarray(at, at + d); }
window.viewWeight = weight;
const ROW = 22, svg = document.getElementById("lines"), NS = "http://www.w3.org/2000/svg";
svg.setAttribute("width", 420); svg.setAttribute("height", ROW * T + 10);
function lines(queries, only = null) {  // each head's lines of each query (into ``only``)
  for (const old of svg.querySelectorAll("g")) old.remove();
  const first = svg.firstChild;
  for (const i of queries) for (let h = 0; h < H; h++) {
    const g = document.createElementNS(NS, "g");
    g.setAttribute("data-i", i); g.setAttribute("data-head", h);
    for (let j = 0; j < T; j++) {
      if (only !== null && j !== only) continue;
      const line = document.createElementNS(NS, "line");
      line.setAttribute("x1", 130); line.setAttribute("y1", ROW * i + 15);
      line.setAttribute("x2", 290); line.setAttribute("y2", ROW * j + 15);
      line.setAttribute("stroke", D.heads[h]); line.setAttribute("stroke-width", 2);
      line.setAttribute("stroke-opacity", weight(layer, h, i, j).toFixed(4));
      line.setAttribute("data-i", i); line.setAttribute("data-j", j);
      line.style.pointerEvents = "none";
      g.appendChild(line);
    }
    svg.insertBefore(g, first);
  }
}
function draw() {            // the layer's lines and the tokens
  svg.innerHTML = "";
  for (let i = 0; i < T; i++) for (const side of ["query", "key"]) {
    const t = document.createElementNS(NS, "text");
    t.textContent = D.tokens[i]; t.setAttribute("class", side);
    t.setAttribute("x", side === "query" ? 120 : 300); t.setAttribute("y", ROW * i + 20);
    if (side === "query") t.setAttribute("text-anchor", "end");
    if (D.special[i]) t.setAttribute("opacity", 0.6);
    t.setAttribute("data-i", i);
    if (D.cut[i] || D.named[i] !== "\u2018" + D.tokens[i] + "\u2019") {
      const tip = document.createElementNS(NS, "title"); tip.textContent = D.named[i];
      t.appendChild(tip); }
    t.addEventListener("mouseenter", () => {
      if (side === "query") { hovered = i; incoming = null; if (LAZY) lines([i]); }
      else { key = i;                    // no query hovered: the lines into this key
        if (hovered === null) { incoming = i; if (LAZY) lines([...Array(T).keys()], i); } }
      shown(); explain(); });
    svg.appendChild(t);
  }
  lines(LAZY ? (hovered === null ? [] : [hovered]) : [...Array(T).keys()]);
  shown();
}
// the mouse leaves the drawing: every query's lines again (bertviz's overview)
svg.addEventListener("mouseleave", () => { hovered = null; key = null; incoming = null;
  if (LAZY) lines([]); shown(); });
function shown() {          // a checked head's lines; a hovered query's alone
  for (const g of svg.querySelectorAll("g")) {
    const mine = on[+g.getAttribute("data-head")] &&
                 (hovered === null || +g.getAttribute("data-i") === hovered);
    g.setAttribute("visibility", mine ? "visible" : "hidden");
  }
  if (!LAZY) for (const line of svg.querySelectorAll("line"))
    line.setAttribute("visibility", incoming === null || hovered !== null ||
                      +line.getAttribute("data-j") === incoming ? "inherit" : "hidden");
  for (const t of svg.querySelectorAll("text")) {
    const i = +t.getAttribute("data-i");
    t.classList.toggle("on", t.classList.contains("query") ? i === hovered : i === key);
  }
  document.getElementById("hint").textContent = LAZY && hovered === null ?
    `This layer has ${H * T * T} lines: hover a token to draw its own.` : "";
}
function explain() {
  const box = document.getElementById("detail");
  if (hovered === null) { box.innerHTML = ""; return; }
  let out = `<p>Layer ${layer}, head ${head}: the query of <b>${esc(D.named[hovered])}</b>` +
            ` (tag: ${esc(D.tags[layer][head])})</p>`;
  if (key !== null && masked(layer, hovered, key)) {
    out += `<p><b>${esc(D.named[key])}</b> is masked for this query (a decoder's query ` +
           `never sees a later token): its score is set to −∞ before the softmax, its ` +
           `weight is 0, whatever q·k is.</p>`;
  } else if (key !== null) {
    const q = vec(Q, layer, head, hovered), k = vec(K, layer, head, key);
    let dot = 0; const parts = [];
    for (let n = 0; n < d; n++) { dot += q[n] * k[n]; parts.push(q[n] * k[n]); }
    const top = parts.map((p, n) => [Math.abs(p), n]).sort((a, b) => b[0] - a[0]).slice(0, 8);
    out += `<p>q·k with <b>${esc(D.named[key])}</b>: the sum of ${d} products = ${dot.toFixed(3)};` +
           ` ÷√${d} = ${(dot / Math.sqrt(d)).toFixed(3)}; after softmax its weight is` +
           ` <b>${weight(layer, head, hovered, key).toFixed(3)}</b></p><p class="dim">the largest products:</p>`;
    for (const [, n] of top) out += `<div>q[${n}]·k[${n}] = ${parts[n].toFixed(3)}</div>`;
  }
  box.innerHTML = out;
}
function toggles() {        // a checkbox per head, in its colour
  const box = document.getElementById("toggles");
  box.innerHTML = '<span class="dim">heads drawn (double-click one for it alone): </span>';
  const all = document.createElement("button"); all.textContent = "all heads"; all.id = "all";
  all.addEventListener("click", () => { on.fill(true); toggles(); shown(); told(); });
  for (let h = 0; h < H; h++) {
    const label = document.createElement("label"), box1 = document.createElement("input");
    box1.type = "checkbox"; box1.checked = on[h]; box1.setAttribute("data-head", h);
    box1.addEventListener("change", () => { on[h] = box1.checked; shown(); told(); });
    const swatch = document.createElement("span");
    swatch.className = "swatch"; swatch.style.background = D.heads[h];
    label.append(box1, swatch, String(h)); box.appendChild(label);
    label.addEventListener("dblclick", (e) => { e.preventDefault();
      for (let x = 0; x < H; x++) on[x] = x === h; toggles(); shown(); told(); });
  }
  box.appendChild(all);
}
function silence() {        // each head of the measured layer silenced alone
  const box = document.getElementById("silence"), S = D.silencing;
  if (!S) { box.innerHTML = D.unsilenced ? `<p class="dim">${esc(D.unsilenced)}</p>` : "";
            return; }
  if (layer !== S.layer) {
    box.innerHTML = `<p class="dim">Silencing is measured in layer ${S.layer}, the layer ` +
      `<code>inspect --ablation</code> measures; ` +
      `<code>inspect --ablation --layer ${layer}</code> measures this one.</p>`; return; }
  box.innerHTML = `<span class="dim">silence one head of layer ${S.layer} (its output ` +
    `zeroed before W_O) and see the ${esc(S.output)} change: </span>`;
  for (let h = 0; h < H; h++) {
    const b = document.createElement("button"); b.textContent = "silence " + h;
    b.setAttribute("data-head", h); b.className = "silence";
    b.addEventListener("click", () => {
      const r = S.heads[h];
      document.getElementById("effect").innerHTML = `Head ${h} of layer ${S.layer} ` +
        `silenced: the ${esc(S.output)} moves by <b data-effect>${r.effect}</b> ` +
        `${esc(S.unit)}${r.beside ? " (" + esc(r.beside) + ")" : ""}. The weight it ` +
        `gives the words that answer the focus ${esc(S.focus)} (<code>inspect --ablation</code>'s ` +
        `"weight on the answer"): ${r.answer}.`;
    });
    box.appendChild(b);
  }
  const effect = document.createElement("div"); effect.id = "effect"; box.appendChild(effect);
}
function thumbnails() {     // the model view: every layer x head, its pattern and tag
  const grid = document.getElementById("model");
  const fits = Math.floor((document.body.clientWidth - 90) / H) - 10;
  const size = Math.max(16, Math.min(72, 4 * T, fits));
  grid.innerHTML = ""; grid.style.gridTemplateColumns = `auto repeat(${H}, ${size + 4}px)`;
  for (let l = 0; l < L; l++) {
    const name = document.createElement("div"); name.className = "dim name";
    name.textContent = "layer " + l; grid.appendChild(name);
    for (let h = 0; h < H; h++) {
      const cell = document.createElement("div"), c = document.createElement("canvas");
      cell.className = "cell" + (l === layer && h === head ? " on" : "");
      cell.setAttribute("data-layer", l); cell.setAttribute("data-head", h);
      const [share, chance, of] = D.shares[l][h];
      cell.title = `layer ${l}, head ${h}: ${D.tags[l][h]} (${of} ${share.toFixed(2)} ` +
                   `of its weight; an even head's ${chance.toFixed(2)})`;
      c.width = c.height = size; const g = c.getContext("2d"), s = size / T;
      g.fillStyle = D.colours.background; g.fillRect(0, 0, size, size);
      g.fillStyle = D.heads[h];
      let most = 0;
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) most = Math.max(most, weight(l, h, i, j));
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
        g.globalAlpha = most > 0 ? weight(l, h, i, j) / most : 0; g.fillRect(j * s, i * s, s, s); }
      cell.append(c, D.tags[l][h]);
      cell.addEventListener("click", () => { layer = l; head = h;
        for (let x = 0; x < H; x++) on[x] = x === h; sync(); });
      grid.appendChild(cell);
    }
  }
}
function sync(quietly) { document.getElementById("layer").value = layer;
  document.getElementById("head").value = head;
  draw(); explain(); toggles(); silence();
  for (const cell of document.querySelectorAll("#model .cell"))
    cell.classList.toggle("on", +cell.dataset.layer === layer && +cell.dataset.head === head);
  if (!quietly) told(); }
// a pair's page (view --versus) shows the other sentence's view at the same layer and heads
function told() { if (window.parent !== window && window.parent.viewMoved)
  window.parent.viewMoved(window, layer, head, on.slice()); }
window.viewShow = (l, h, shown) => { layer = l; head = h;
  for (let x = 0; x < H; x++) on[x] = x < shown.length ? shown[x] : false; sync(true); };
window.viewState = () => [layer, head, on.slice()];
for (const [id, n] of [["layer", L], ["head", H]]) { const s = document.getElementById(id);
  for (let x = 0; x < n; x++) s.add(new Option(x, x));
  s.addEventListener("change", () => { layer = +document.getElementById("layer").value;
    head = +document.getElementById("head").value;
    if (id === "head") for (let x = 0; x < H; x++) on[x] = x === head;   // the picked head's lines
    sync(); }); }
thumbnails(); sync(true);
</script></body></html>
"""
