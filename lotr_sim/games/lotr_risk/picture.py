"""Risk: The Lord of the Rings' board picture (``lotr_sim.replay``): the 42 territories where
``configs/boards/lotr-risk.toml`` places them, ringed in their region's colour (LR-1.1) and
filled in their holder's, strongholds square (LR-5.4), sites of power marked (LR-8.2),
borders by kind (land, bridge, sea between ports; LR-5.1/6.1), the Fellowship's path with the
Ring on it (LR-10). The position at each event is the trace's own: each ``turn_start``
snapshot, and ``trace._apply`` (the replay ``Game.replay_check`` audits) between them; before
the first turn the set-up's placements build it from an empty board."""
from __future__ import annotations

from lotr_sim.games.account import points_text, seat_label
from lotr_sim.games.lotr_risk import trace as TR
from lotr_sim.games.picture import Walker as _Walker
from lotr_sim.games.picture import esc, line_svg, positions, slug, spot_svg, table_html

PLAYER_FILL = {"p1": "#9ec5f0", "p2": "#f2a3a3", "p3": "#a8dca0", "p4": "#f5c98a", "neutral": "#dcdcdc"}
STYLE = """<style>
.ca{fill:#111}.cb{fill:#7a5a00}
line.land{stroke:#999;stroke-width:2}
line.bridge{stroke:#8a6d3b;stroke-width:4;stroke-dasharray:3 3}
line.sea{stroke:#3d85c6;stroke-width:2;stroke-dasharray:2 6}
.path{fill:none;stroke:#c9a227;stroke-width:5;stroke-dasharray:10 6;opacity:.75}
.legend{font-size:12px;text-anchor:start!important}
</style>"""


