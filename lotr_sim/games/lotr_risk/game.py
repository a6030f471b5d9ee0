"""``LotrRisk``: the Game seam (lotr_sim.games.base) for Risk: The Lord of the Rings (2002).

Seats and sides (LR-2.1/2.3): the seats are ``p1``..``pN`` in the rules' seat order; 2 players
= p1 Good, p2 Evil plus the neutral army (which never decides, LR-2.2/5.8); 3 players = Evil,
Good, Evil; 4 players = Good, Evil, Good, Evil (``compiled.names["seat_sides"]``). Policies are
given per side (``--good greedy``: every seat of the side) and/or per seat (``--policy
p3=random``, which wins over its side's entry); ``to_move`` is the seat to move, and a search
player in a seat scores its playouts by its seat's side winning. Outcomes are "good" / "evil"
(LR-11.3 breaks ties by dice, so no draw): the side of the winning player; ``winner_seat``
names the player (LR-11.4: reports give win rates per side and per seat).

The engine's kernels are in play.py, bound by the common numba binding (lotr_sim.games.adapter).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.adapter import NumbaGame, NumbaState
from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.lotr_risk.layout import NPOL
from lotr_sim.games.weights import PolicyTable, Weight
from lotr_sim.kernels.outcomes import Column, OutcomeColumns, game_column

BUILTIN_POLICIES = ("random", "greedy", "aggressive", "cautious")

# policy vector: type (0 random, 1 heuristic), attack threshold (exact P(take it)),
# concentrate reinforcements (1) or spread (0), mission weight, fortify weight, power weight;
# the claim's weights (region share, own neighbour, enemy neighbour, site), the
# pressure's (nearly-held region, stronghold) and an attack's gain for completing a region;
# then the weights only tuned reads (policies.py), 0 here: region break, offence pull, the other
# side's territory, its Leader, the turn's first conquest, the last turn; then the lines of the
# cards played outside the holder's combat step: Courage at an attacker's P >= 0.5, Smeagol
# when leading, a Balrog when not
_SHAPE = (2.0, 0.3, 0.2, 0.2, 0.5, 0.3, 0.15, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0)
_POL = {
    "random": (0.0,) * NPOL,
    "greedy": (1.0, 0.6, 1.0, 1.0, 1.0, 1.0) + _SHAPE + (0.0,) * L.NLF,
    "aggressive": (1.0, 0.4, 1.0, 0.6, 1.0, 1.5) + _SHAPE + (0.0,) * L.NLF,
    "cautious": (1.0, 0.8, 0.0, 1.3, 1.0, 0.7) + _SHAPE + (0.0,) * L.NLF,
}
assert all(len(v) == NPOL for v in _POL.values())

# The learned term's weights, one per feature of an action row (layout LF_*,
# policies.row_features_nb), set by ``lotr-sim learn``; 0 in every preset.
_LEARNED = (
    ("lf_end_att", "learned: ending the combat step (LR-5)"),
    ("lf_end_att_card", "learned: ending it before the turn's first conquest (no territory card yet, LR-8.1)"),
    ("lf_end_att_lead", "learned: ending it, times the points lead (/10, LR-11.2)"),
    ("lf_att", "learned: an attack"),
    ("lf_att_p", "learned: an attack, P(it takes the territory) (exact, LR-5)"),
    ("lf_att_dice", "learned: an attack, dice short of the most it may roll (LR-5.1)"),
    ("lf_att_other", "learned: an attack on the other side's player, not the neutral army (LR-11.2)"),
    ("lf_att_left", "learned: an attack, the other enemy battalions around its source per own one there"),
    ("lf_att_last", "learned: an attack, times P(the seat does not play again) (LR-10)"),
    ("lf_att_region", "learned: an attack that would complete a region (LR-4.2)"),
    ("lf_att_break", "learned: an attack into a region the other side holds whole (LR-4.2)"),
    ("lf_pl_press", "learned: a reinforcement, the front's pressure (enemy per own battalion around)"),
    ("lf_pl_strong", "learned: a reinforcement on a stronghold front (LR-11.2)"),
    ("lf_pl_share", "learned: a reinforcement, the share of those left it places (LR-4.4)"),
    ("lf_mi_share", "learned: a move-in, the share of the source's battalions moved (LR-5.6)"),
    ("lf_fort", "learned: a fortify move (LR-6.1)"),
    ("lf_fort_front", "learned: a fortify move, the destination's pressure minus the source's"),
    ("lf_end_fort", "learned: ending the turn without a fortify move (LR-6)"),
    ("lf_ld_miss", "learned: a Leader moved onto the site of its own mission (LR-9.1)"),
    ("lf_pow", "learned: playing a power card in the own turn (LR-9.3)"),
    ("lf_pl_off", "learned: a reinforcement on a front, its battalions after per defender of the weakest enemy neighbour"),
    ("lf_pl_region", "learned: a reinforcement next to a region the seat lacks one (1) or two (1/2) territories of (LR-4.2)"),
)
assert len(_LEARNED) == L.NLF

REASONS = ("fellowship", "conquest", "turn_cap")


# What ``lotr-sim tune`` may change, per side (every seat of a side plays its side's row).
TABLE = PolicyTable("lotr-risk", ("good", "evil"), NPOL, (
    Weight("thr", L.PL_THR, 0.0, 1.0, "attack when P(take the territory) is at least this"),
    Weight("conc", L.PL_CONC, -1.0, 1.0, "reinforcements: concentrate (> 0) or spread (<= 0)"),
    Weight("miss", L.PL_MISS, 0.0, 3.0, "worth of mission territories and sites"),
    Weight("fort", L.PL_FORT, 0.0, 3.0, "worth of a fortify move towards the front"),
    Weight("pow", L.PL_POW, 0.0, 3.0, "worth of power: cards, strongholds, continents"),
    Weight("creg", L.PL_CREG, 0.0, 6.0, "claim: worth of the share of its region already held"),
    Weight("cadj", L.PL_CADJ, 0.0, 2.0, "claim: worth of each own neighbour"),
    Weight("cene", L.PL_CENE, -1.0, 2.0, "claim: cost of each enemy neighbour"),
    Weight("csite", L.PL_CSITE, 0.0, 3.0, "claim: worth of a site"),
    Weight("preg", L.PL_PREG, 0.0, 3.0, "pressure: a front next to a region nearly held"),
    Weight("pstr", L.PL_PSTR, 0.0, 3.0, "pressure: a stronghold front"),
    Weight("rgain", L.PL_RGAIN, 0.0, 1.0, "attack: gain of completing a region"),
    Weight("rbrk", L.PL_RBRK, 0.0, 1.0, "attack: gain of breaking a region the other side holds"),
    Weight("poff", L.PL_POFF, 0.0, 3.0, "reinforcement: pull to the front it attacks from best"),
    Weight("gene", L.PL_GENE, -0.5, 0.5, "attack: gain of a territory the other side holds (not neutral)"),
    Weight("glead", L.PL_GLEAD, -0.5, 0.5, "attack: gain of a territory with the other side's Leader"),
    Weight("card", L.PL_CARD, 0.0, 1.0, "attack: gain while the turn has no conquest (its card, LR-8.1)"),
    Weight("end", L.PL_END, 0.0, 1.0, "attack: gain times P(this is the seat's last turn)"),
    Weight("cour", L.PL_COUR, 0.0, 1.0, "Courage (defending): play it when the attack takes the territory with P >= this"),
    Weight("smea", L.PL_SMEA, -10.0, 10.0, "Smeagol: play it when ahead on points by at least this"),
    Weight("balr", L.PL_BALR, -10.0, 10.0, "A Balrog is Come: play it when ahead on points by less than this"),
    *(Weight(name, L.PL_LF0 + k, -50.0, 50.0, help, learned=True) for k, (name, help) in enumerate(_LEARNED)),
), {name: {"good": v, "evil": v} for name, v in _POL.items()})


def policy_array(seat_policies: Sequence[str], seat_sides: Sequence[str] = ()) -> np.ndarray:
    """The engine's policy vectors, one row per seat (``C.MAXP`` rows; seats past the player
    count play greedy and never move); a seat held by a player from ``lotr_sim.players`` gets
    greedy's (its playouts and inner decisions use it). A tuned player's row is its seat's
    side's (``seat_sides``)."""
    pol = np.zeros((C.MAXP, NPOL), dtype=np.float64)
    for i in range(C.MAXP):
        name = seat_policies[i] if i < len(seat_policies) else "greedy"
        pol[i] = TABLE.row(name, seat_sides[i] if i < len(seat_sides) else "good")
    return pol


