"""The Siege of Minas Tirith's board picture (``lotr_sim.replay``): the 32 territories where
``configs/boards/minas-tirith.toml`` places them, coloured by kind (MT-2.1: city, walls,
Rammas, fields) and by who stands there, the edges by kind (land, wall, climb, gate; MT-2.2),
banners (MT-2.3), the board edges of each side (MT-2.4) and the Anduin. The position at each
event is the trace's own: its ``setup``/``turn_start`` snapshots and ``trace.apply_event``
between them (the replay ``Game.replay_check`` audits)."""
from __future__ import annotations

from lotr_sim.games.account import points_text
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import trace as TR
from lotr_sim.games.picture import Walker as _Walker
from lotr_sim.games.picture import esc, line_svg, positions, slug, spot_svg, table_html, units_text

KIND_FILL = {"city": "#e9dfc2", "wall": "#d4cab3", "rammas": "#e4dcc6", "field": "#f6f3ea"}
GOOD_FILL, EVIL_FILL, BOTH_FILL = "#b9d2f3", "#f3bcbc", "#dcc0ee"
ABBREV = {"infantry": "inf", "archer": "arch", "cavalry": "cav", "mounted_archer": "m.arch",
          "crossbow": "xbow", "warg": "warg", "black_rider": "rider", "troll": "troll", "mumak": "mumak"}
STYLE = """<style>
.ca{fill:#0b3d91}.cb{fill:#a10000}
line.land{stroke:#999;stroke-width:2}
line.wall{stroke:#6b5d45;stroke-width:7;stroke-linecap:round}
line.climb{stroke:#8a6d3b;stroke-width:2.5;stroke-dasharray:7 4}
line.gate{stroke:#c9a227;stroke-width:8}
.river{fill:none;stroke:#9cc3e6;stroke-width:34;stroke-linejoin:round;stroke-linecap:round;opacity:.8}
.edge-good{stroke:#2a6fd6!important;stroke-width:3.5!important}
.edge-evil{stroke:#c0392b!important;stroke-width:3.5!important}
.legend{font-size:12px;text-anchor:start!important}
</style>"""