class Walker(_Walker):
    """LOTR Risk's picture walked through a trace (``lotr_sim.games.picture.Walker``)."""

    def __init__(self, game, cfg, comp, layout):
        super().__init__(game, cfg, comp, layout)
        self.tdata = cfg.data["territories"]
        self.names = list(comp.names["territories"])
        self.pos = positions(layout, self.names)
        self.region = {t: self.tdata.get(t, {}).get("region", "") for t in self.names}
        self.bonus = {r: int(cfg.params.get(f"bonus_{r.lower()}", cfg.data["regions"][r].get("bonus", 0)))
                      for r in cfg.data["regions"]}
        self.path = list(comp.names["path"])
        self.st = {"owners": {t: None for t in self.names}, "battalions": {t: 0 for t in self.names},
                   "leaders": [None] * 8, "ring_step": 0}
        self.players = [f"p{i + 1}" for i in range(len(game.seat_names(comp)))]
        self.hands: dict[str, list[str]] = {p: [] for p in self.players}
        self.adv: dict[str, list[str]] = {p: [] for p in self.players}
        self.end: dict | None = None

    # -- the board ---------------------------------------------------------------------------
    def svg(self) -> str:
        w, h = self.layout.get("size", [1100, 760])
        r = float(self.layout.get("radius", 27))
        colours = self.layout.get("region_colours", {})
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h + 40}" role="img" '
                 f'aria-label="LOTR Risk board">{STYLE}']
        for a, b, kind in self.cfg.data["board"]["edges"]:
            if a in self.pos and b in self.pos:
                parts.append(line_svg(self.pos[a], self.pos[b], kind))
        pts = [self.pos[t] for t in self.path if t in self.pos]
        if pts:
            parts.append('<polyline class="path" points="' + " ".join(f"{x:.0f},{y:.0f}" for x, y in pts)
                         + '"><title>the Fellowship\'s path (LR-10.1)</title></polyline>')
        for t in self.names:
            x, y = self.pos[t]
            d = self.tdata.get(t, {})
            ring = colours.get(self.region[t], "#888")
            extra = f' style="stroke:{ring};stroke-width:6"'
            parts.append(spot_svg(slug(t), x, y, r, t, extra, "square" if d.get("stronghold") else "circle"))
            if d.get("site"):
                parts.append(f'<path d="M{x + r - 2:.0f} {y - r - 2:.0f} l7 7 l-7 7 l-7 -7 Z" fill="#7b3fb0" '
                             f'stroke="#fff"><title>site of power: {esc(d["site"])}</title></path>')
            if t in self.path and self.cfg.data.get("fellowship", {}).get("marked") and \
                    t in self.cfg.data["fellowship"]["marked"]:
                parts.append(f'<text x="{x - r + 2:.0f}" y="{y + r + 4:.0f}" style="font-size:14px;fill:#c9a227">&#9888;</text>')
        parts.append('<g id="m-ring" visibility="hidden"><circle r="9" cx="0" cy="0" fill="#ffd700" stroke="#8a6d00" '
                     'stroke-width="3"/><title>the Ring (the Fellowship)</title></g>')
        legend = " · ".join(f"{k}" for k in colours)
        parts.append(f'<g transform="translate(12,{h + 12})"><text class="legend" x="0" y="0">'
                     'fill: holder (p1 blue, p2 red, p3 green, p4 orange, neutral grey) &#183; number: battalions &#183; '
                     '&#9733; leader &#183; square: stronghold &#183; purple diamond: site of power</text>'
                     f'<text class="legend" x="0" y="16">ring colour: region ({esc(legend)}) &#183; dashed brown: bridge '
                     '&#183; dotted blue: sea &#183; gold: the Fellowship\'s path, the gold disc the Ring</text></g>')
        parts.append("</svg>")
        return "".join(parts)

    # -- the position ------------------------------------------------------------------------
    def apply(self, e: dict) -> None:
        ev = e["event"]
        if ev == "turn_start":
            self.st = TR._snap(e)
            self.hands = {p: list(h) for p, h in e.get("hands", {}).items()}
            self.adv = {p: list(h) for p, h in e.get("adventure_hands", {}).items()}
            return
        if ev == "game_end":
            self.end = e
            return
        TR._apply(self.st, e)
        p = e.get("player")
        if ev == "card_drawn":
            self.hands.setdefault(p, []).append(e["card"])
        elif ev == "trade":
            for c in e["cards"]:
                if c in self.hands.get(p, []):
                    self.hands[p].remove(c)
        elif ev == "adventure":
            if e["what"] in ("drawn", "dealt"):
                self.adv.setdefault(p, []).append(e["card"])
            elif e["card"] in self.adv.get(p, []):
                self.adv[p].remove(e["card"])
        elif ev == "eliminated":
            self.hands[p] = []

    def heading(self, e: dict) -> str | None:
        if e["event"] == "turn_start":
            return f"Turn {e['turn']} (round {e['round']}): {seat_label(e['player'], e['side'])} — the Ring in {e['ring']}"
        if e["event"] == "game_end":
            return "Game over"
        return None

    def event_line(self, e: dict) -> str | None:
        if e["event"] == "place" and e["why"] in ("dealt", "neutral", "claim", "setup"):
            return f"{e['player']} places {e['battalions']} in {e['territory']} ({e['why']})"
        if e["event"] == "territory_deck":
            return f"the territory deck: {len(e['cards'])} cards ({e['why']})"
        if e["event"] == "turn_start":
            return f"{e['player']}'s turn begins; the Ring is in {e['ring']}"
        return TR.format_event(e)

    def focus(self, e: dict) -> tuple[str, ...]:
        out = super().focus(e)
        if e["event"] == "fellowship":
            out = tuple(slug(t) for t in (e.get("from"), e.get("to")) if t in self.pos)
        return out

    def describe(self, kind: str, row) -> str:
        """A decision row (kind, a, b, c) in plain words (play.py's list of decisions)."""
        from lotr_sim.games.lotr_risk import layout as L
        k, a, b, c = (int(x) for x in list(row)[:4])
        names = self.names

        def t(i):
            return names[i] if 0 <= i < len(names) else "-"
        if k == L.A_PASS:
            return {"trade": "trade no set", "attack": "end the attacks", "fortify": "end the turn",
                    "power": "close no bridge", "defend": "do not withdraw", "courage": "keep the card",
                    "smeagol": "keep the card", "balrog": "keep the card"}.get(kind, "pass")
        if k == L.A_CLAIM:
            return f"claim {t(a)}"
        if k == L.A_PLACE:
            return f"place {b} battalion(s) in {t(a)}"
        if k == L.A_LEADER:
            return f"put a Leader in {t(a)}"
        if k == L.A_TRADE:
            cards = ", ".join(f"card {int(ch) + 1}" for ch in f"{a:03d}")
            return f"trade {cards} for {b}" + (f", +2 in {t(c)}" if c >= 0 else "")
        if k == L.A_ATTACK:
            return f"attack {t(b)} from {t(a)} with {c} dice"
        if k == L.A_MOVEIN:
            return f"move in {a} battalion(s)"
        if k in (L.A_FORT, L.A_FORTL):
            return f"move {c} battalion(s) {t(a)} -> {t(b)}" + (" with the Leader" if k == L.A_FORTL else "")
        if k == L.A_LMOVE:
            return f"move the Leader of slot {a} to {t(b)}"
        if k == L.A_ADISC:
            adv = self.comp.names["adventure"]
            return f"discard {adv[b] if 0 <= b < len(adv) else 'card ' + str(a + 1)}"
        if k == L.A_DDICE:
            return f"defend with {a} dice"
        if k == L.A_POWER:
            if kind == "power":
                br = self.comp.names["bridges"]
                return f"close the bridge {br[b] if 0 <= b < len(br) else b}"
            if kind == "defend":
                return f"withdraw to {t(b)}"
            where = f" on {t(b)}" if 0 < b < len(names) or (b == 0 and kind == "courage") else ""
            return f"play adventure card {a + 1} of the hand{where}" + (f" -> {t(c)}" if c else "")
        return f"{kind} row {list(row)}"

    def tally(self) -> dict[str, dict[str, int]]:
        """Per player: territories, battalions, strongholds, regions held and the board's
        points (LR-11.2 without the adventure cards' points, which the trace gives at the end)."""
        st = self.st
        out = {p: dict(territories=0, battalions=0, strongholds=0, regions=0, points=0) for p in self.players}
        for t in self.names:
            o = st["owners"].get(t)
            if o in out:
                out[o]["territories"] += 1
                out[o]["battalions"] += st["battalions"][t]
                out[o]["strongholds"] += 1 if self.tdata.get(t, {}).get("stronghold") else 0
        for rg, terrs in ((r, [t for t in self.names if self.region[t] == r]) for r in self.bonus):
            owners = {st["owners"].get(t) for t in terrs}
            if len(owners) == 1 and (o := owners.pop()) in out:
                out[o]["regions"] += self.bonus[rg]
        pter, pstr = int(self.cfg.params.get("points_territory", 1)), int(self.cfg.params.get("points_stronghold", 2))
        for p, d in out.items():
            d["points"] = d["territories"] * pter + d["regions"] + d["strongholds"] * pstr
        return out

    def _spot(self, t: str) -> tuple:
        st = self.st
        o = st["owners"].get(t)
        n = st["battalions"].get(t, 0)
        lead = sum(1 for x in st["leaders"] if x == t)
        d = self.tdata.get(t, {})
        tip = [f"{t} ({self.region[t]}" + (f", stronghold {d['stronghold']}" if d.get("stronghold") else "")
               + (f", site of power {d['site']}" if d.get("site") else "") + ")",
               f"held by {o or 'nobody'}: {n} battalion(s)" + (f", {lead} leader(s)" if lead else "")]
        return PLAYER_FILL.get(o or "", "#f6f6f6"), str(n) if n else "", "\u2605" * lead, "\n".join(tip)

    def view(self) -> tuple[dict, dict, str, str]:
        spots = {slug(t): self._spot(t) for t in self.names}
        step = self.st.get("ring_step", 0)
        ring = None
        if 0 <= step < len(self.path) and self.path[step] in self.pos:
            x, y = self.pos[self.path[step]]
            ring = (round(x - 22), round(y + 20))
        tally = self.tally()
        rows = [[p, d["territories"], d["battalions"], d["strongholds"], d["regions"], d["points"],
                 len(self.hands.get(p, [])), ", ".join(self.adv.get(p, [])) or "-"] for p, d in tally.items()]
        panel = table_html(rows, ["player", "terr.", "batt.", "strongh.", "region pts", "board pts",
                                  "terr. cards", "adventure cards"])
        where = self.path[step] if 0 <= step < len(self.path) else "beyond the path"
        panel += f"<p>the Ring: step {step} ({esc(where)}) of {len(self.path)}</p>"
        if self.end is not None:
            e = self.end
            score = f"Final: {seat_label(e['winner_player'], e['winner'])} wins ({e['reason']}) — {points_text(e['points'])}"
        else:
            score = "Board points (LR-11.2, adventure points at the end): " + \
                points_text({p: d["points"] for p, d in tally.items()})
        return spots, {"ring": ring}, panel, score

    def text(self) -> str:
        st = self.st
        lines = []
        for rg in self.bonus:
            cells = [f"{t} {st['owners'].get(t) or '-'}:{st['battalions'].get(t, 0)}"
                     + ("*" * sum(1 for x in st["leaders"] if x == t))
                     for t in self.names if self.region[t] == rg]
            lines.append(f"  {rg}: " + ", ".join(cells))
        for p, d in self.tally().items():
            lines.append(f"  {p}: {d['territories']} territories, {d['battalions']} battalions, board points "
                         f"{d['points']}; cards {', '.join(self.hands.get(p, [])) or '-'}; adventure "
                         f"{', '.join(self.adv.get(p, [])) or '-'}")
        step = st.get("ring_step", 0)
        lines.append(f"  the Ring: step {step} of {len(self.path)}"
                     + (f" ({self.path[step]})" if 0 <= step < len(self.path) else ""))
        return "\n".join(lines)
