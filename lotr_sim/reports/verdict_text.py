"""The verdict of a sweep (``lotr_sim.experiments.verdict.verdict``, a JSON-able dict) as
text: the report's Markdown and HTML section, and the rows of the
report's levers and "closest to parity" tables (``reports.tables`` renders those).

The numbers are formatted as the verdict's own sentences format them
(``fmt_pct``, ``fmt_pp``, ``fmt_value``, ``fmt_x``), so a table and a sentence never differ.
"""
from __future__ import annotations

import html
from typing import Mapping

from lotr_sim.experiments.verdict import adapted_text, fix_cells, fmt_pct, fmt_pp, fmt_value, fmt_x, lever_text


def _report_lines(v: Mapping, full: bool) -> list[str]:
    """The verdict's lines; without ``full`` only those before the levers and the parities
    (``summary``), which a report gives as tables after its pictures (``levers_rows``,
    ``parity_rows``)."""
    return list(v["lines"] if full or "summary" not in v else v["summary"])


def _fix_lines(v: Mapping, block: str | None) -> set[str]:
    """The suggested fixes' lines of the verdict, which ``block`` (when given) stands for."""
    if block is None:
        return set()
    return set((v.get("suggested_fixes") or {}).get("lines") or [])


def fixes_rows(v: Mapping) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the suggested fixes' table (``verdict.shipped_fixes``, measured
    for the baseline's rules and players): one row per fix, best first: the change, the first
    side's rate [95% CI] with the default players, after adaptation (holds?) and under the
    search player; no rows when none are shipped for them."""
    sf = v.get("suggested_fixes") or {}
    if sf.get("status") != "measured":
        return [], []
    sides = list(v.get("players") or [])
    o0n = v.get("names", [v["outcome"]])[0]
    head = ["change", f"{o0n} [95% CI], default players", "after adaptation (holds?)",
            f"under search ({o0n}'s rate with search as " + " / as ".join(n.capitalize() for n in sides[:2]) + ")"]
    return head, [fix_cells(f, sides) for f in sf.get("fixes") or []]


def fixes_intro(v: Mapping) -> str:
    """The sentence above the suggested fixes' table: what they reach, where they come from."""
    sf = v["suggested_fixes"]
    o0n = v.get("names", [v["outcome"]])[0]
    g = sf.get("games") or {}
    tol = round(100 * float(sf["tol"]), 6)
    text = (f"The smallest rule changes found that bring {o0n}'s win rate within ±{tol:g} point"
            f"{'' if tol == 1 else 's'} of {100 * float(sf['target']):g}% under these rules and players "
            f"({sf['provenance']}): {o0n}'s rate on {int(g.get('final') or 0):,} fresh games a fix with the "
            "default players (\"not confirmed\": its 95% interval there is wider than the band a fix is confirmed in)")
    if g.get("adapt"):
        text += (f", on {int(g['adapt']):,} with both sides' players adapted to the fix (it holds when "
                 f"{o0n} stays within ±2 points) and on {int(g.get('search') or 0):,} games a side with the "
                 "search player against the adapted ones")
    return text + "."


def verdict_markdown(v: Mapping, full: bool = True, fixes_block: str | None = None) -> str:
    """The verdict as a Markdown section (``## Verdict``); ``full=False``: without the levers'
    and the parities' lists (``_report_lines``). ``fixes_block`` (Markdown) stands for the
    suggested fixes' lines, where they are (right under the headline)."""
    out = ["## Verdict", "", f"**{v['sentence']}**"]
    prev_item = False
    fx, placed = _fix_lines(v, fixes_block), False
    for ln in _report_lines(v, full)[1:]:
        if ln in fx:
            if not placed:
                out += ["", fixes_block.rstrip("\n")]
                placed = True
            prev_item = False
            continue
        item = ln.startswith("- ")
        if not (item and prev_item):
            out.append("")
        out.append(ln)
        prev_item = item
    return "\n".join(out) + "\n"


def verdict_html(v: Mapping, full: bool = True, fixes_block: str | None = None) -> str:
    """The verdict as HTML (``<h2>Verdict</h2>``); ``full`` and ``fixes_block`` (HTML) as in
    ``verdict_markdown``."""
    out = ["<h2>Verdict</h2>", f"<p><b>{html.escape(v['sentence'])}</b></p>"]
    in_list = False
    fx, placed = _fix_lines(v, fixes_block), False
    for ln in _report_lines(v, full)[1:]:
        if ln in fx:
            if in_list:
                out.append("</ul>")
                in_list = False
            if not placed:
                out.append(fixes_block)
                placed = True
            continue
        if ln.startswith("- "):
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append(f"<li>{html.escape(ln[2:])}</li>")
            continue
        if in_list:
            out.append("</ul>")
            in_list = False
        out.append(f"<p>{html.escape(ln)}</p>")
    if in_list:
        out.append("</ul>")
    return "\n".join(out)