def _seat_sides(compiled) -> list[str]:
    """The side of each seat of a compiled config, or of a loaded ``GameConfig``."""
    if isinstance(compiled, GameConfig):
        return [s[0] for s in C.SEATS[int(compiled.params["players"])]]
    return list(compiled.names["seat_sides"])


def _outcome_columns() -> OutcomeColumns:
    """play.record_nb's columns: winner, reason, rounds, turns, winner seat, conquest win,
    Fellowship turns, the debug check's count, points per seat (p1..p4), then per side the
    territory, region, stronghold and adventure points and their total."""
    cols = [game_column(), Column("winner", np.int8, 0), Column("reason", np.int8, 1),
            Column("rounds", np.int32, 2), Column("turns", np.int32, 3),
            Column("points_good", np.int32, 16), Column("points_evil", np.int32, 21),
            Column("winner_seat", np.int8, 4)]
    cols += [Column(f"points_p{p + 1}", np.int32, 8 + p) for p in range(4)]
    cols += [Column(f"{what}_pts_{side}", np.int32, 12 + 5 * sd + k)
             for sd, side in enumerate(("good", "evil"))
             for k, what in enumerate(("territories", "regions", "strongholds", "adventure"))]
    cols += [Column("conquest_win", np.int8, 5), Column("fellowship_turns", np.int32, 6),
             Column("invariant_broken", np.int8, lambda out, first: out[:, 7] > 0)]
    return OutcomeColumns(("good", "evil"), cols)


