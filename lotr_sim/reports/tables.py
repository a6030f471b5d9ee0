"""Result tables: Markdown, HTML, a rich table for the terminal (80 columns) and the
pairings matrix. Rates are percent of games; Δ is in percentage points."""
from __future__ import annotations

import html
import json


def _pct(x) -> str:
    return "-" if x != x else f"{100 * x:.1f}"


def _name(o: str) -> str:
    """A side's name as a name ("Good", "Frodo"); the draw outcome stays "draw"."""
    return o if o == DRAW else o.capitalize()


DRAW = "draw"
NEGLIGIBLE = 0.005   # draws are shown (rate and interval) once any point's draw rate exceeds this


def draws_shown(df, outcomes) -> bool:
    """True when the game has a draw outcome and some row of ``df`` (a point, a pairing)
    ends in a draw more often than ``NEGLIGIBLE`` (0.5% of games): then every table and plot
    that gives the first side's win rate gives the draw rate beside it (The Search's pairings
    can end in a draw more than half the time)."""
    col = f"rate_{DRAW}"
    return DRAW in outcomes and col in df and len(df) > 0 and bool((df[col].astype(float) > NEGLIGIBLE).any())


def _rate_ci(r, o: str) -> str:
    return f"{_pct(r[f'rate_{o}'])} [{_pct(r[f'lo_{o}'])}, {_pct(r[f'hi_{o}'])}]"


def _missed(r) -> bool:
    return "precision_met" in r and r["precision_met"] is not None and r["precision_met"] == r["precision_met"] \
        and not bool(r["precision_met"])


def rows(df, outcomes, reasons) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the full results table (one row per point). Each outcome's
    column shows that outcome's rate with its 95% Wilson interval; a ``*`` after the games
    marks a point that stopped at --max-games before reaching its precision goal."""
    o0 = outcomes[0]
    head = ["point", "games"] + [f"{_name(o)} % [95% CI]" for o in outcomes] + \
        [f"Δ{_name(o0)}, percentage points [95% CI]", "rounds mean", "rounds q50"] + [f"{r} %" for r in reasons]
    body = []
    for _, r in df.iterrows():
        line = [str(r["label"]), f"{int(r['games'])}" + ("*" if _missed(r) else "")]
        for o in outcomes:
            line.append(f"{_pct(r[f'rate_{o}'])} [{_pct(r[f'lo_{o}'])}, {_pct(r[f'hi_{o}'])}]")
        if r["point"] == 0:
            line.append("baseline")
        else:
            line.append(f"{100 * r[f'delta_{o0}']:+.2f} [{100 * r[f'delta_{o0}_lo']:+.2f}, "
                        f"{100 * r[f'delta_{o0}_hi']:+.2f}]")
        line += [f"{r['rounds_mean']:.2f}", f"{r['rounds_q50']:g}"]
        line += [_pct(r[f"reason_{x}"]) for x in reasons]
        body.append(line)
    return head, body


def _footnote(df) -> str:
    if "precision_met" not in df or df["precision_met"].astype(bool).all():
        return ""
    return "\\* stopped at --max-games before its 95% half-width reached its goal (--precision, or the paired goals)."


def _markdown(head: list[str], body: list[list[str]]) -> list[str]:
    """A Markdown table's lines."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(b) + " |" for b in body]


def _html(head: list[str], body: list[list[str]]) -> list[str]:
    """An HTML table's lines, every cell escaped."""
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in b) + "</tr>" for b in body]
    return out + ["</table>"]


def results_markdown(df, outcomes, reasons) -> str:
    out = _markdown(*rows(df, outcomes, reasons))
    foot = _footnote(df)
    return "\n".join(out + ([""] + [foot] if foot else []))


def results_html(df, outcomes, reasons) -> str:
    out = _html(*rows(df, outcomes, reasons))
    foot = _footnote(df)
    if foot:
        out.append(f"<p>{html.escape(foot.replace(chr(92), ''))}</p>")
    return "\n".join(out)


def results_rich(df, outcomes, reasons, title: str = ""):
    """The full table as a rich Table (wide: for reports and wide terminals)."""
    from rich.table import Table
    head, body = rows(df, outcomes, reasons)
    t = Table(title=title or None)
    for i, h in enumerate(head):
        t.add_column(h, justify="left" if i == 0 else "right", overflow="fold")
    for b in body:
        t.add_row(*b)
    return t