def levers_rows(v: Mapping) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the levers' table: one row per lever (largest first), the point
    with the largest paired change of the first outcome's win rate and that change in
    percentage points with its 95% interval (the numbers behind the tornado chart); when the
    sweep adapted the players to some levers, a column with the change after adaptation."""
    o0n = v.get("names", [v["outcome"]])[0]
    head = ["lever (its largest change)", f"Δ{o0n}, percentage points [95% CI]"]
    if not any(x.get("adapted") for x in v["levers"]):
        return head, [[str(x["label"]), lever_text(x, o0n)] for x in v["levers"]]
    head.append(f"Δ{o0n} after adaptation [95% CI]")
    return head, [[str(x["label"]), lever_text(x, o0n, adapted=False),
                   adapted_text(x["adapted"]) if x.get("adapted") else ""] for x in v["levers"]]


def _crossing_cell(p: Mapping, o0n: str) -> str:
    """The "parity" cell of one parameter's row: the interpolated crossing with its interval,
    the two categories parity lies between, or why there is none."""
    cr = p.get("crossing")
    integer = bool(p.get("integer", False))
    if cr is not None and "estimate" in cr:
        return (f"≈ {fmt_x(cr['estimate'], integer)} [{fmt_x(cr['interval'][0], integer)}, "
                f"{fmt_x(cr['interval'][1], integer)}] (interpolated between {fmt_value(cr['between'][0])} "
                f"and {fmt_value(cr['between'][1])})")
    if cr is not None:
        return (f"between {fmt_value(cr['between'][0])} (below) and {fmt_value(cr['between'][1])} (above)")
    if p["status"] == "never":
        return f"never reached ({o0n} stays {p['side']} parity)"
    return "no crossing between swept values"


def parity_rows(v: Mapping) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the compact "closest to parity" table: one row per swept
    parameter with its value closest to parity, the first outcome's win rate there with its
    95% Wilson interval (and, for ``--target equal``, its difference to the second outcome),
    where parity lies (the interpolated crossing, as ``verdict.parity_text``) and the swept values
    whose interval contains parity ("none: overshoots" when parity lies between two swept
    values but none is within its interval)."""
    o0n, o1n = (list(v.get("names") or [v["outcome"], "?"]) + ["?"])[:2]
    equal = v["target"] == "equal"
    if v.get("cells"):
        return _cell_rows(v, o0n, o1n, equal)
    head = ["parameter", "closest value", f"{o0n} % [95% CI]"]
    if equal:
        head.append(f"{o0n} − {o1n}, percentage points [95% CI]")
    head += ["parity", "within the interval of parity at"]
    body = []
    for p in v["parity"]:
        c = p["closest"]
        cells = [str(p["param"]), fmt_value(c["value"]), f"{fmt_pct(c['rate'])} [{fmt_pct(c['lo'])}, {fmt_pct(c['hi'])}]"]
        if equal:
            cells.append(f"{fmt_pp(c['gap'])} [{fmt_pp(c['gap_lo'])}, {fmt_pp(c['gap_hi'])}]")
        if p["status"] == "within":
            within = ", ".join(fmt_value(x) for x in p["within"])
        else:
            within = "none: overshoots" if p["status"] == "overshoots" else "none"
        body.append(cells + [_crossing_cell(p, o0n), within])
    return head, body


#: the cells of a grid the "closest to parity" table lists (closest first)
CELL_ROWS = 20


def _cell_rows(v: Mapping, o0n: str, o1n: str, equal: bool) -> tuple[list[str], list[list[str]]]:
    """A grid's "closest to parity" table: its cells (full rule sets), closest to parity
    first, at most ``CELL_ROWS``: each cell's values, the first outcome's win rate with its
    95% Wilson interval (and its difference to the second's for ``--target equal``) and
    whether its interval contains parity."""
    cells = v["cells"]
    dims = list(cells[0]["set"])
    head = dims + [f"{o0n} % [95% CI]"]
    if equal:
        head.append(f"{o0n} − {o1n}, percentage points [95% CI]")
    head.append("within the interval of parity")
    body = []
    for c in cells[:CELL_ROWS]:
        row = [fmt_value(c["set"][d]) for d in dims] + [f"{fmt_pct(c['rate'])} [{fmt_pct(c['lo'])}, {fmt_pct(c['hi'])}]"]
        if equal:
            row.append(f"{fmt_pp(c['diff'])} [{fmt_pp(c['diff_lo'])}, {fmt_pp(c['diff_hi'])}]")
        body.append(row + ["yes" if c["within"] else "no"])
    return head, body