COLUMNS = _outcome_columns()


class LotrRiskState(NumbaState):
    """A game of LOTR Risk: the engine's step API (``NumbaState``) with its kinds of decision."""

    def decision_kind(self):
        return L.PHASE_KIND[int(self.st[L.S_PHASE])]

    def pass_action(self):
        acts = self.legal_actions()
        if acts.shape[0] and acts[0, 0] == L.A_PASS and int(self.st[L.S_PHASE]) in (L.PH_ATTACK, L.PH_FORT):
            return 0
        return -1

    def _redeal(self, seat, s):
        """Hidden in LOTR Risk (``determinize``; ``play.determinize_nb``): the order of the
        territory-card and adventure decks, and the other players' territory-card hands (the
        rulebook does not say they are open: kept hidden) and adventure hands with their secret
        missions (LR-9.1), every count kept. Discard piles, the seat's own hands, completed
        missions and played cards are public and stay."""
        super()._redeal(seat, s)


class LotrRisk(NumbaGame):
    name = "lotr-risk"
    title = "Risk: The Lord of the Rings (2002)"
    sides = ("good", "evil")
    outcomes = ("good", "evil")
    reasons = REASONS
    builtin_policies = BUILTIN_POLICIES
    policy_table = TABLE
    default_policies = {"good": "tuned", "evil": "tuned"}
    seat_keys = tuple(f"p{i + 1}" for i in range(C.MAXP))
    kernels = "lotr_sim.games.lotr_risk.play"
    trace = "lotr_sim.games.lotr_risk.trace"
    state_class = LotrRiskState
    # The rules name a winner at any moment (the most points, LR-11.2/11.3), so a search
    # playout can stop after some rounds and be scored there (play.py's playouts_nb).
    playout_horizon = True
    notes = (
        "The board is assembled from public fan implementations and a board photo (not an official "
        "data file); the 40-card adventure deck and its points are a RECONSTRUCTION (LR-9.4): "
        "'You Shall Not Pass!', 'Strategic Withdrawal', 'Courage Alone Will Not Save You', 'Smeagol' and "
        "'A Balrog is Come' are decisions of their holders, the defender's dice a decision of the defender (play.py).",
        "Good/Evil win rates are per side: with 3-4 players a side wins when any of its seats wins (LR-11.4).",
    )

    def seat_names(self, compiled) -> tuple[str, ...]:
        """``p1``..``pN`` in the rules' seat order (LR-2.2/2.3); ``compiled`` may also be the
        loaded GameConfig."""
        return tuple(f"p{i + 1}" for i in range(len(_seat_sides(compiled))))

    def seat_side(self, compiled, seat: int) -> int:
        return self.sides.index(_seat_sides(compiled)[int(seat)])

    def params(self) -> list[Param]:
        return list(C.PARAMS)

    def load(self, config: str | None = None,
             overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
        return C.load(config, overrides)

    def compile(self, cfg: GameConfig) -> C.Compiled:
        return C.compile_checked(cfg)

    def fellowship_track(self, cfg: GameConfig):
        """The Fellowship's path, its die territories and threshold (LR-10.1/10.2) as a
        ``lotr_sim.games.lotr_risk.fellowship.exact.FellowshipTrack``: what ``lotr-sim fellowship`` and the
        exact law read, from the same config the engine plays."""
        from lotr_sim.games.lotr_risk.fellowship.exact import FellowshipTrack
        fs = cfg.data["fellowship"]
        marked = set(fs.get("marked", []))
        return FellowshipTrack(tuple(fs["path"]), tuple(t in marked for t in fs["path"]),
                               roll_above=int(cfg.params["fellowship_roll_above"]))

    # -- the adapter's parts (lotr_sim.games.adapter) -------------------------------------------
    # Actions are rows (kind, a, b, c); see lotr_sim/games/lotr_risk/play.py.
    def _state_arrays(self, compiled, trace):
        from lotr_sim.games.lotr_risk.policies import NCTX
        from lotr_sim.kernels.rng import STATE_SIZE
        from lotr_sim.kernels.tracebuf import new_trace
        return dict(st=np.zeros(L.ST_SIZE, dtype=np.int64), s=np.zeros(STATE_SIZE, dtype=np.uint64),
                    tr=new_trace(trace), act=np.zeros((L.MAXA, 4), dtype=np.int64),
                    scr=np.zeros(NCTX))   # the heuristic's per-decision cache (policies.prep_nb)

    def _policy_rows(self, compiled, seat_players):
        return policy_array(list(seat_players), _seat_sides(compiled))

    def _outcome_columns(self, compiled):
        return COLUMNS

    # -- traces ------------------------------------------------------------------------------
    def account(self, events):
        from lotr_sim.games.lotr_risk.trace import account
        return account(events)

    def replay_check(self, compiled, events):
        from lotr_sim.games.lotr_risk.trace import replay_check
        return replay_check(events)
