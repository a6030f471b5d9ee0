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
    _check_results_match(rp, df, manifest)
    hashes = (manifest.get("config") or {}).get("hashes") if isinstance(manifest.get("config"), dict) else None
    if "baseline_rules" not in df and isinstance(hashes, dict) and "label" in df and "baseline" in hashes:
        # results written before the column: the manifest's configuration hashes tell
        df["baseline_rules"] = [hashes.get(str(lb)) == hashes["baseline"] for lb in df["label"]]
    return df, manifest


def _check_results_match(rp: Path, df, manifest: dict) -> None:
    """results.parquet must be the rows of the sweep its manifest.json describes (a file
    copied from another sweep, or another game's, is one error line): its points, and a
    win, rate and end-reason column for each of the manifest's outcomes and reasons."""
    game = manifest.get("game", "?")
    points = manifest.get("points")
    want = [str(p.get("label")) for p in points if isinstance(p, dict)] if isinstance(points, list) else []
    have = [str(x) for x in df["label"]] if "label" in df else []
    need = [f"{k}_{o}" for o in manifest.get("outcomes") or [] for k in ("wins", "rate", "lo", "hi")] + \
        [f"reason_{r}" for r in manifest.get("reasons") or []]
    missing = [c for c in need if c not in df]
    odd = [x for x in have if want and x not in want]
    if missing or odd or (want and not have):
        what = f"no column {missing[0]}" if missing else f"a point '{odd[0]}' it does not list" if odd else \
            "no point labels"
        raise LotrSimError(f"{rp} does not match {rp.parent / 'manifest.json'} (a sweep of {game}): it has {what}; "
                           "was it copied from another sweep? Resume or re-run the sweep to rebuild it")


def export_csv(folder: str | Path) -> Path:
    """Write ``results.csv`` beside a sweep folder's ``results.parquet``: the same table, one
    row per point, every column (numbers at full precision; the game-length histogram
    ``rounds_hist`` as a JSON list), for a spreadsheet. Returns its path."""
    import io
    import json

    import numpy as np

    from lotr_sim.experiments.store import atomic_write_bytes
    folder = Path(folder)
    df, _ = load_results(folder)
    df = df.copy()
    for c in df.columns:
        if df[c].dtype == object and any(isinstance(v, (np.ndarray, list, tuple)) for v in df[c]):
            df[c] = [json.dumps([x.item() if hasattr(x, "item") else x for x in v]) for v in df[c]]
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    path = folder / "results.csv"
    try:
        atomic_write_bytes(path, buf.getvalue().encode())
    except OSError as e:
        raise LotrSimError(f"cannot write {path}: {e.strerror or e}") from None
    return path


def labels_from(df, manifest):
    outcomes = manifest.get("outcomes") or [c[5:] for c in df.columns if c.startswith("wins_")]
    reasons = manifest.get("reasons") or [c[7:] for c in df.columns if c.startswith("reason_")]
    return list(outcomes), list(reasons)


CSS = ("body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
       "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;"
       "text-align:right}td:first-child,th:first-child{text-align:left}th{background:#eee}img{max-width:100%}"
       # a wide table scrolls inside its box instead of widening the page
       ".wide{overflow-x:auto;max-width:100%}"
       # the answering pictures side by side when there is room, one under the other when not
       ".answers{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}"
       ".answers figure{flex:1 1 420px;margin:0}.answers h2{font-size:1.1em}")


def _img_md(name: str, path: Path, caption: str) -> list[str]:
    return [f"## {caption}", "", f"![{caption}](plots/{path.name})", ""]


def _img_html(name: str, path: Path, caption: str, tag: str = "h2") -> str:
    """A heading and the picture, embedded (the page stands alone) and linked to its PNG
    beside the report (full size, when the page shows it smaller)."""
    b64 = base64.b64encode(path.read_bytes()).decode()
    c = html.escape(caption)
    return (f"<{tag}>{c}</{tag}>\n<a href='plots/{html.escape(path.name)}'><img data-plot='{html.escape(name)}' "
            f"alt='{c}' src='data:image/png;base64,{b64}'></a>")