def seat_rows(df) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the per-seat table (LR-11.4): one row per point and seat, with the
    seat's side and AI player, its win rate with the 95% Wilson interval and its mean points.
    Empty when no point has a ``seats`` column (games with one seat per side and no
    ``winner_seat``: Minas Tirith, The Search)."""
    head = ["point", "seat", "side", "AI player", "win % [95% CI]", "points mean"]
    body: list[list[str]] = []
    if "seats" not in df:
        return head, body
    for _, r in df.iterrows():
        v = r["seats"]
        if not isinstance(v, str):
            continue
        for s in json.loads(v):
            rate = (f"{_pct(s['win_rate'])} [{_pct(s['ci95'][0])}, {_pct(s['ci95'][1])}]"
                    if "win_rate" in s else "-")
            pts = f"{s['points_mean']:.2f}" if "points_mean" in s else "-"
            body.append([str(r["label"]), s["seat"], _name(s["side"]), str(s["policy"]), rate, pts])
    return head, body


def _rendered(rows: tuple[list[str], list[list[str]]], fmt) -> str:
    """A ``(head, body)`` table through ``_markdown`` or ``_html``; "" when it has no rows."""
    head, body = rows
    return "\n".join(fmt(head, body)) if body else ""


def seats_markdown(df) -> str:
    """The per-seat table in Markdown ("" when there is none)."""
    return _rendered(seat_rows(df), _markdown)


def seats_html(df) -> str:
    """The per-seat table in HTML ("" when there is none)."""
    return _rendered(seat_rows(df), _html)


def levers_markdown(v) -> str:
    """The verdict's levers (``verdict_text.levers_rows``) as a Markdown table ("" when none)."""
    from lotr_sim.reports.verdict_text import levers_rows
    return _rendered(levers_rows(v), _markdown)


def levers_html(v) -> str:
    """The verdict's levers as an HTML table ("" when none)."""
    from lotr_sim.reports.verdict_text import levers_rows
    return _rendered(levers_rows(v), _html)


def parity_markdown(v) -> str:
    """The compact "closest to parity" table (``verdict_text.parity_rows``) in Markdown ("" when
    the sweep varied no parameter)."""
    from lotr_sim.reports.verdict_text import parity_rows
    return _rendered(parity_rows(v), _markdown)


def parity_html(v) -> str:
    """The compact "closest to parity" table in HTML ("" when none)."""
    from lotr_sim.reports.verdict_text import parity_rows
    return _rendered(parity_rows(v), _html)


def fixes_markdown(v) -> str:
    """The suggested fixes (``verdict_text.fixes_rows``) as a Markdown table ("" when none are
    shipped for the baseline's rules and players)."""
    from lotr_sim.reports.verdict_text import fixes_rows
    return _rendered(fixes_rows(v), _markdown)


def fixes_html(v) -> str:
    """The suggested fixes as an HTML table ("" when none)."""
    from lotr_sim.reports.verdict_text import fixes_rows
    return _rendered(fixes_rows(v), _html)


def _is_pairing(r) -> bool:
    return r.get("varied") == "pairings"


def point_label(label, width: int | None = None) -> str:
    """A point's label for the terminal table, with room to break only between words: a grid
    point's settings separated by ", ", and, when ``width`` is given, a setting longer than
    it broken after its "=" (``end_on_last_card=`` / ``end_of_turn``); never inside a name or
    a value."""
    text = str(label)
    parts = text.split(",")
    if not (len(parts) > 1 and all("=" in x for x in parts)):
        parts = [text]
    return ", ".join(x.replace("=", "=\n", 1) if width is not None and len(x) + 1 > width and "=" in x else x
                     for x in parts)


def _table_width(t) -> int:
    """The width a rich table takes with every cell on its lines as given (no wrapping)."""
    from rich.console import Console
    from rich.measure import Measurement
    con = Console(width=100_000)
    return Measurement.get(con, con.options, t).maximum


