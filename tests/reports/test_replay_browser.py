"""Replay pages (``lotr-sim replay``) in a real headless Chromium, one per game: the page
opens at the step its address names, the arrow keys step it forward one event at a time,
End reaches the last step, which shows the game's final score, and the screenshot is a
board, not a blank page. Skips, saying why, only when no Chromium binary is found;
screenshots go to ``LOTR_SIM_ARTIFACTS`` as replay-<game>.png."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from lotr_sim import api
from browsertool import run_chromium as _chromium

sys.path.insert(0, str(Path(__file__).parents[1] / "replay"))
from tracefiles import GAMES, write_trace  # noqa: E402

# Appended to a copy of the page: once loaded, records the step shown, presses Right three
# times, then End, recording the step, the heading, the event line and the score each time.
PROBE = """<script>
window.addEventListener('load', () => {
  const rec = () => ({step: +document.body.dataset.step, score: document.getElementById('score').textContent,
                      line: document.getElementById('line').textContent,
                      filled: [...document.querySelectorAll('[id^="s-"]')].filter(e => e.getAttribute('fill') !== 'none').length,
                      board: [...document.querySelectorAll('[id^="s-"]')].map(e => e.getAttribute('fill') + ':' +
                             document.getElementById('a-' + e.id.slice(2)).textContent).join('|')});
  const key = k => document.dispatchEvent(new KeyboardEvent('keydown', {key: k}));
  const out = [rec()];
  for (let i = 0; i < 3; i++){ key('ArrowRight'); out.push(rec()); }
  key('End'); out.push(rec());
  key('ArrowLeft'); out.push(rec());
  const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_replay_steps_forward_and_ends_on_the_score(chromium, tmp_path, game):
    events = write_trace(game, tmp_path / "trace.jsonl")
    out = tmp_path / "replay.html"
    r = api.replay_html(tmp_path / "trace.jsonl", out)
    n = r["steps"]
    end = events[-1]

    mid = n // 2
    shot = tmp_path / f"replay-{game}.png"
    _chromium(chromium, tmp_path / "profile", "--virtual-time-budget=5000", f"--screenshot={shot}",
              out.as_uri() + f"#step={mid}")
    art = os.environ.get("LOTR_SIM_ARTIFACTS")
    if art and shot.is_file():
        Path(art).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(art) / shot.name)

    probe = tmp_path / "probe.html"
    probe.write_text(out.read_text().replace("</body>", PROBE + "</body>"))
    dom = _chromium(chromium, tmp_path / "profile", "--virtual-time-budget=5000", "--dump-dom",
                    probe.as_uri() + "#step=10")
    m = re.search(r'<pre id="probe">(.*?)</pre>', dom, flags=re.S)
    assert m, "the probe did not run:\n" + dom[-1500:]
    rec = json.loads(html.unescape(m.group(1)))
    assert [x["step"] for x in rec] == [10, 11, 12, 13, n - 1, n - 2]
    assert len({x["line"] for x in rec[:4]}) > 1                      # the event shown changes
    assert all(x["filled"] > 0 for x in rec)                          # the board is drawn
    assert rec[0]["board"] != rec[4]["board"]                         # and it changes over the game
    final = rec[4]["score"]
    assert final.startswith("Final:"), final
    for side, pts in end["points"].items():
        assert re.search(rf"\b{pts}\b", final), (side, pts, final)
    assert not rec[0]["score"].startswith("Final:") and not rec[5]["score"].startswith("Final:")

    # the screenshot: the size asked for and not blank (a coloured board)
    import numpy as np
    from PIL import Image
    with Image.open(shot) as im:
        rgb = np.asarray(im.convert("RGB")).astype(int)
    coloured = int(((rgb.max(axis=2) - rgb.min(axis=2)) > 60).sum())
    colours = np.unique(rgb[..., 0] * 65536 + rgb[..., 1] * 256 + rgb[..., 2]).size
    assert coloured > 5000 and colours > 100, (coloured, colours)
