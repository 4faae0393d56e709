"""An interactive view of every layer and head on a sentence, as one self-contained HTML
file (no CDN, no network; inline in Jupyter too): pick a layer and a head, hover a token
to see where its weight goes as lines (bertviz's head view), hover a key too to see the
query·key products that make their score, its ÷√d and its weight; every head's pattern
tag (the atlas's), clickable. The numbers are the model's, from one run: the weights, q
and k as float32, exactly."""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import numpy as np

__all__ = ["view_page", "write_view"]


def _floats(array) -> str:
    """A float32 array as base64 (little-endian), for a Float32Array in the page."""
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode()


def view_data(layers, atlas, palette) -> dict:
    """What the page draws, from ``layers`` (an Attentions), ``atlas`` (the patterns) and
    the theme's ``palette``."""
    L, H, T, d = layers.q.shape
    return {
        "sentence": layers.sentence, "model": layers.model, "tokens": list(layers.tokens),
        "special": [bool(s) for s in layers.special], "L": L, "H": H, "T": T, "d": d,
        "weights": _floats(layers.weights), "q": _floats(layers.q), "k": _floats(layers.k),
        "tags": [[p.tag for p in atlas.patterns[n * H:(n + 1) * H]] for n in range(L)],
        "film": [atlas.film_layer, atlas.film_head],
        "colours": {"background": palette.background, "text": palette.text,
                    "dim": palette.dim, "query": palette.query, "key": palette.key,
                    "line": palette.ink, "faint": palette.faint},
    }


def view_page(data: dict) -> str:
    """The whole page: its data, style and script inline."""
    c = data["colours"]
    title = html.escape(f"{data['sentence']} · {data['model']}")
    embedded = json.dumps(data).replace("</", "<\\/")     # a token may hold "</script>"
    return _PAGE.replace("%TITLE%", title).replace("%DATA%", embedded) \
        .replace("%BG%", c["background"]).replace("%TEXT%", c["text"]) \
        .replace("%DIM%", c["dim"]).replace("%QUERY%", c["query"]).replace("%KEY%", c["key"])


def write_view(layers, atlas, palette, path: Path) -> None:
    Path(path).write_text(view_page(view_data(layers, atlas, palette)), encoding="utf-8")


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%TITLE%</title>
<style>
 body { background:%BG%; color:%TEXT%; font: 15px/1.4 "CMU Serif", Georgia, serif; margin: 16px; }
 select, button { font: inherit; }
 #pick { margin-bottom: 10px; } .dim { color:%DIM%; }
 #stage { display:flex; gap: 24px; align-items:flex-start; }
 svg text { fill:%TEXT%; font: 14px "CMU Serif", Georgia, serif; cursor: default; }
 svg text.query { fill:%QUERY%; } svg text.key { fill:%KEY%; }
 #tags { border-collapse: collapse; font-size: 12px; margin-top: 12px; }
 #tags td { border: 1px solid %DIM%; padding: 2px 4px; cursor: pointer; }
 #tags td.on { outline: 2px solid %QUERY%; }
 #detail { max-width: 420px; } #detail .bar { display:inline-block; height:8px; }
</style></head><body>
<h3>%TITLE%</h3>
<div id="pick">layer <select id="layer"></select> head <select id="head"></select>
 <span class="dim">hover a token on the left (its query), then one on the right (a key)</span></div>
