"""Build ``report.md`` and ``report.html`` (with PNG plots) from a sweep folder's
``results.parquet`` (plus the labels in ``manifest.json`` when present)."""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path

from lotr_sim.errors import LotrSimError


def load_results(folder: str | Path):
    """``(results DataFrame, manifest dict)`` of a sweep folder (manifest may be {})."""
    import pandas as pd
    folder = Path(folder)
    rp = folder / "results.parquet"
    if not rp.is_file():
        raise LotrSimError(f"{folder} has no results.parquet (not a finished sweep folder)")
    try:
        df = pd.read_parquet(rp)
    except Exception as e:  # pyarrow raises various types on broken files
        raise LotrSimError(f"cannot read {rp}: {e}") from None
    mp = folder / "manifest.json"
    manifest = {}
    if mp.is_file():
        try:
            manifest = json.loads(mp.read_text())
        except (OSError, json.JSONDecodeError):
            manifest = {}
    return df, manifest


def labels_from(df, manifest):
    outcomes = manifest.get("outcomes") or [c[5:] for c in df.columns if c.startswith("wins_")]
    reasons = manifest.get("reasons") or [c[7:] for c in df.columns if c.startswith("reason_")]
    return list(outcomes), list(reasons)


def build_report(folder: str | Path) -> dict:
    """Write plots (``plots/*.png``), ``report.md`` and ``report.html``; return their paths."""
    from lotr_sim.reports import plots, tables
    folder = Path(folder)
    df, manifest = load_results(folder)
    outcomes, reasons = labels_from(df, manifest)
    pdir = folder / "plots"
    try:
        pdir.mkdir(exist_ok=True)
    except OSError as e:
        raise LotrSimError(f"cannot write plots to {pdir}: {e.strerror or e}") from None
    figs = plots.all_plots(df, outcomes, reasons, pdir)
    game = manifest.get("game", "?")
    o0 = outcomes[0]
    title = f"lotr-sim sweep report: {game}"
    meta = [
        ("game", game),
        ("package version", manifest.get("package_version", "?")),
        ("seed", manifest.get("seed", "?")),
        ("points", len(df)),
        ("games per point", ", ".join(sorted({str(int(g)) for g in df["games"]}))),
        ("games in total", int(df["games"].sum())),
        ("started / finished", f"{manifest.get('started', '?')} / {manifest.get('finished', '?')}"),
        ("config hash", manifest.get("spec_hash", "?")),
        ("machine", (manifest.get("machine") or {}).get("hostname", "?")),
    ]
    table_md = tables.results_markdown(df, outcomes, reasons)
    md = [f"# {title}", ""]
    md += [f"- **{k}**: {v}" for k, v in meta]
    md += [""] + [f"> **Note:** {n}" for n in manifest.get("notes", [])]
    md += ["", f"Win rates with 95% Wilson intervals; Δ is the paired change of {o0}'s win rate "
           f"against the baseline (common random numbers: game i of every point uses stream i) "
           f"with its 95% interval.", "", table_md, ""]
    for name, path, caption in figs:
        md += [f"## {caption}", "", f"![{caption}](plots/{path.name})", ""]
    (folder / "report.md").write_text("\n".join(md))

    h = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
         "<style>body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;"
         "text-align:right}th{background:#eee}img{max-width:100%}</style></head><body>",
         f"<h1>{html.escape(title)}</h1><ul>"]
    h += [f"<li><b>{html.escape(str(k))}</b>: {html.escape(str(v))}</li>" for k, v in meta]
    h += ["</ul>"] + [f"<p><b>Note:</b> {html.escape(n)}</p>" for n in manifest.get("notes", [])]
    h += [f"<p>Win rates with 95% Wilson intervals; &Delta; is the paired change of "
          f"{html.escape(o0)}'s win rate against the baseline with its 95% interval.</p>",
          tables.results_html(df, outcomes, reasons)]
    for name, path, caption in figs:
        b64 = base64.b64encode(path.read_bytes()).decode()
        h += [f"<h2>{html.escape(caption)}</h2>", f"<img alt='{html.escape(caption)}' "
              f"src='data:image/png;base64,{b64}'>"]
    h += ["</body></html>"]
    (folder / "report.html").write_text("\n".join(h))
    return dict(md=folder / "report.md", html=folder / "report.html", plots=[p for _, p, _ in figs])
