"""report.html in a real headless browser (Chromium): every picture decodes, the answering
pictures (tornado chart, AI-pairing heat map) come first and are on the first screen, the
page does not overflow sideways, and the screenshot is not blank. Skips, saying why, only
when no Chromium binary is found; CI (.ci/run) installs one with apt-get when it can and
keeps the screenshot as .ci/artifacts/report.png (``LOTR_SIM_ARTIFACTS``)."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from lotr_sim.reports.build import build_report
from browsertool import HEIGHT, WIDTH, run_chromium as _chromium
from sweepfolder import write_sweep

FIRST_SCREEN = 1000          # CSS pixels: what a laptop shows without scrolling, roughly

# Appended to a copy of the report: after every image has loaded, writes what the browser
# laid out (image sizes and positions, section headings, the page's width) into the DOM.
PROBE = """<script>
window.addEventListener('load', () => {
  const box = e => { const b = e.getBoundingClientRect();
    return {top: b.top + scrollY, bottom: b.bottom + scrollY, left: b.left, right: b.right}; };
  const out = {innerWidth: innerWidth, scrollWidth: document.documentElement.scrollWidth,
    imgs: [...document.images].map(i => ({plot: i.dataset.plot || null, complete: i.complete,
                                          w: i.naturalWidth, h: i.naturalHeight, ...box(i)})),
    headings: [...document.querySelectorAll('h2')].map(h => ({text: h.textContent, ...box(h)})),
    tables: [...document.querySelectorAll('table')].map(t => box(t.parentElement))};
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.slow
def test_report_renders_answers_first_in_chromium(chromium, tmp_path):
    folder = write_sweep(tmp_path / "sweep")
    out = build_report(folder)
    # the screenshot first, kept for CI whatever the checks below find
    shot = tmp_path / "report.png"
    _chromium(chromium, tmp_path / "profile", f"--screenshot={shot}", out["html"].as_uri())
    art = os.environ.get("LOTR_SIM_ARTIFACTS")
    if art and shot.is_file():
        Path(art).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(art) / "report.png")

    page = out["html"].read_text()
    probe_page = folder / "probe.html"
    probe_page.write_text(page.replace("</body>", PROBE + "</body>"))

    dom = _chromium(chromium, tmp_path / "profile", "--virtual-time-budget=10000", "--dump-dom",
                    probe_page.as_uri())
    m = re.search(r"<pre id=\"probe\">(.*?)</pre>", dom, flags=re.S)
    assert m, "the probe did not run (no <pre id='probe'> in the DOM):\n" + dom[-1000:]
    laid = json.loads(html.unescape(m.group(1)))

    # every picture decoded, and the browser saw them in report order: answers first
    imgs = laid["imgs"]
    assert len(imgs) == len(out["plots"]) > 0
    for i in imgs:
        assert i["complete"] and i["w"] > 100 and i["h"] > 100, i
    names = [i["plot"] for i in imgs]
    assert names[:2] == ["tornado", "pairings"], names
    assert all(n.startswith("winrate_") for n in names[2:5]), names
    tops = [i["top"] for i in imgs]
    assert tops[2:] == sorted(tops[2:]), names
    # the tornado chart and the heat map are on the first screen, whole
    for i in imgs[:2]:
        assert i["bottom"] <= FIRST_SCREEN, (i["plot"], i["bottom"])
    heads = [h["text"] for h in laid["headings"]]
    assert heads[0] == "Verdict"
    assert heads.index("Closest to parity") < heads.index("Results")
    parity_top = next(h["top"] for h in laid["headings"] if h["text"] == "Closest to parity")
    assert max(i["bottom"] for i in imgs[:2]) < parity_top < imgs[2]["top"]
    # nothing widens the page: wide tables scroll inside their own box
    assert laid["scrollWidth"] <= laid["innerWidth"], (laid["scrollWidth"], laid["innerWidth"])
    for t in laid["tables"]:
        assert t["right"] <= laid["innerWidth"], t

    # the screenshot of the report itself: the size asked for, not blank, pictures on top
    assert shot.is_file() and shot.stat().st_size > 10_000
    import numpy as np
    from PIL import Image
    with Image.open(shot) as im:
        rgb = np.asarray(im.convert("RGB")).astype(int)
    assert rgb.shape == (HEIGHT, WIDTH, 3)
    colours = np.unique(rgb[..., 0] * 65536 + rgb[..., 1] * 256 + rgb[..., 2])
    assert colours.size > 100, colours.size                  # not one colour, not a few
    # coloured pixels (the tornado's blue bars, the heat map's cells) on the first screen:
    # text and table borders are grey, so these come from the pictures
    top = rgb[:FIRST_SCREEN]
    coloured = int(((top.max(axis=2) - top.min(axis=2)) > 80).sum())
    assert coloured > 0.03 * WIDTH * FIRST_SCREEN, coloured
    print(f"{colours.size} colours, {coloured} coloured pixels on the first screen; answers end at "
          f"{[i['bottom'] for i in imgs[:2]]} px; screenshot {shot}")
