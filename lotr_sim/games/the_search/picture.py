"""The Search's board picture (``lotr_sim.replay``): the 6 x 8 tile map (TS-3.1), each
placed tile a square of four sections N E S W coloured by terrain (TS-1.2; a neutral section
grey, TS-3.4), the tokens on their sites (TS-4.3) and the two hobbits (Frodo blue, Sam red),
the Shire and Mount Doom marked (TS-2.1, TS-5.3). Colours and the tile size are in
``configs/boards/the-search.toml``. The position at each event is the trace's own: each
``snapshot`` (the map, hobbits, hands, every token), and ``trace._apply`` (the replay
``Game.replay_check`` audits) between them; a token's site is its ``token_placed`` event's
region."""
from __future__ import annotations

from lotr_sim.games.account import points_text, side_name
from lotr_sim.games.the_search import trace as TR
from lotr_sim.games.the_search.layout import AT_DOOM, AT_SHIRE, COLOURS, GC, MAP_C, MAP_R, O_TCOL, O_TVAL, SHIRE_TILE, T_HELD, T_MAP, T_USED
from lotr_sim.games.picture import Walker as _Walker
from lotr_sim.games.picture import table_html

SIDES = ("frodo", "sam")
STYLE = """<style>
.ca{fill:#fff;font-size:11px!important;paint-order:stroke;stroke:#000;stroke-width:2.5px}.cb{fill:#000}
.grid{fill:#f4f1ea;stroke:#d8d2c4;stroke-width:1}
.sec{stroke:#444;stroke-width:.8}
.legend{font-size:9px;text-anchor:start!important}
</style>"""
# a section's triangle (unit square, centre 0.5,0.5) and where its label goes
TRI = {0: ((0, 0), (1, 0), (0.5, 0.5)), 1: ((1, 0), (1, 1), (0.5, 0.5)),
       2: ((1, 1), (0, 1), (0.5, 0.5)), 3: ((0, 1), (0, 0), (0.5, 0.5))}
MID = {0: (0.5, 0.2), 1: (0.8, 0.52), 2: (0.5, 0.84), 3: (0.2, 0.52)}