def _wide(table_html: str) -> str:
    return f"<div class='wide'>{table_html}</div>"


#: The best pair's picture of the suggested fixes, in the report's ``plots/``.
BEST_PAIR = "best-pair.png"


def _fixes_blocks(v: dict, pdir: Path) -> tuple[str | None, str | None]:
    """The suggested fixes' block of the verdict (``verdict_text.fixes_rows``), Markdown and
    HTML: a heading, where the fixes come from, their table and the best pair's picture
    (``plots.best_pair_plot``, saved as ``plots/best-pair.png``); (None, None) when no fixes
    are shipped for the baseline's rules and players (the verdict's one line says so)."""
    from lotr_sim.reports import tables
    from lotr_sim.reports.plots import best_pair_plot
    from lotr_sim.reports.verdict_text import fixes_intro
    sf = v.get("suggested_fixes") or {}
    pic = pdir / BEST_PAIR
    if sf.get("status") != "measured" or not (sf.get("best_pair") or {}).get("cells"):
        pic.unlink(missing_ok=True)       # an earlier build's picture of fixes no longer cited
    if sf.get("status") != "measured":
        return None, None
    intro = fixes_intro(v)
    md = ["### Suggested fixes", "", intro, ""]
    h = ["<div id='suggested-fixes'><h3>Suggested fixes</h3>", f"<p>{html.escape(intro)}</p>"]
    table_md, table_h = tables.fixes_markdown(v), tables.fixes_html(v)
    if table_md:
        md += [table_md, ""]
        h.append(_wide(table_h))
    else:
        closest = [ln for ln in sf["lines"] if ln.startswith("Suggested fixes: none")]
        md += closest + [""]
        h += [f"<p>{html.escape(x)}</p>" for x in closest]
    if sf.get("search_note"):
        md += [f"Note: {sf['search_note']}.", ""]
        h.append(f"<p>Note: {html.escape(sf['search_note'])}.</p>")
    pair = sf.get("best_pair")
    if pair and pair.get("cells"):
        path = pic
        best_pair_plot(pair, str(sf.get("outcome") or v["outcome"]), float(sf.get("target", 0.5)), path=path)
        caption = f"The best pair: {v['names'][0]}'s win rate over {pair['levers'][0]} and {pair['levers'][1]}"
        md += [f"![{caption}](plots/{path.name})", ""]
        h.append(_img_html("best_pair", path, caption, tag="h4"))
    h.append("</div>")
    return "\n".join(md), "\n".join(h)


def report_stem(manifest: dict, target: str | None) -> str:
    """The report's file name without its suffix: ``report`` for the parity the sweep was run
    with, ``report-<target>`` for another one (written beside it, never over it)."""
    from lotr_sim.experiments.verdict import check_target
    if target is None:
        return "report"
    own = check_target(manifest.get("target"))
    return "report" if check_target(target) == own else f"report-{check_target(target)}"


def build_report(folder: str | Path, target: str | None = None, progress: bool = False) -> dict:
    """Write plots (``plots/*.png``), ``report.md`` and ``report.html``; return their paths
    and the verdict (``target``: parity, default the manifest's, else ``good50``). A
    ``target`` other than the sweep's own writes ``report-<target>.md``/``.html`` beside the
    sweep's report, which stays as it is (``own_report`` in the result names it then).
    ``progress`` shows each stage on stderr (``experiments.progress.Stages``).

    Both reports answer first, in the same order: the verdict (with the game's
    notes); the answering pictures, the tornado chart, the skill ladder (a skill run) and the
    AI-pairing heat map, with the levers' numbers; the compact "closest to parity" table; then the win rate against each
    parameter, the full results table, the per-seat table, game lengths, end reasons and the
    sweep's particulars."""
    from lotr_sim.experiments.progress import Stages
    from lotr_sim.experiments.store import run_kind
    folder = Path(folder)
    df, manifest = load_results(folder)      # a bad folder is one error line, before any progress
    with Stages(progress, "report") as bar:
        bar.set_total(2)     # the verdict and the files; the plots are added once counted
        return _build(folder, df, manifest, target, run_kind(manifest), bar)


