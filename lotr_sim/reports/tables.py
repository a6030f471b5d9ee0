"""Result tables: Markdown, HTML and a rich table for the terminal."""
from __future__ import annotations

import html


def _pct(x) -> str:
    return "-" if x != x else f"{100 * x:.1f}"


def rows(df, outcomes, reasons) -> tuple[list[str], list[list[str]]]:
    o0 = outcomes[0]
    head = ["point", "games"] + [f"{o} % [95% CI]" for o in outcomes] + \
        [f"Δ{o0} pts [95% CI]", "rounds mean", "rounds q50"] + [f"{r} %" for r in reasons]
    body = []
    for _, r in df.iterrows():
        line = [str(r["label"]), str(int(r["games"]))]
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


def results_markdown(df, outcomes, reasons) -> str:
    head, body = rows(df, outcomes, reasons)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(b) + " |" for b in body]
    return "\n".join(out)


def results_html(df, outcomes, reasons) -> str:
    head, body = rows(df, outcomes, reasons)
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for b in body:
        out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in b) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def results_rich(df, outcomes, reasons, title: str = ""):
    from rich.table import Table
    head, body = rows(df, outcomes, reasons)
    t = Table(title=title or None)
    for i, h in enumerate(head):
        t.add_column(h, justify="left" if i == 0 else "right")
    for b in body:
        t.add_row(*b)
    return t