class Walker(_Walker):
    """Minas Tirith's picture walked through a trace (``lotr_sim.games.picture.Walker``)."""

    def __init__(self, game, cfg, comp, layout):
        super().__init__(game, cfg, comp, layout)
        self.terrs = {t["name"]: t for t in cfg.data["territories"]}
        self.pos = positions(layout, self.terrs)
        self.st: dict | None = None
        self.end: dict | None = None
        nm = comp.names
        self.upts = {(nm["unit_sides"][u], nm["unit_types"][u]): int(comp.cf[C.O_UPTS + u])
                     for u in range(len(nm["unit_types"]))}

    # -- the board ---------------------------------------------------------------------------
    def svg(self) -> str:
        w, h = self.layout.get("size", [1100, 740])
        r = float(self.layout.get("radius", 34))
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h + 40}" role="img" '
                 f'aria-label="Minas Tirith board">{STYLE}']
        river = self.layout.get("river")
        if river:
            parts.append('<polyline class="river" points="' + " ".join(f"{x},{y}" for x, y in river) + '"/>')
        for a, b, kind in self.cfg.data["board"]["edges"]:
            if a in self.pos and b in self.pos:
                parts.append(line_svg(self.pos[a], self.pos[b], kind))
        for name, t in self.terrs.items():
            x, y = self.pos[name]
            edge = t.get("edge", "none")
            cls = f' class="edge-{edge}"' if edge in ("good", "evil") else ""
            shape = "square" if t.get("kind") in ("city", "wall") else "circle"
            parts.append(spot_svg(slug(name), x, y, r, name, cls, shape))
            if t.get("banner"):
                parts.append(f'<g transform="translate({x + r * 0.62:.0f},{y - r * 0.95:.0f})">'
                             '<title>banner (MT-2.3)</title><line x1="0" y1="0" x2="0" y2="18" stroke="#333" '
                             'stroke-width="1.5"/><path d="M0 0 L13 4 L0 9 Z" fill="#f0f0f0" stroke="#333"/></g>')
        parts.append(f'<g class="legend" transform="translate(12,{h + 12})">'
                     '<text class="legend" x="0" y="0">blue: Good units &#183; red: Evil units &#183; '
                     '&#9733; a leader &#183; flag: banner</text>'
                     '<text class="legend" x="0" y="16">edges: grey land, thick wall, dashed climb, gold gate; '
                     'blue/red ring: a side\'s board edge</text></g>')
        parts.append("</svg>")
        return "".join(parts)

    # -- the position ------------------------------------------------------------------------
    def apply(self, e: dict) -> None:
        ev = e["event"]
        if ev in ("setup", "turn_start"):
            self.st = TR.snapshot_of(e)
        elif ev == "game_end":
            self.end = e
        elif self.st is not None:
            TR.apply_event(self.comp, self.st, e)

    def heading(self, e: dict) -> str | None:
        if e["event"] == "turn_start":
            return f"Turn {e['turn']} (round {e['round']}): {e['side'].capitalize()} — die {e['die']}, {e['missions']} missions"
        if e["event"] == "game_end":
            return "Game over"
        return None

    def event_line(self, e: dict) -> str | None:
        if e["event"] == "turn_start":
            drawn = TR._cards(e["cards_drawn"])
            dice = f"mission dice {', '.join(map(str, e['dice_rolled']))}; " if "dice_rolled" in e else ""
            return (f"{e['side'].capitalize()}'s turn: {dice}takes die {e['die']} ({e['missions']} missions), "
                    f"draws {len(e['cards_drawn'])} card(s){': ' + drawn if drawn else ''}")
        line = TR.format_event(e)
        if e["event"] == "assault" and "att_faces" in e:
            line += f"; dice {e['att_faces']} v {e['def_faces']}"
        if e["event"] == "bombard" and "faces" in e:
            line += f"; dice {e['faces']}"
        return line

    def describe(self, kind: str, row) -> str:
        """A decision row in plain words (the step machine's row layout: game.py's comment,
        actions.enum_actions_nb, cards.card_options_nb)."""
        from lotr_sim.games.minas_tirith import layout as L
        nm = self.comp.names
        terr, ut = nm["territories"], nm["unit_types"]
        labels = TR.card_labels(nm)
        k, a, b, c = (int(x) for x in list(row)[:4])
        e = int(row[5]) if len(row) > 5 else 0

        def t(i):
            return terr[i] if 0 <= i < len(terr) else f"territory {i}"

        def card(i):
            return labels[i] if 0 <= i < len(labels) else f"card {i}"
        if k == L.A_PASS:
            return "end the turn's missions (pass)"
        if k == L.A_DIE:
            return f"take die {b} ({b} mission(s))"
        if k == L.A_MOVE:
            return f"move {c} unit(s) {t(a)} -> {t(b)}"
        if k == L.A_CAV2:
            return f"move {c} cavalry {t(a)} -> {t(b)} -> {t(e)} (two territories)"
        if k == L.A_LMOVE:
            return f"move {nm['leaders'][a]} alone to {t(b)}"
        if k == L.A_ASSAULT:
            return f"assault {t(b)} from {t(a)} with {c} unit(s)"
        if k == L.A_BOMBARD:
            return f"bombard {t(b)} from {t(a)}: {c} shooter(s), {row[4]} dice"
        if k == L.A_HOLDER:
            return f"place the units of '{card(a)}' in {t(b)}"
        if k == L.A_LCARD:
            return f"play '{card(a)}' (its leader) in {t(b)}"
        if k == L.A_CATAPULT:
            return f"place catapult '{card(a)}' in {t(b)}"
        if k == L.A_EXCHANGE:
            return f"exchange units in {t(a)}"
        if k == L.A_LOSE:
            return f"lose one {ut[a]} in {t(b)}" + (f" ({c} hit(s) to take)" if c else "")
        if k == L.A_RETREAT:
            return f"retreat from {t(b)} to {t(a)}"
        if k == L.A_CARD:
            if a == L.CD_TRADE:
                return f"trade a set of {TR.CLASS_CARD[b]} cards"
            if a == L.CD_MUSTER:
                return f"play '{card(b)}' (muster)"
            if a == L.CD_LOAD:
                return f"load one {ut[row[4]]} onto '{card(c)}' with hand card {b + 1}"
            return "end the card step"
        return f"{kind} row {list(row)}"

    def points(self) -> dict[str, int]:
        """MT-10.3 points of the position: captured units and leaders, Evil's walls held and
        the gate (the engine's ``points_nb`` on the trace's position)."""
        st = self.st
        p = self.comp.cf
        pts = {"good": 0, "evil": 0}
        if st is None:
            return pts
        for by in ("good", "evil"):
            other = "evil" if by == "good" else "good"
            for u, n in st["captured"][by].items():
                if u != "leaders":
                    pts[by] += n * self.upts.get((other, u), 0)
            pts[by] += len(st["captured"][by]["leaders"]) * int(p[C.P_PTS_LEADER])
        for name, t in self.terrs.items():
            if t.get("kind") == "wall" and st["units"].get(name, {}).get("evil"):
                pts["evil"] += int(p[C.P_PTS_WALL])
        if st["gate_broken"]:
            pts["evil"] += int(p[C.P_PTS_GATE])
        return pts

    def _spot(self, name: str) -> tuple:
        st = self.st
        t = self.terrs[name]
        here = st["units"].get(name, {}) if st else {}
        leaders = st["leaders"].get(name, []) if st else []
        g, e = sum(here.get("good", {}).values()), sum(here.get("evil", {}).values())
        lsides = {l: self.comp.names["leader_sides"][self.comp.names["leaders"].index(l)] for l in leaders}
        gl = sum(1 for s in lsides.values() if s == "good")
        el = len(leaders) - gl
        fill = BOTH_FILL if g and e else GOOD_FILL if g or gl else EVIL_FILL if e or el else KIND_FILL.get(t.get("kind"), "#eee")
        a = (str(g) if g else "") + ("\u2605" * gl)
        b = (str(e) if e else "") + ("\u2605" * el)
        tip = [f"{name} ({t.get('kind')}{', banner' if t.get('banner') else ''}"
               f"{', ' + t.get('edge') + ' edge' if t.get('edge') in ('good', 'evil') else ''})"]
        for side in ("good", "evil"):
            if here.get(side):
                tip.append(f"{side.capitalize()}: {units_text(here[side])}")
        if leaders:
            tip.append("leaders: " + ", ".join(leaders))
        if st:
            cats = [c for c, v in st["catapults"].items() if v["territory"] == name]
            if cats:
                tip.append("catapult: " + ", ".join(cats))
        if t.get("kind") == "city" and st and st["gate_broken"]:
            tip.append("the gate is broken")
        return fill, a, b, "\n".join(tip)

    def view(self) -> tuple[dict, dict, str, str]:
        spots = {slug(n): self._spot(n) for n in self.terrs}
        st = self.st
        panel = ""
        if st:
            rows = []
            for side in ("good", "evil"):
                cap = {k: v for k, v in st["captured"][side].items() if k != "leaders" and v}
                capl = st["captured"][side]["leaders"]
                rows.append([side.capitalize(), units_text(st["pools"][side], ABBREV),
                             ", ".join(c["type"][:3] + ("+" if c["shield"] != "none" else "") for c in st["hands"][side]) or "-",
                             ", ".join(st["mt_cards"][side]) or "-",
                             units_text(cap, ABBREV) + (f"; {', '.join(capl)}" if capl else "")])
            panel = table_html(rows, ["side", "pool", "hand", "MT cards", "has captured"])
            extra = [f"reinforcement deck {st['deck_left']}", f"Minas Tirith deck {st['mt_deck_left']}"]
            if st["holders"]:
                extra.append("loaded: " + "; ".join(f"{k}: {units_text(v, ABBREV)}" for k, v in st["holders"].items()))
            if st["catapults"]:
                extra.append("catapults: " + "; ".join(f"{k} ({v['side']}) at {v['territory']}" for k, v in st["catapults"].items()))
            extra.append("gate broken" if st["gate_broken"] else "gate holds")
            panel += "<p>" + esc(" · ".join(extra)) + "</p>"
        if self.end is not None:
            e = self.end
            who = "a draw" if e["winner"] == "draw" else f"{e['winner'].capitalize()} wins"
            score = f"Final: {who} ({e['reason']}) — {points_text(e['points'])}"
        else:
            score = "Points (MT-10.3): " + points_text(self.points())
        return spots, {}, panel, score

    def text(self) -> str:
        st = self.st
        if st is None:
            return "(no position yet)"
        lines = []
        for name in self.terrs:
            here = st["units"].get(name, {})
            leaders = st["leaders"].get(name, [])
            if not here and not leaders:
                continue
            parts = [f"{s.capitalize()} {units_text(here[s], ABBREV)}" for s in ("good", "evil") if here.get(s)]
            if leaders:
                parts.append("leaders " + ", ".join(leaders))
            lines.append(f"  {name:<20} " + "; ".join(parts))
        for side in ("good", "evil"):
            hand = ", ".join(c["type"] + ("" if c["shield"] == "none" else f"({c['shield']})") for c in st["hands"][side])
            lines.append(f"  {side.capitalize()}: pool {units_text(st['pools'][side], ABBREV)}; hand {hand or '-'}; "
                         f"MT cards {', '.join(st['mt_cards'][side]) or '-'}")
        lines.append(f"  gate {'broken' if st['gate_broken'] else 'holds'}; deck {st['deck_left']}; "
                     f"points {points_text(self.points())}")
        return "\n".join(lines)