def _build(folder: Path, df, manifest: dict, target: str | None, kind: str, bar) -> dict:
    from lotr_sim.experiments.verdict import verdict
    from lotr_sim.reports import plots, tables
    from lotr_sim.reports.verdict_text import CELL_ROWS, verdict_html, verdict_markdown
    outcomes, reasons = labels_from(df, manifest)
    stem = report_stem(manifest, target)
    bar.stage(f"the verdict ({len(df)} points)")
    v = verdict(df, manifest, target)
    bar.advance(1)
    pdir = folder / "plots"
    try:
        pdir.mkdir(exist_ok=True)
    except OSError as e:
        raise LotrSimError(f"cannot write plots to {pdir}: {e.strerror or e}") from None
    bar.stage("drawing the plots")

    def saved(i: int, n: int) -> None:
        if i == 1:
            bar.set_total(n + 2)
        bar.advance(1)
    figs = plots.all_plots(df, outcomes, reasons, pdir, sides=manifest.get("sides"),
                           ladder=(v.get("skill") or {}).get("ladder"), on_saved=saved, target=v["target"])
    bar.stage("a typical baseline game's replay")
    from lotr_sim.replay.typical import write_typical_replay
    replay = write_typical_replay(folder, manifest)
    replay_text = (f"How it happens: the replay of a typical baseline game, {replay['why']}: "
                   if replay else "")
    fixes_md, fixes_h = _fixes_blocks(v, pdir)
    bar.stage(f"writing {stem}.md and {stem}.html")
    answers, per_param, rest = plots.report_sections(figs)
    game = manifest.get("game", "?")
    o0 = outcomes[0]
    title = f"lotr-sim {kind} report: {game}"
    section = "Skill run" if kind == "skill" else "Sweep"
    meta = [
        ("game", game),
        ("package version", manifest.get("package_version", "?")),
        ("seed", manifest.get("seed", "?")),
        ("points", len(df)),
        ("games per point", ", ".join(f"{g:,}" for g in sorted({int(g) for g in df["games"]}))),
        ("games in total", int(df["games"].sum())),
        ("AI players (baseline)", " v ".join(f"{k} {p}" for k, p in v["players"].items())),
        ("parity used by the verdict", v["target_text"] + f" (--target {v['target']})"),
        ("started / finished", f"{manifest.get('started', '?')} / {manifest.get('finished', '?')}"),
        ("config hash", manifest.get("spec_hash", "?")),
        ("machine", (manifest.get("machine") or {}).get("hostname", "?")),
    ]
    notes = manifest.get("notes", [])
    levers_intro = v.get("levers_title", "Levers:")
    parity_intro = (f"{v['target_text'][0].upper()}{v['target_text'][1:]}. One row per parameter: its swept "
                    f"value closest to parity with {v['names'][0]}'s win rate there (95% Wilson "
                    f"interval), where parity lies (interpolated between swept numbers) and the swept "
                    f"values whose interval contains parity.")
    # a grid's lines through its cells (one parameter moving, the others held) that cross parity
    crossings = [p["text"] for p in v["parity"]] if v.get("cells") else []
    crossings_intro = "Where parity lies along the grid's lines that cross or touch it (one parameter moving, the others held):"
    if v.get("cells"):
        shown = min(len(v["cells"]), CELL_ROWS)
        parity_intro = (f"{v['target_text'][0].upper()}{v['target_text'][1:]}. One row per cell of the grid (a "
                        f"full rule set), closest to parity first ({shown} of {len(v['cells'])}): "
                        f"{v['names'][0]}'s win rate there (95% Wilson interval) and whether that interval "
                        f"contains parity.")
    results_intro = (f"Win rates in percent of games with 95% Wilson intervals; Δ is the paired change of "
                     f"{o0}'s win rate against the baseline in percentage points (common random numbers: "
                     f"game i of every point uses stream i) with its 95% interval.")
    levers_md, parity_md = tables.levers_markdown(v), tables.parity_markdown(v)
    seats_md = tables.seats_markdown(df)

    md = [f"# {title}", "", verdict_markdown(v, full=False, fixes_block=fixes_md)]
    if replay:
        md += [f"{replay_text}[replay.html](replay.html) (step through it with the arrow keys).", ""]
    md += [f"> **Note:** {n}" for n in notes] + ([""] if notes else [])
    for f in answers:
        md += _img_md(*f)
    adapt_text = (v.get("adaptation") or {}).get("text")
    if levers_md:
        md += ["## Levers", "", levers_intro, "", levers_md, ""] + ([adapt_text, ""] if adapt_text else [])
    if parity_md:
        md += ["## Closest to parity", "", parity_intro, "", parity_md, ""]
        if crossings:
            md += [crossings_intro, ""] + [f"- {t}" for t in crossings] + [""]
    for f in per_param:
        md += _img_md(*f)
    md += ["## Results", "", results_intro, "", tables.results_markdown(df, outcomes, reasons), ""]
    if seats_md:
        md += ["## Win rate per seat", "", SEATS_TEXT, "", seats_md, ""]
    for f in rest:
        md += _img_md(*f)
    md += [f"## {section}", ""] + [f"- **{k}**: {val}" for k, val in meta] + [""]
    (folder / f"{stem}.md").write_text("\n".join(md))

    levers_h, parity_h, seats_h = tables.levers_html(v), tables.parity_html(v), tables.seats_html(df)
    h = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
         f"<style>{CSS}</style></head><body>",
         f"<h1>{html.escape(title)}</h1>", "<section id='verdict'>", verdict_html(v, full=False, fixes_block=fixes_h)]
    if replay:
        h += [f"<p id='replay'>{html.escape(replay_text)}<a href='replay.html'>replay.html</a> "
              "(step through it with the arrow keys).</p>"]
    h += [f"<p><b>Note:</b> {html.escape(n)}</p>" for n in notes] + ["</section>"]
    if answers:
        h += ["<section id='answers' class='answers'>"]
        h += [f"<figure>{_img_html(*f)}</figure>" for f in answers] + ["</section>"]
    if levers_h:
        h += ["<section id='levers'><h2>Levers</h2>", f"<p>{html.escape(levers_intro)}</p>",
              _wide(levers_h)] + ([f"<p>{html.escape(adapt_text)}</p>"] if adapt_text else []) + ["</section>"]
    if parity_h:
        h += ["<section id='parity'><h2>Closest to parity</h2>", f"<p>{html.escape(parity_intro)}</p>",
              _wide(parity_h)]
        if crossings:
            h += [f"<p>{html.escape(crossings_intro)}</p><ul>"] + [f"<li>{html.escape(t)}</li>" for t in crossings] + ["</ul>"]
        h += ["</section>"]
    h += [_img_html(*f) for f in per_param]
    h += ["<section id='results'><h2>Results</h2>", f"<p>{html.escape(results_intro)}</p>",
          _wide(tables.results_html(df, outcomes, reasons)), "</section>"]
    if seats_h:
        h += ["<section id='seats'><h2>Win rate per seat</h2>", f"<p>{html.escape(SEATS_TEXT)}</p>",
              _wide(seats_h), "</section>"]
    h += [_img_html(*f) for f in rest]
    h += [f"<section id='sweep'><h2>{section}</h2><ul>"]
    h += [f"<li><b>{html.escape(str(k))}</b>: {html.escape(str(val))}</li>" for k, val in meta]
    h += ["</ul></section>", "</body></html>"]
    (folder / f"{stem}.html").write_text("\n".join(h))
    bar.advance(1)
    out = dict(md=folder / f"{stem}.md", html=folder / f"{stem}.html", plots=[p for _, p, _ in figs], verdict=v,
               replay=replay["path"] if replay else None)
    if stem != "report":
        out["own_report"] = folder / "report.html"
        out["own_target"] = manifest.get("target") or "good50"
    return out