<div id="stage"><svg id="lines"></svg><div id="detail"></div></div>
<table id="tags"></table>
<script>
const D = %DATA%;
function floats(b64) { const s = atob(b64), u = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); return new Float32Array(u.buffer); }
const W = floats(D.weights), Q = floats(D.q), K = floats(D.k);
const T = D.T, d = D.d, H = D.H;
let layer = D.film[0], head = D.film[1], hovered = null, key = null;
function esc(s) { return String(s).replace(/[&<>"']/g, c => "&#" + c.charCodeAt(0) + ";"); }
function weight(l, h, i, j) { return W[((l * H + h) * T + i) * T + j]; }
function vec(A, l, h, i) { const at = ((l * H + h) * T + i) * d; return A.subarray(at, at + d); }
window.viewWeight = weight;
const ROW = 22, svg = document.getElementById("lines"), NS = "http://www.w3.org/2000/svg";
svg.setAttribute("width", 420); svg.setAttribute("height", ROW * T + 10);
function draw() {            // the head's lines and the tokens, built once per head
  svg.innerHTML = "";
  const groups = [];             // a query's lines in one group: a hover shows one group
  for (let i = 0; i < T; i++) {
    const g = document.createElementNS(NS, "g"); g.setAttribute("data-i", i);
    svg.appendChild(g); groups.push(g); }
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
    const line = document.createElementNS(NS, "line");
    line.setAttribute("x1", 130); line.setAttribute("y1", ROW * i + 15);
    line.setAttribute("x2", 290); line.setAttribute("y2", ROW * j + 15);
    line.setAttribute("stroke", D.colours.line); line.setAttribute("stroke-width", 2);
    line.setAttribute("stroke-opacity", weight(layer, head, i, j).toFixed(4));
    line.setAttribute("data-i", i); line.setAttribute("data-j", j);
    line.style.pointerEvents = "none";
    groups[i].appendChild(line);
  }
  for (let i = 0; i < T; i++) for (const side of ["query", "key"]) {
    const t = document.createElementNS(NS, "text");
    t.textContent = D.tokens[i]; t.setAttribute("class", side);
    t.setAttribute("x", side === "query" ? 120 : 300); t.setAttribute("y", ROW * i + 20);
    if (side === "query") t.setAttribute("text-anchor", "end");
    if (D.special[i]) t.setAttribute("opacity", 0.6);
    t.addEventListener("mouseenter", () => { if (side === "query") hovered = i; else key = i;
                                              shown(); explain(); });
    svg.appendChild(t);
  }
  shown();
}
function shown() {          // a hovered query: its lines alone
  for (const g of svg.querySelectorAll("g")) {
    const mine = hovered === null || +g.getAttribute("data-i") === hovered;
    g.setAttribute("visibility", mine ? "visible" : "hidden");
  }
}
function explain() {
  const box = document.getElementById("detail");
  if (hovered === null) { box.innerHTML = ""; return; }
  let out = `<p>Layer ${layer}, head ${head}: the query of <b>${esc(D.tokens[hovered])}</b>` +
            ` (tag: ${esc(D.tags[layer][head])})</p>`;
  if (key !== null) {
    const q = vec(Q, layer, head, hovered), k = vec(K, layer, head, key);
    let dot = 0; const parts = [];
    for (let n = 0; n < d; n++) { dot += q[n] * k[n]; parts.push(q[n] * k[n]); }
    const top = parts.map((p, n) => [Math.abs(p), n]).sort((a, b) => b[0] - a[0]).slice(0, 8);
    out += `<p>q·k with <b>${esc(D.tokens[key])}</b>: the sum of ${d} products = ${dot.toFixed(3)};` +
           ` ÷√${d} = ${(dot / Math.sqrt(d)).toFixed(3)}; after softmax its weight is` +
           ` <b>${weight(layer, head, hovered, key).toFixed(3)}</b></p><p class="dim">the largest products:</p>`;
    for (const [, n] of top) out += `<div>q[${n}]·k[${n}] = ${parts[n].toFixed(3)}</div>`;
  }
  box.innerHTML = out;
}
function tags() {
  const table = document.getElementById("tags"); table.innerHTML = "";
  for (let l = 0; l < D.L; l++) { const row = table.insertRow(); row.insertCell().textContent = "layer " + l;
    for (let h = 0; h < H; h++) { const cell = row.insertCell(); cell.textContent = h + " " + D.tags[l][h];
      if (l === layer && h === head) cell.className = "on";
      cell.addEventListener("click", () => { layer = l; head = h; sync(); }); } }
}
function sync() { document.getElementById("layer").value = layer; document.getElementById("head").value = head;
  draw(); explain(); tags(); }
for (const [id, n] of [["layer", D.L], ["head", H]]) { const s = document.getElementById(id);
  for (let x = 0; x < n; x++) s.add(new Option(x, x));
  s.addEventListener("change", () => { layer = +document.getElementById("layer").value;
    head = +document.getElementById("head").value; sync(); }); }
sync();
</script></body></html>
"""