def compact_rich(df, outcomes, title: str = "", width: int = 80):
    """The terminal table within ``width`` columns: point, Good's rate with its interval,
    the other outcomes' rates (the draw rate with its interval too when draws are not
    negligible, ``draws_shown``), Good's paired change in percentage points (games only when
    they differ between points). Pairing points are left to ``pairings_rich``. Never "…",
    and a label breaks only between words: when the table is too wide the paired change's
    interval goes under it, then a grid point's settings and a long setting's value go on
    lines of their own."""
    sel = df[[not _is_pairing(r) for _, r in df.iterrows()]] if "varied" in df else df
    t = _compact(sel, outcomes, title, delta_lines=False, label_width=None)
    if _table_width(t) <= width:
        return t
    t = _compact(sel, outcomes, title, delta_lines=True, label_width=None)
    if _table_width(t) <= width:
        return t
    rest = _table_width(_compact(sel, outcomes, title, delta_lines=True, label_width=None, labels=False))
    return _compact(sel, outcomes, title, delta_lines=True, label_width=max(12, width - rest))


def _compact(sel, outcomes, title: str, delta_lines: bool, label_width: int | None, labels: bool = True):
    from rich import box
    from rich.table import Table
    o0 = outcomes[0]
    same = sel["games"].nunique() == 1 and "precision_met" not in sel
    if same and len(sel):
        title = f"{title} ({int(sel['games'].iloc[0]):,} games per point)" if title else ""
    t = Table(title=title or None, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0), pad_edge=False)
    texts = [point_label(r["label"], label_width) if labels else "" for _, r in sel.iterrows()]
    longest = max((len(w) for x in texts for w in x.split()), default=5)
    t.add_column("point", overflow="fold", min_width=max(5, longest) if label_width is not None else None)
    if not same:
        t.add_column("games", justify="right", overflow="fold")
    t.add_column(f"{_name(o0)} %\n[95% CI]", justify="right", overflow="fold")
    draws = draws_shown(sel, outcomes)
    for o in outcomes[1:]:
        t.add_column(f"{_name(o)} %\n[95% CI]" if draws and o == DRAW else f"{_name(o)}\n%",
                     justify="right", overflow="fold")
    t.add_column(f"Δ{_name(o0)}, percentage\npoints [95% CI]" if not delta_lines
                 else f"Δ{_name(o0)},\npercentage\npoints [95% CI]", justify="right", overflow="fold")
    for text, (_, r) in zip(texts, sel.iterrows()):
        cells = [text]
        if not same:
            cells.append(f"{int(r['games'])}" + ("*" if _missed(r) else ""))
        # with draws shown, the intervals go under their rates: the table stays within 80 columns
        cells.append(_rate_ci(r, o0).replace(" ", "\n", 1) if draws else _rate_ci(r, o0))
        cells += [_rate_ci(r, o).replace(" ", "\n", 1) if draws and o == DRAW else _pct(r[f"rate_{o}"])
                  for o in outcomes[1:]]
        if r["point"] == 0:
            cells.append("baseline")
        else:
            cells.append(f"{100 * r[f'delta_{o0}']:+.1f}{chr(10) if delta_lines else ' '}"
                         f"[{100 * r[f'delta_{o0}_lo']:.1f}, {100 * r[f'delta_{o0}_hi']:.1f}]")
        t.add_row(*cells)
    return t


def pairing_matrix(df, sides) -> tuple[list[str], list[str], dict]:
    """``(row policies, column policies, {(row, col): row of df})`` of the points played on
    the baseline rules, by the first side's (rows) and second side's (columns) policy; rows
    and columns weak to strong (``pairing_order``)."""
    from lotr_sim.experiments.verdict import on_baseline_rules
    cells: dict = {}
    for _, r in df.iterrows():
        if not on_baseline_rules(r):
            continue
        pol = json.loads(r["policies"])
        key = (pol.get(sides[0]), pol.get(sides[1]))
        cells.setdefault(key, r)
    order = pairing_order(cells, sides)
    rows_ = [p for p in order if any(k[0] == p for k in cells)]
    cols = [p for p in order if any(k[1] == p for k in cells)]
    return rows_, cols, cells


SEARCH_PLAYERS = ("search-fast", "search", "search-classic")   # lotr_sim.players, weak to strong


