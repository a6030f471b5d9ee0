"""The replay page: one HTML file with the board's SVG, the steps as compact JSON (each step
only what changed since the one before) and a small script that shows step ``n``.

Moving through the game: the slider; the Left/Right arrow keys (one event), Up/Down or
PageUp/PageDown (one turn), Home/End; the buttons; Space plays and pauses. The address's
``#step=N`` (or ``#step=end``) opens step N, and the page keeps it up to date, so a step can
be linked. ``document.body.dataset.step`` holds the step shown (tests read it)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotr_sim.errors import LotrSimError
from lotr_sim.replay import Step, esc

CSS = """
body{font-family:system-ui,sans-serif;margin:0;background:#faf8f2;color:#222}
header{padding:6px 12px;background:#2b2b2b;color:#fff}
header h1{font-size:17px;margin:0}
header p{margin:2px 0 0;font-size:13px;color:#ddd}
#wrap{display:flex;gap:10px;padding:8px;align-items:flex-start}
#board{flex:3 1 640px;min-width:0}
#board svg{width:100%;height:auto;background:#fff;border:1px solid #ccc}
#side{flex:1 1 330px;font-size:13px;max-width:460px}
#controls{display:flex;gap:6px;align-items:center;padding:4px 8px;flex-wrap:wrap}
#controls input[type=range]{flex:1 1 300px}
#controls button{font-size:14px;min-width:34px}
#heading{font-weight:600;font-size:15px;margin:2px 0}
#line{background:#fff6d5;border:1px solid #e5d38a;padding:6px;min-height:2.5em;white-space:pre-wrap}
#score{font-weight:600;margin:6px 0;font-size:14px}
#log{max-height:240px;overflow:auto;border:1px solid #ddd;background:#fff;padding:4px;white-space:pre-wrap;font-family:monospace;font-size:12px}
#log div.now{background:#fff0a8}
#panel{overflow-x:auto}
#panel table{border-collapse:collapse;margin:4px 0;font-size:12px}
#panel td,#panel th{border:1px solid #ddd;padding:1px 5px;text-align:left;vertical-align:top}
svg text{font-family:system-ui,sans-serif;text-anchor:middle;pointer-events:none}
svg text.nm{font-size:11px;fill:#222;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg text.ca{font-size:13px;font-weight:700}
svg text.cb{font-size:13px;font-weight:700}
.help{color:#666;font-size:12px}
svg .focus{stroke:#ff8c00!important;stroke-width:6!important}
"""

SCRIPT = """
const D = JSON.parse(document.getElementById('data').textContent);
const N = D.steps.length;
const spots = {}, marks = {};
let cur = -1;
const $ = id => document.getElementById(id);
function reset(){ for (const k in D.base_spots) spots[k] = D.base_spots[k];
  for (const k in D.base_marks) marks[k] = D.base_marks[k]; cur = -1; }
function forward(i){ const s = D.steps[i];
  if (s.s) for (const k in s.s) spots[k] = s.s[k];
  if (s.m) for (const k in s.m) marks[k] = s.m[k]; }
function draw(){
  for (const k in spots){ const v = spots[k];
    const e = $('s-' + k); if (!e) continue;
    e.setAttribute('fill', v[0]);
    $('a-' + k).textContent = v[1]; $('b-' + k).textContent = v[2];
    const t = $('t-' + k); if (t) t.textContent = v[3]; }
  for (const k in marks){ const e = $('m-' + k); if (!e) continue; const v = marks[k];
    if (v === null){ e.setAttribute('visibility', 'hidden'); }
    else { e.setAttribute('visibility', 'visible'); e.setAttribute('transform', 'translate(' + v[0] + ',' + v[1] + ')'); } } }
function show(n){
  n = Math.max(0, Math.min(N - 1, n|0));
  if (n < cur) reset();
  while (cur < n){ cur++; forward(cur); }
  draw();
  const s = D.steps[n];
  document.querySelectorAll('svg .focus').forEach(e => e.classList.remove('focus'));
  for (const k of (s.f || [])){ const e = $('s-' + k); if (e) e.classList.add('focus'); }
  $('heading').textContent = D.headings[s.h];
  $('line').textContent = s.l;
  $('score').textContent = D.scores[s.sc];
  $('panel').innerHTML = D.panels[s.p];
  $('slider').value = n;
  $('stepno').textContent = 'step ' + (n + 1) + ' of ' + N + ' \\u00b7 turn ' + s.t;
  document.body.dataset.step = n;
  let lo = n; while (lo > 0 && D.steps[lo - 1].h === s.h && n - lo < 60) lo--;
  const log = $('log'); log.innerHTML = '';
  for (let i = lo; i <= n; i++){ const d = document.createElement('div');
    d.textContent = D.steps[i].l; if (i === n) d.className = 'now'; log.appendChild(d); }
  log.scrollTop = log.scrollHeight;
  const h = '#step=' + n; if (location.hash !== h) history.replaceState(null, '', h);
}
function turnStart(n, dir){
  const h = D.steps[n].h; let i = n;
  if (dir < 0){ while (i > 0 && D.steps[i - 1].h === h) i--; if (i === n && i > 0){ i--; const h2 = D.steps[i].h; while (i > 0 && D.steps[i - 1].h === h2) i--; } }
  else { while (i < N - 1 && D.steps[i].h === h) i++; }
  return i; }
let timer = null;
function play(){ if (timer){ clearInterval(timer); timer = null; $('play').textContent = '\\u25b6'; return; }
  $('play').textContent = '\\u23f8'; timer = setInterval(() => { if (cur >= N - 1) play(); else show(cur + 1); }, 350); }
function fromHash(){ const m = /step=(end|\\d+)/.exec(location.hash);
  return m ? (m[1] === 'end' ? N - 1 : parseInt(m[1], 10)) : 0; }
$('slider').max = N - 1;
$('slider').addEventListener('input', e => show(parseInt(e.target.value, 10)));
$('prev').onclick = () => show(cur - 1); $('next').onclick = () => show(cur + 1);
$('prevturn').onclick = () => show(turnStart(cur, -1)); $('nextturn').onclick = () => show(turnStart(cur, 1));
$('play').onclick = play;
document.addEventListener('keydown', e => {
  if (e.target && e.target.tagName === 'INPUT' && e.target.type !== 'range') return;
  const k = e.key; let n = null;
  if (k === 'ArrowRight') n = cur + 1; else if (k === 'ArrowLeft') n = cur - 1;
  else if (k === 'ArrowDown' || k === 'PageDown') n = turnStart(cur, 1);
  else if (k === 'ArrowUp' || k === 'PageUp') n = turnStart(cur, -1);
  else if (k === 'Home') n = 0; else if (k === 'End') n = N - 1;
  else if (k === ' ') { play(); e.preventDefault(); return; }
  if (n !== null){ show(n); e.preventDefault(); } });
window.addEventListener('hashchange', () => show(fromHash()));
reset(); show(fromHash());
"""


def _intern(table: list[str], index: dict[str, int], s: str) -> int:
    i = index.get(s)
    if i is None:
        i = index[s] = len(table)
        table.append(s)
    return i


def page_data(steps: Sequence[Step]) -> dict[str, Any]:
    """The steps as the script reads them: the first step's spots and marks whole, then each
    step only what changed; headings, panels and scores stored once each and referred to by
    number."""
    headings: list[str] = []
    panels: list[str] = []
    scores: list[str] = []
    hi: dict[str, int] = {}
    pi: dict[str, int] = {}
    si: dict[str, int] = {}
    out = []
    prev_s: dict[str, Any] = {}
    prev_m: dict[str, Any] = {}
    base_s = {k: list(v) for k, v in steps[0].spots.items()} if steps else {}
    base_m = {k: (list(v) if v is not None else None) for k, v in steps[0].marks.items()} if steps else {}
    prev_s = {k: list(v) for k, v in base_s.items()}
    prev_m = dict(base_m)
    for st in steps:
        row: dict[str, Any] = {"h": _intern(headings, hi, st.heading), "l": st.line, "t": st.turn,
                               "p": _intern(panels, pi, st.panel), "sc": _intern(scores, si, st.score)}
        ds = {k: list(v) for k, v in st.spots.items() if prev_s.get(k) != list(v)}
        dm = {k: (list(v) if v is not None else None) for k, v in st.marks.items()
              if prev_m.get(k, 0) != (list(v) if v is not None else None)}
        if st.focus:
            row["f"] = list(st.focus)
        if ds:
            row["s"] = ds
            prev_s.update(ds)
        if dm:
            row["m"] = dm
            prev_m.update(dm)
        out.append(row)
    return {"headings": headings, "panels": panels, "scores": scores, "steps": out,
            "base_spots": base_s, "base_marks": base_m}


def page_html(title: str, subtitle: str, svg: str, steps: Sequence[Step]) -> str:
    """The whole page as a string."""
    if not steps:
        raise LotrSimError("nothing to replay: the trace has no events after its header")
    data = json.dumps(page_data(steps), separators=(",", ":")).replace("</", "<\\/")
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
            f"<style>{CSS}</style></head><body>"
            f"<header><h1>{esc(title)}</h1><p>{esc(subtitle)}</p></header>"
            "<div id='controls'><button id='prevturn' title='previous turn (Up)'>&#x00ab;</button>"
            "<button id='prev' title='previous event (Left)'>&#x25c0;</button>"
            "<button id='play' title='play / pause (Space)'>&#x25b6;</button>"
            "<button id='next' title='next event (Right)'>&#x25b6;|</button>"
            "<button id='nextturn' title='next turn (Down)'>&#x00bb;</button>"
            "<input type='range' id='slider' min='0' value='0' aria-label='step'>"
            "<output id='stepno'></output></div>"
            f"<div id='wrap'><div id='board'>{svg}</div><div id='side'>"
            "<div id='heading'></div><div id='line'></div><div id='score'></div>"
            "<div id='panel'></div><div id='log'></div>"
            "<p class='help'>Left/Right: one event &middot; Up/Down: one turn &middot; Home/End &middot; "
            "Space: play. Hover a territory for its units. The address (#step=N) opens a step.</p>"
            "</div></div>"
            f"<script id='data' type='application/json'>{data}</script>"
            f"<script>{SCRIPT}</script></body></html>")


def subtitle_of(header: Mapping) -> str:
    """``seed S, game I; Good tuned v Evil tuned; parameters ...`` from a trace header."""
    from lotr_sim.games.account import players_text
    pols = header.get("seat_policies") or header.get("policies") or {}
    params = header.get("params") or {}
    ps = "; " + ", ".join(f"{k}={v}" for k, v in params.items()) if params else ""
    return (f"seed {header.get('seed')}, game {header.get('game_index')}; "
            f"{players_text(pols, header.get('seat_sides'))}{ps}; lotr-sim {header.get('lotr_sim_version')}")


def write_page(out: Path, game: Any, header: Mapping, svg: str, steps: Sequence[Step]) -> int:
    """Write the page to ``out``; returns its size in bytes. One LotrSimError line when the
    file cannot be written."""
    text = page_html(f"{game.title}: replay", subtitle_of(header), svg, steps)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise LotrSimError(f"cannot write {out}: {e.strerror or e}") from None
    return len(text.encode("utf-8"))
