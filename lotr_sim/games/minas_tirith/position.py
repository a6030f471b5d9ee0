"""Hand-made positions for tests and designers: build a state, call single-step kernels
(assault, bombard, move, retreat, trade, end of turn) and read the decoded events; or start an
action as the step machine does and take its loss and retreat decisions one by one (``begin``,
``options``, ``decide``)."""
from __future__ import annotations

import numpy as np

from lotr_sim.games.minas_tirith import actions as AC
from lotr_sim.games.minas_tirith import board as B
from lotr_sim.games.minas_tirith import cards as CD
from lotr_sim.games.minas_tirith import combat as CB
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import events as EV
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith import movement as MV
from lotr_sim.games.minas_tirith import play as P
from lotr_sim.games.minas_tirith.trace import decode
from lotr_sim.kernels.rng import stream_init_nb
from lotr_sim.kernels.tracebuf import trace_reset_nb

SIDES = ("good", "evil")


class Position:
    def __init__(self, comp, policies=("greedy", "greedy"), seed=1, index=0, empty=True):
        from lotr_sim.games.minas_tirith.game import policy_array
        self.comp = comp
        self.cf = comp.cf
        self.names = comp.names
        self.pol = policy_array({"good": policies[0], "evil": policies[1]})
        self.s = np.zeros(EV.STREAM_SIZE, dtype=np.uint64)  # room for the trace's dice faces
        stream_init_nb(np.int64(seed), np.int64(index), self.s)
        self.st = np.zeros(L.ST_SIZE, dtype=np.int64)
        P.setup_nb(self.cf, self.st, self.s)
        self.st[L.S_ROUND] = 1
        self.st[L.S_TURN] = 1
        self.tr = np.zeros(1 << 16, dtype=np.int64)
        self.act = np.zeros((L.MAXA, 6), dtype=np.int64)
        self.scr = np.zeros(8, dtype=np.int64)
        if empty:
            self.clear()

    # -- names ------------------------------------------------------------------------
    def t(self, name):
        return self.names["territories"].index(name)

    def u(self, side, name):
        for i, (n, s) in enumerate(zip(self.names["unit_types"], self.names["unit_sides"])):
            if n == name and s == side:
                return i
        raise KeyError((side, name))

    def leader(self, name):
        return self.names["leaders"].index(name)

    def card(self, name):
        """First instance of the named Minas Tirith card."""
        return self.names["card_instance_name"].index(name)

    # -- editing ----------------------------------------------------------------------
    def clear(self):
        cf, st = self.cf, self.st
        for t in range(int(cf[C.C_T])):
            for u in range(int(cf[C.C_NU])):
                st[L.O_POOL + u] += st[L.O_UNITS + t * C.MAXU + u]
                st[L.O_UNITS + t * C.MAXU + u] = 0
        for l in range(int(cf[C.C_NL])):
            if st[L.O_LLOC + l] >= 0:
                st[L.O_LLOC + l] = -1

    def set_units(self, terr, side, unit, n):
        t, u = self.t(terr), self.u(side, unit)
        cur = self.st[L.O_UNITS + t * C.MAXU + u]
        self.st[L.O_POOL + u] -= n - cur
        assert self.st[L.O_POOL + u] >= 0, "not enough units in the pool"
        self.st[L.O_UNITS + t * C.MAXU + u] = n

    def units(self, terr, side, unit=None):
        t = self.t(terr)
        if unit is None:
            return int(B.side_units_nb(self.cf, self.st, t, SIDES.index(side)))
        return int(self.st[L.O_UNITS + t * C.MAXU + self.u(side, unit)])

    def put_leader(self, name, terr):
        self.st[L.O_LLOC + self.leader(name)] = self.t(terr) if terr is not None else -1

    def leader_loc(self, name):
        v = int(self.st[L.O_LLOC + self.leader(name)])
        if v >= 0:
            return self.names["territories"][v]
        return {-1: "pool", -2: "captured", -3: "card"}[v]

    def give_card(self, side, name, instance=0):
        idx = [i for i, n in enumerate(self.names["card_instance_name"]) if n == name][instance]
        self.st[L.O_CST + idx] = 1 + SIDES.index(side)
        return idx

    def set_side(self, side):
        self.st[L.S_SIDE] = SIDES.index(side)

    def hand(self, side, types):
        """Give ``side`` reinforcement cards of these types ('infantry', ..., 'joker', with an
        optional ':good'/':evil' shield), taken from the deck definition."""
        s = SIDES.index(side)
        used = set(int(x) for x in self.st[L.O_HAND: L.O_HAND + 2 * L.HMAX])
        self.st[L.S_HN + s] = 0
        for spec in types:
            typ, _, shield = spec.partition(":")
            shield = shield or "none"
            for c in range(int(self.cf[C.C_ND])):
                if (self.names["deck_types"][c] == typ and self.names["deck_shields"][c] == shield
                        and c not in used):
                    used.add(c)
                    self.st[L.O_HAND + s * L.HMAX + self.st[L.S_HN + s]] = c
                    self.st[L.S_HN + s] += 1
                    break
            else:
                raise KeyError(spec)

    # -- kernels -----------------------------------------------------------------------
    def _events(self):
        ev = decode(self.comp, self.tr, 0)
        trace_reset_nb(self.tr)
        return ev

    def assault(self, a, b, k, side=None):
        s = SIDES.index(side) if side else self._side_at(a)
        self.st[L.S_SIDE] = s
        CB.assault_nb(self.cf, self.st, self.tr, self.s, self.pol, s, self.t(a), self.t(b), k, False)
        return self._events()

    def bombard(self, a, b, n, side=None):
        s = SIDES.index(side) if side else self._side_at(a)
        self.st[L.S_SIDE] = s
        CB.bombard_action_nb(self.cf, self.st, self.tr, self.s, s, self.t(a), self.t(b), n, False)
        return self._events()

    def move(self, a, b, k, side=None, via=None):
        s = SIDES.index(side) if side else self._side_at(a)
        self.st[L.S_SIDE] = s
        v = self.t(via) if via else -1
        MV.move_units_nb(self.cf, self.st, self.tr, s, self.t(a), v, self.t(b), k, via is not None, 1)
        B.check_win_nb(self.cf, self.st, self.tr)
        return self._events()

    def cross_ok(self, side, cls, a, b):
        return bool(B.cross_ok_nb(self.cf, self.st, SIDES.index(side), cls, self.t(a), self.t(b)))

    def actions(self, side):
        """Legal mission actions (rows: kind, a, b, c, d, e)."""
        n = AC.enum_actions_nb(self.cf, self.st, SIDES.index(side), self.act)
        return self.act[:n].copy()

    def end_turn(self, side):
        self.st[L.S_SIDE] = SIDES.index(side)
        P.end_turn_nb(self.cf, self.st, self.tr, SIDES.index(side))
        return self._events()

    def card_phase(self, side):
        self.st[L.S_SIDE] = SIDES.index(side)
        CD.card_phase_nb(self.cf, self.st, self.tr, self.s, self.pol, SIDES.index(side), self.scr,
                        200)
        return self._events()

    def do(self, side, kind, a=0, b=0, c=0, d=0, e=0):
        """Do one mission action (row kind, a, b, c, d, e of the menu) to its end, the losses
        and retreat steps it leaves as decisions taken by the built-in players."""
        self.begin(side, kind, a, b, c, d, e)
        self._take_losses()
        return self._events()

    def begin(self, side, kind, a=0, b=0, c=0, d=0, e=0):
        """Start one mission action as the step machine does (``do_action_nb``) and stop at its
        first loss or retreat decision, if any (``options``, ``decide``); the events so far
        stay in the buffer (``_events``)."""
        self.act[0, :] = (kind, a, b, c, d, e)
        s = SIDES.index(side)
        self.st[L.S_SIDE] = s
        self.st[L.S_PHASE] = L.PH_ACT
        AC.do_action_nb(self.cf, self.st, self.tr, self.s, self.pol, s, self.act, 0)

    def _take_losses(self):
        """Losses and retreat steps an action left as decisions (MT-7.2, MT-7.4, MT-7.5),
        taken by the built-in players, then the checks that follow an action (as apply_nb
        makes them)."""
        if self.st[L.S_PHASE] < L.PH_LOSS:
            return
        while self.st[L.S_PHASE] >= L.PH_LOSS:
            n = P.legal_nb(self.cf, self.st, self.act)
            i = P.choose_nb(self.cf, self.comp.wp, self.pol, self.st, self.act, self.scr, self.s, n)
            self.decide(i)
        CB.catapults_check_nb(self.cf, self.st, self.tr)
        B.check_win_nb(self.cf, self.st, self.tr)

    def options(self):
        """The rows of the loss or retreat decision the position rests at (``legal_nb``)."""
        n = P.legal_nb(self.cf, self.st, self.act)
        return self.act[:n].copy()

    def decide(self, i):
        """Take row i of ``options()`` at a loss (MT-7.2, MT-7.4) or retreat (MT-7.5) decision
        and go on to the next decision or the end of the action (its final checks are left to
        the caller, as ``_take_losses`` makes them); returns the events it wrote (not consumed)."""
        self.options()
        ph = self.st[L.S_PHASE]
        if ph == L.PH_RETREAT:
            CB.retreat_step_nb(self.cf, self.st, self.act[i, 1])
            self.st[L.S_PHASE] = L.PH_ACT
            if not CB.retreat_go_nb(self.cf, self.st, self.tr, self.s, self.pol, True):
                CB.assault_resume_nb(self.cf, self.st, self.tr, self.s, self.pol)
        else:
            CB.lose_one_nb(self.cf, self.st, self.tr, self.act[i, 2], self.act[i, 1])
            self.st[L.S_LOSS_N] -= 1
            CB.next_loss_nb(self.cf, self.st, self.tr, self.s, self.pol)

    def invariant(self):
        return bool(B.invariant_ok_nb(self.cf, self.st))

    def over(self):
        st = self.st
        if st[L.S_OVER] == 0:
            return None
        return (("good", "evil", "draw")[st[L.S_WINNER]], ("leaders", "city", "deck")[st[L.S_REASON]])

    def points(self):
        return tuple(int(x) for x in B.points_nb(self.cf, self.st))

    def _side_at(self, a):
        t = self.t(a)
        return 0 if B.side_units_nb(self.cf, self.st, t, 0) > 0 else 1