def _origin(events) -> tuple[int, int, int, int]:
    """The drawn map's top-left engine cell (row, col) and its rows and columns (at least 6 x 8)."""
    cells = [e["cell"] for e in events if e.get("event") == "place"]
    for e in events:
        if e.get("event") == "snapshot":
            cells += [c[0] for c in e["cells"]]
    if not cells:
        return 0, 0, MAP_R, MAP_C
    r0, c0 = min(c // GC for c in cells), min(c % GC for c in cells)
    r1, c1 = max(c // GC for c in cells), max(c % GC for c in cells)
    return r0, c0, max(MAP_R, r1 - r0 + 1), max(MAP_C, c1 - c0 + 1)


class Walker(_Walker):
    """The Search's picture walked through a trace (``lotr_sim.games.picture.Walker``)."""

    quiet_events = ("snapshot",)

    def __init__(self, game, cfg, comp, layout):
        super().__init__(game, cfg, comp, layout)
        self.tile = float(layout.get("tile", 78))
        self.tc = layout.get("terrain_colours", {})
        self.kc = layout.get("token_colours", {})
        self.hc = layout.get("hobbit_colours", {"frodo": "#1155cc", "sam": "#cc0000"})
        self.tokens = list(comp.names["tokens"])
        self.tval = [int(comp.cf[O_TVAL + i]) for i in range(len(self.tokens))]
        self.tcol = [COLOURS[int(comp.cf[O_TCOL + i])] for i in range(len(self.tokens))]
        self.origin = (0, 0, MAP_R, MAP_C)
        self.cells: dict[int, tuple] = {}          # engine cell -> (tile, rotation, neutral, sections)
        self.hob = [AT_SHIRE, AT_SHIRE]
        self.tok = [[0, -1] for _ in self.tokens]
        self.site: dict[int, int] = {}             # token -> the section it lies on
        self.hands: dict[str, list[str]] = {s: [] for s in SIDES}
        self.doom = -1
        self.phase = 1
        self.end: dict | None = None

    def steps(self, events):
        self.origin = _origin(events)
        return super().steps(events)

    def start(self, events) -> None:
        """Take the drawn map's origin from ``events`` (the human seat's game so far)."""
        self.origin = _origin(events)

    # -- geometry ----------------------------------------------------------------------------
    def _rc(self, cell: int) -> tuple[int, int]:
        r0, c0, _, _ = self.origin
        return cell // GC - r0, cell % GC - c0

    def _xy(self, r: int, c: int, fx: float, fy: float) -> tuple[float, float]:
        return 20 + (c + fx) * self.tile, 20 + (r + fy) * self.tile

    def svg(self) -> str:
        _, _, nr, nc = self.origin
        t = self.tile
        w, h = 40 + nc * t, 40 + nr * t
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0f} {h + 40:.0f}" role="img" '
                 f'aria-label="The Search map">{STYLE}']
        for r in range(nr):
            for c in range(nc):
                x, y = self._xy(r, c, 0, 0)
                parts.append(f'<rect class="grid" x="{x:.0f}" y="{y:.0f}" width="{t:.0f}" height="{t:.0f}"/>')
                for d in range(4):
                    sid = f"c{r}_{c}_{d}"
                    pts = " ".join(f"{self._xy(r, c, fx, fy)[0]:.1f},{self._xy(r, c, fx, fy)[1]:.1f}" for fx, fy in TRI[d])
                    mx, my = self._xy(r, c, *MID[d])
                    parts.append(f'<g><title id="t-{sid}">row {r} col {c} {"NESW"[d]}</title>'
                                 f'<polygon id="s-{sid}" class="sec" points="{pts}" fill="none"/>'
                                 f'<text class="ca" id="a-{sid}" x="{mx:.0f}" y="{my + 4:.0f}"></text>'
                                 f'<text class="cb" id="b-{sid}" x="{mx:.0f}" y="{my + 16:.0f}"></text></g>')
        for r in range(nr):
            x, y = self._xy(r, 0, 0, 0.5)
            parts.append(f'<text x="{x - 9:.0f}" y="{y + 4:.0f}" style="font-size:11px">{r}</text>')
        for c in range(nc):
            x, y = self._xy(0, c, 0.5, 0)
            parts.append(f'<text x="{x:.0f}" y="{y - 6:.0f}" style="font-size:11px">{c}</text>')
        parts.append('<g id="m-shire" visibility="hidden"><rect x="-15" y="-9" width="30" height="18" rx="4" '
                     'fill="#fff" stroke="#2e7d32" stroke-width="2"/><text y="4" style="font-size:10px">Shire</text></g>')
        parts.append('<g id="m-doom" visibility="hidden"><circle r="15" fill="#222" stroke="#ff5722" stroke-width="3"/>'
                     '<text y="4" style="font-size:9px;fill:#ff9800">Doom</text><title>Mount Doom (TS-5.3)</title></g>')
        for i, s in enumerate(SIDES):
            parts.append(f'<g id="m-{s}" visibility="hidden"><circle r="11" fill="{self.hc.get(s, "#000")}" '
                         f'stroke="#fff" stroke-width="3"/><text y="4" style="font-size:11px;fill:#fff;font-weight:700">'
                         f'{s[0].upper()}</text><title>{side_name(s)}</title></g>')
        legend = ", ".join(f"{k} {v}" for k, v in (("W", "water"), ("M", "mountain"), ("F", "forest"), ("D", "desert")))
        parts.append(f'<text class="legend" x="12" y="{h + 16:.0f}">sections by terrain ({legend}; grey: neutral) '
                     '&#183; white text: a token on its site &#183; F Frodo, S Sam</text>')
        parts.append("</svg>")
        return "".join(parts)

    # -- the position ------------------------------------------------------------------------
    def apply(self, e: dict) -> None:
        k = e["event"]
        if k == "snapshot":
            self.cells = {c[0]: (c[1], c[2], c[3], c[4]) for c in e["cells"]}
            self.hob = list(e["hobbits"])
            self.tok = [list(t) for t in e["tokens"]]
            self.hands = {s: list(h) for s, h in e.get("hands", {}).items()}
            for t in list(self.site):
                if self.tok[t][0] != T_MAP:
                    del self.site[t]
            return
        st = {"cells": {}, "hob": self.hob, "tok": self.tok}
        TR._apply(st, e)
        if k == "place":
            self.cells[e["cell"]] = (e["tile"], e["rotation"], int(e["neutral"]), e["sections"])
            side = e.get("side")
            if side in self.hands and e["pattern"] in self.hands[side]:
                self.hands[side].remove(e["pattern"])
        elif k == "draw" and e.get("side") in self.hands:
            self.hands[e["side"]].append(e["pattern"])
        elif k == "token_placed":
            self.site[e["token"]["id"]] = e["region"]
        elif k in ("token_taken", "token_used"):
            self.site.pop(e["token"]["id"], None)
        elif k == "boat":
            for t in e["discarded"]:
                self.site.pop(t["id"], None)
        elif k == "phase":
            self.phase = e["phase"]
            if e["phase"] == 3:
                self.doom = e["doom_cell"]
        elif k == "game_end":
            self.end = e

    def heading(self, e: dict) -> str | None:
        if e["event"] == "turn_start":
            return f"Turn {e['turn']} (round {e['round']}, phase {e['phase']}): {side_name(e['side'])}"
        if e["event"] == "game_end":
            return "Game over"
        return None

    def event_line(self, e: dict) -> str | None:
        return TR.format_event(e)

    def describe(self, kind: str, row) -> str:
        """A decision row (kind, a, b, c) in plain words (play.py, movement.py); rows and
        columns are those of the map drawn so far."""
        from lotr_sim.games.the_search import layout as L
        k, a, b, c = (int(x) for x in list(row)[:4])
        pats = self.comp.names["tiles"]

        def where(sec):
            if sec == AT_SHIRE:
                return "the Shire"
            if sec == AT_DOOM:
                return "Mount Doom"
            r, q = self._rc(sec // 4)
            return f"row {r} col {q} {'NESW'[sec % 4]}"
        if k in (L.A_PLACE, L.A_NEUTRAL):
            tile, rot = divmod(c, 256)
            r, q = self._rc(b)
            pat = pats[tile] if 0 <= tile < len(pats) else "?"
            if k == L.A_NEUTRAL:
                return f"lay tile {pat} (hand {a + 1}) NEUTRAL at row {r} col {q}"
            return f"lay tile {pat} (hand {a + 1}) at row {r} col {q} turned {rot} -> {TR._rotated(pat, rot)}"
        if k == L.A_STEP:
            return f"step to {where(a)}" + (" (a mover token)" if b else "")
        if k == L.A_GWAIHIR:
            return f"fly with Gwaihir {'NESW'[a]} to {where(b)}"
        if k == L.A_BOAT:
            return "buy a boat (two tokens)"
        if k == L.A_STOP:
            return "stop moving"
        if k == L.A_FIGHT:
            return f"fight with {a} fighter(s)"
        if k == L.A_ENT:
            return "use the Ent" if a else "do not use the Ent"
        return f"{kind} row {list(row)}"

    def focus(self, e: dict) -> tuple[str, ...]:
        k = e["event"]
        if k == "place":
            return tuple(f"c{e['row']}_{e['col']}_{d}" for d in range(4))
        if k == "move" and isinstance(e.get("to"), list):
            r, c, d = e["to"]
            return (f"c{r}_{c}_{'NESW'.index(d)}",)
        return ()

    def _sec_xy(self, sec: int) -> tuple[float, float] | None:
        if sec == AT_SHIRE:
            return self._cell_xy(next((c for c, v in self.cells.items() if v[0] == SHIRE_TILE), None))
        if sec == AT_DOOM:
            return self._doom_xy()
        cell, d = divmod(int(sec), 4)
        r, c = self._rc(cell)
        return self._xy(r, c, *MID[d])

    def _cell_xy(self, cell: int | None) -> tuple[float, float] | None:
        if cell is None:
            return None
        r, c = self._rc(cell)
        return self._xy(r, c, 0.5, 0.5)

    def _doom_xy(self) -> tuple[float, float] | None:
        if self.doom < 0:
            return None
        return self._xy(self.doom // MAP_C, self.doom % MAP_C, 0.5, 0.5)

    def held(self) -> dict[str, dict[str, list[int]]]:
        """Per hobbit, the tokens held and used (ids)."""
        out = {s: {"held": [], "used": []} for s in SIDES}
        for t, (where, who) in enumerate(self.tok):
            if who in (0, 1) and where in (T_HELD, T_USED):
                out[SIDES[who]]["held" if where == T_HELD else "used"].append(t)
        return out

    def view(self) -> tuple[dict, dict, str, str]:
        _, _, nr, nc = self.origin
        on: dict[int, list[int]] = {}
        for t, sec in self.site.items():
            on.setdefault(sec, []).append(t)
        spots = {}
        for r in range(nr):
            for c in range(nc):
                for d in range(4):
                    spots[f"c{r}_{c}_{d}"] = ("none", "", "", f"row {r} col {c} {'NESW'[d]}: no tile yet")
        for cell, (tile, rot, neu, secs) in self.cells.items():
            r, c = self._rc(cell)
            for d in range(4):
                sec = 4 * cell + d
                letter = secs[d] if d < len(secs) else "?"
                fill = self.tc.get("neutral", "#bbb") if neu else self.tc.get(letter, "#ccc")
                toks = on.get(sec, [])
                label = " ".join(self.tokens[t][:3] for t in toks)
                tip = (f"row {r} col {c} {'NESW'[d]}: " + ("neutral" if neu else {"W": "water", "M": "mountain",
                       "F": "forest", "D": "desert"}.get(letter, letter))
                       + "".join(f"\ntoken {self.tokens[t]} ({self.tcol[t]}, value {self.tval[t]})" for t in toks))
                spots[f"c{r}_{c}_{d}"] = (fill, label, "", tip)
        shire = next((c for c, v in self.cells.items() if v[0] == SHIRE_TILE), None)
        marks: dict[str, tuple | None] = {"shire": self._round(self._cell_xy(shire)), "doom": self._round(self._doom_xy())}
        for i, s in enumerate(SIDES):
            xy = self._sec_xy(self.hob[i])
            if xy is not None:
                xy = (xy[0] + (-9 if i == 0 else 9), xy[1] + (6 if self.hob[i] in (AT_SHIRE, AT_DOOM) else 0))
            marks[s] = self._round(xy)
        held = self.held()
        rows = []
        for s in SIDES:
            h = held[s]
            rows.append([side_name(s), " ".join(self.hands.get(s, [])) or "-",
                         ", ".join(f"{self.tokens[t]} ({self.tval[t]})" for t in h["held"]) or "-",
                         ", ".join(self.tokens[t] for t in h["used"]) or "-"])
        panel = table_html(rows, ["hobbit", "hand", "tokens held (value)", "used"])
        on_map = sum(1 for w, _ in self.tok if w == T_MAP)
        panel += f"<p>phase {self.phase} &#183; tiles placed {len(self.cells)} &#183; tokens on the map {on_map}</p>"
        if self.end is not None:
            e = self.end
            who = "a draw" if e["winner"] == "draw" else f"{side_name(e['winner'])} wins"
            score = f"Final: {who} ({e['reason']}) — {points_text(e['points'])}"
        else:
            score = "Token value held (TS-8): " + points_text(
                {s: sum(self.tval[t] for t in held[s]["held"] + held[s]["used"]) for s in SIDES})
        return spots, marks, panel, score

    @staticmethod
    def _round(xy):
        return None if xy is None else (round(xy[0]), round(xy[1]))

    def text(self) -> str:
        snap = {"cells": [[c, v[0], v[1], v[2], v[3]] for c, v in self.cells.items()], "hobbits": self.hob}
        r0, c0, _, _ = self.origin
        lines = [TR.draw_map(snap, self.doom if self.doom >= 0 else None, (r0, c0))] if self.cells else []
        held = self.held()
        for s in SIDES:
            lines.append(f"  {side_name(s)}: hand {' '.join(self.hands.get(s, [])) or '-'}; tokens "
                         + (", ".join(f"{self.tokens[t]} ({self.tval[t]})" for t in held[s]["held"]) or "-"))
        sites = ", ".join(f"{self.tokens[t]} at row {self._rc(sec // 4)[0]} col {self._rc(sec // 4)[1]}"
                          for t, sec in self.site.items())
        lines.append(f"  phase {self.phase}; tokens on the map: {sites or '-'}")
        return "\n".join(lines)

