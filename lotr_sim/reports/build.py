"""Build ``report.md`` and ``report.html`` (with PNG plots) from a sweep folder's
``results.parquet`` (plus the labels in ``manifest.json`` when present). Every report opens
with the verdict (``lotr_sim.experiments.verdict``)."""
from __future__ import annotations

import base64
import html
from pathlib import Path

from lotr_sim.errors import LotrSimError


SEATS_TEXT = ("Each seat's wins in percent of games (the seat's player won; its side's win rate above "
              "adds up its seats) with 95% Wilson intervals, and the seat's mean points (LR-11.4).")


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
        # a corrupt manifest is an error naming the file, not a report with "?" and no notes
        from lotr_sim.experiments.store import read_manifest_file
        manifest = read_manifest_file(mp)
        for key in ("outcomes", "reasons", "sides", "notes"):
            v = manifest.get(key)
            if v is not None and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                raise LotrSimError(f"cannot read {mp}: corrupt manifest ('{key}' is not a list of names)")
        for key in ("policies", "spec"):
            if not isinstance(manifest.get(key, {}), dict):
                raise LotrSimError(f"cannot read {mp}: corrupt manifest ('{key}' is not a table)")
    return df, manifest


def labels_from(df, manifest):
    outcomes = manifest.get("outcomes") or [c[5:] for c in df.columns if c.startswith("wins_")]
    reasons = manifest.get("reasons") or [c[7:] for c in df.columns if c.startswith("reason_")]
    return list(outcomes), list(reasons)


def build_report(folder: str | Path, target: str | None = None) -> dict:
    """Write plots (``plots/*.png``), ``report.md`` and ``report.html``; return their paths
    and the verdict (``target``: parity, default the manifest's, else ``good50``)."""
    from lotr_sim.experiments.verdict import verdict, verdict_html, verdict_markdown
    from lotr_sim.reports import plots, tables
    folder = Path(folder)
    df, manifest = load_results(folder)
    outcomes, reasons = labels_from(df, manifest)
    v = verdict(df, manifest, target)
    pdir = folder / "plots"
    try:
        pdir.mkdir(exist_ok=True)
    except OSError as e:
        raise LotrSimError(f"cannot write plots to {pdir}: {e.strerror or e}") from None
    figs = plots.all_plots(df, outcomes, reasons, pdir, sides=manifest.get("sides"))
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
        ("AI players (baseline)", " v ".join(f"{k} {p}" for k, p in v["players"].items())),
        ("parity used by the verdict", v["target_text"] + f" (--target {v['target']})"),
        ("started / finished", f"{manifest.get('started', '?')} / {manifest.get('finished', '?')}"),
        ("config hash", manifest.get("spec_hash", "?")),
        ("machine", (manifest.get("machine") or {}).get("hostname", "?")),
    ]
    table_md = tables.results_markdown(df, outcomes, reasons)
    md = [f"# {title}", "", verdict_markdown(v), "## Sweep", ""]
    md += [f"- **{k}**: {val}" for k, val in meta]
    md += [""] + [f"> **Note:** {n}" for n in manifest.get("notes", [])]
    md += ["", f"Win rates in percent of games with 95% Wilson intervals; Δ is the paired change of "
           f"{o0}'s win rate against the baseline in percentage points (common random numbers: game i "
           f"of every point uses stream i) with its 95% interval.", "", table_md, ""]
    seats_md = tables.seats_markdown(df)
    if seats_md:
        md += ["## Win rate per seat", "", SEATS_TEXT, "", seats_md, ""]
    for name, path, caption in figs:
        md += [f"## {caption}", "", f"![{caption}](plots/{path.name})", ""]
    (folder / "report.md").write_text("\n".join(md))

    h = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
         "<style>body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;"
         "text-align:right}th{background:#eee}img{max-width:100%}</style></head><body>",
         f"<h1>{html.escape(title)}</h1>", verdict_html(v), "<h2>Sweep</h2><ul>"]
    h += [f"<li><b>{html.escape(str(k))}</b>: {html.escape(str(val))}</li>" for k, val in meta]
    h += ["</ul>"] + [f"<p><b>Note:</b> {html.escape(n)}</p>" for n in manifest.get("notes", [])]
    h += [f"<p>Win rates in percent of games with 95% Wilson intervals; &Delta; is the paired change of "
          f"{html.escape(o0)}'s win rate against the baseline in percentage points with its 95% interval.</p>",
          tables.results_html(df, outcomes, reasons)]
    seats_h = tables.seats_html(df)
    if seats_h:
        h += ["<h2>Win rate per seat</h2>", f"<p>{html.escape(SEATS_TEXT)}</p>", seats_h]
    for name, path, caption in figs:
        b64 = base64.b64encode(path.read_bytes()).decode()
        h += [f"<h2>{html.escape(caption)}</h2>", f"<img alt='{html.escape(caption)}' "
              f"src='data:image/png;base64,{b64}'>"]
    h += ["</body></html>"]
    (folder / "report.html").write_text("\n".join(h))
    return dict(md=folder / "report.md", html=folder / "report.html", plots=[p for _, p, _ in figs], verdict=v)