def ladder_rank(name, seen: list) -> tuple:
    """A player's place on the skill ladder, weak to strong: random, greedy, the game's other
    presets (in ``seen`` order: the order the sweep played them in, which is the game's),
    tuned, other tuned weights (``tuned:FILE``, ``weights:...``), then the players of
    ``lotr_sim.players`` (``SEARCH_PLAYERS`` first, in that order)."""
    from lotr_sim.games.players import is_generic
    n = str(name)
    at = seen.index(name) if name in seen else len(seen)
    if n == "random":
        return (0, 0, n)
    if n == "greedy":
        return (1, 0, n)
    if n == "tuned":
        return (3, 0, n)
    if n.startswith(("tuned:", "weights:")):
        return (4, at, n)
    if n in SEARCH_PLAYERS:
        return (5, SEARCH_PLAYERS.index(n), n)
    if is_generic(n):
        return (6, at, n)
    return (2, at, n)


def pairing_order(cells: dict, sides) -> list:
    """Every player of a pairings matrix (``cells``: ``{(first side's, second side's
    player): row}``), weak to strong. When the matrix is complete (every player met every
    player, itself included, on both sides), by measured strength: a player's mean score over
    its cells on both sides (its side's win rate plus half the draw rate), so the
    side's own advantage counts equally for every player; ties and incomplete matrices by
    ``ladder_rank``."""
    seen = list(dict.fromkeys(p for k in cells for p in k))
    rank = {p: ladder_rank(p, seen) for p in seen}
    complete = all((a, b) in cells for a in seen for b in seen)
    cols = [f"rate_{s}" for s in sides[:2]]
    if not complete or len(sides) < 2 or not all(c in r for r in cells.values() for c in cols):
        return sorted(seen, key=rank.__getitem__)

    def score(r, i) -> float:
        draw = float(r[f"rate_{DRAW}"]) if f"rate_{DRAW}" in r else 0.0
        return float(r[cols[i]]) + 0.5 * draw

    strength = {p: sum(score(cells[p, q], 0) + score(cells[q, p], 1) for q in seen) / (2 * len(seen))
                for p in seen}
    return sorted(seen, key=lambda p: (strength[p], rank[p]))


def pairings_rich(df, outcomes, sides):
    """Good's win rate (percent) under every pairing of policies, or None; when draws are
    not negligible (``draws_shown``) each cell also gives the draw rate with its 95%
    interval."""
    from rich import box
    from rich.table import Table
    from lotr_sim.experiments.verdict import played_pairings
    if not played_pairings(df):
        return None
    o0 = outcomes[0]
    rws, cols, cells = pairing_matrix(df, sides)
    shown = {int(r["point"]) for r in cells.values()}    # the rows in the table: pairings, baseline, grid cells
    draws = draws_shown(df[df["point"].astype(int).isin(shown)], outcomes)
    title = f"{_name(o0)} win rate % by AI pairing"
    caption = f"rows: {_name(sides[0])}'s AI, columns: {_name(sides[1])}'s AI, weak to strong"
    if draws:
        title += ", and draws % [95% CI]"
        caption += f"; each cell: {_name(o0)} win %, then draw % [95% CI]"
    t = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, caption=caption)
    t.add_column(f"{_name(sides[0])} \\ {_name(sides[1])}", overflow="fold")
    for c in cols:
        t.add_column(str(c), justify="right", overflow="fold")

    def cell(key) -> str:
        if key not in cells:
            return "-"
        r = cells[key]
        return _pct(r[f"rate_{o0}"]) + (f"\ndraw {_rate_ci(r, DRAW)}" if draws else "")
    for rp in rws:
        t.add_row(str(rp), *[cell((rp, c)) for c in cols])
    return t


def console_summary(df, outcomes, sides, verdict: dict | None, title: str = "", width: int = 80) -> list:
    """What ``lotr-sim sweep`` prints within ``width`` columns: the compact table, the
    pairings matrix and the verdict (plain text: no rich markup is read from it)."""
    from rich.text import Text
    out = [compact_rich(df, outcomes, title, width)]
    pm = pairings_rich(df, outcomes, sides)
    if pm is not None:
        out.append(pm)
    if verdict:
        out.append(Text("Verdict: " + verdict["sentence"], style="bold"))
        out += [Text(ln) for ln in verdict["lines"][1:]]
    return out
