"""``NumbaGame`` and ``NumbaState``: the one binding of the game contract to a numba engine.

``NumbaGame`` (a ``TableGame``: ``games/base.py`` and ``games/table.py``) starts games and
runs batches; ``NumbaState`` (a ``PlayableState``: ``games/step.py``, ``games/players.py``)
is the step API of one game over the engine's kernels.

Every numba game's kernels module (``NumbaGame.kernels``) defines the same kernels, by the
same names, with the same parameters in the same order; a game that has no use for an
argument takes it and ignores it (The Search passes an empty ``wp``, Minas Tirith's apply an
``act`` it does not read), so this class calls every engine alike::

    new_game_nb(cf, st, tr, act, s, seed, index, debug)    game ``index`` on stream (seed, index),
                                                           set up, resting at its first decision
    legal_nb(cf, st, act) -> n                             the decision's n rows into ``act``
    apply_nb(cf, wp, pol, st, tr, act, scr, s, i)          apply row i, resolve up to the next decision
    choose_nb(cf, wp, pol, st, act, scr, s, n) -> i        the built-in pick of the seat to move
    scores_nb(cf, wp, pol, st, act, scr, s, n, out)        the heuristic's score of each row
    run_until_nb(cf, wp, pol, st, tr, act, scr, s, mask)   built-in seats play until a seat of the
                                         -> seat           bit mask is to move (-1: the game is over)
    to_move_nb(st) -> seat                                 the seat to move, -1 once over
    record_nb(cf, st, row, out)                            the outcome row of a finished game
    invariant_nb(cf, st) -> bool                           the game's conservation checks hold
    simulate_nb(cf, wp, pol, seed, first, debug, lo, hi, out)   games first+lo .. first+hi-1
                                                           (``nogil``: ``run_range`` threads it)
    playouts_nb(cf, wp, pol, st, act, cands, m, key, hz, out)  the search's playouts (``State.playouts``;
                                                           ``hz`` rounds, 0 to the end: only a game
                                                           with ``playout_horizon`` reads it)
    determinize_nb(cf, st, s, seat, tmp)                   deal again what ``seat`` cannot know,
                                                           ``tmp`` int64 scratch of ``DET_TMP``

The arrays: ``cf`` the compiled config (int64), ``wp`` its win-probability table
(``compiled.wp``; empty for a game without one), ``pol`` the policy rows (one per seat),
``st`` the state, ``tr`` the trace buffer (length 0 untraced), ``act`` the legal rows,
``scr`` the game's scratch, ``s`` the random stream. A step-machine ``State`` holds
``st, s, tr, act, scr`` (``_state_arrays``) and ``pol, heur`` (the seats' and the
heuristic's policy rows).

The kernels are the engine's own (no jitted layer between this class and them: numba
re-optimises a whole engine under each jitted level on its first compile). A game supplies
the rest: its config (``params``, ``load``, ``compile``), the kernels module's import path
(imported on first use, so a game's metadata stays importable without its engine), its state
arrays, policy rows, outcome columns (``lotr_sim.kernels.outcomes.OutcomeColumns``), trace
decoding and the genuinely game-specific methods (``replay_check``, ``account``, seats; and
in its ``NumbaState`` subclass, ``state_class``, ``decision_kind`` and ``pass_action``).

Traces: one header for every game (``trace_header``, ``TRACE_VERSION``).
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.games.players import PlayableState
from lotr_sim.games.step import Rules, State, check_action, trace_size
from lotr_sim.games.table import TableGame
from lotr_sim.kernels.outcomes import OutcomeColumns


# The trace header's version, one for every game. 4: the three games' headers
# made one - every game writes ``seat_policies``, ``seat_sides``, ``players`` (the number of
# seats) and ``search`` (the settings of the search players seated), as LOTR Risk's version 2
# did; Minas Tirith's version 3 and The Search's version 2 wrote those settings under
# ``players``. The events are unchanged (Minas Tirith's version 3 events, LOTR Risk's and The
# Search's version 2 events). 5: LOTR Risk's events add the decisions of the defender and of
# the holders of the cards played outside their combat step (kinds courage, dice, smeagol,
# balrog), and the territory deck's order and secret draws (territory_deck, turned_up,
# uprising); the other games' events are version 4's.
TRACE_VERSION = 5

# The header's keys, in the order written (tests/games/test_contract.py checks every game's).
HEADER_KEYS = ("game", "round", "turn", "side", "event", "trace_version", "game_name", "lotr_sim_version",
               "config_hash", "config", "params", "policies", "seat_policies", "players", "seat_sides",
               "seed", "game_index", "search", "weights", "rules")

# The kernels every game's kernels module defines (tests/games/test_contract.py checks their parameters).
KERNELS = {
    "new_game_nb": ("cf", "st", "tr", "act", "s", "seed", "index", "debug"),
    "legal_nb": ("cf", "st", "act"),
    "apply_nb": ("cf", "wp", "pol", "st", "tr", "act", "scr", "s", "i"),
    "choose_nb": ("cf", "wp", "pol", "st", "act", "scr", "s", "n"),
    "scores_nb": ("cf", "wp", "pol", "st", "act", "scr", "s", "n", "out"),
    "run_until_nb": ("cf", "wp", "pol", "st", "tr", "act", "scr", "s", "mask"),
    "to_move_nb": ("st",),
    "record_nb": ("cf", "st", "row", "out"),
    "invariant_nb": ("cf", "st"),
    "simulate_nb": ("cf", "wp", "pol", "seed", "first", "debug", "lo", "hi", "out"),
    "playouts_nb": ("cf", "wp", "pol", "st", "act", "cands", "m", "key", "hz", "out"),
    "determinize_nb": ("cf", "st", "s", "seat", "tmp"),
}


class NumbaState(PlayableState):
    """One game of a numba engine: its arrays (``st, s, tr, act, scr, pol, heur``) and the
    step API over the kernels (a game subclasses it for ``decision_kind``, ``pass_action``
    and anything else only it knows)."""

    def __init__(self, rules: Rules, seed: int, index: int, policies: Mapping[str, str],
                 arrays: dict[str, np.ndarray], meta: dict[str, Any] | None = None):
        super().__init__(rules, seed, index, policies, arrays, meta)
        self.K = rules.game.K        # the kernels module, and the config's arrays they read
        self.cf = rules.compiled.cf
        self.wp = rules.compiled.wp

    # -- the step API -------------------------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        """Every action of the current decision, one row each (empty once over): the engine's
        ``legal_nb`` writes the rows into ``act`` once per decision; ``n_legal`` caches their
        number until ``apply`` (or anything else that moves the game) marks it stale with -1."""
        if self.n_legal < 0:
            self.n_legal = int(self.K.legal_nb(self.cf, self.st, self.act))
        return self.act[: self.n_legal]

    def apply(self, i: int) -> None:
        """Apply legal action ``i`` (checked, ``check_action``, before the kernel sees it) and
        resolve everything up to the next decision."""
        i = check_action(i, self.legal_actions().shape[0])
        self._apply_legal(np.int64(i))
        self.n_legal = -1

    def _apply_legal(self, i: np.int64) -> None:
        """Apply row ``i`` of ``act`` (already checked to be legal): ``apply_nb``."""
        self.K.apply_nb(self.cf, self.wp, self.pol, self.st, self.tr, self.act, self.scr, self.s, i)

    @property
    def to_move(self) -> int:
        return int(self.K.to_move_nb(self.st))

    def result(self) -> dict[str, np.ndarray]:
        game, comp = self.rules.game, self.rules.compiled
        out = np.zeros((1, game._out_width(comp)), dtype=np.int64)
        self.K.record_nb(self.cf, self.st, 0, out)
        return game._columns(comp, self.index, out)

    def invariant_ok(self) -> bool:
        return bool(self.K.invariant_nb(self.cf, self.st))

    def _redeal(self, seat: int, s: np.ndarray) -> None:
        """The engine's ``determinize_nb`` (the one its playouts run)."""
        K = self.K
        K.determinize_nb(self.cf, self.st, s, np.int64(seat), np.zeros(K.DET_TMP, dtype=np.int64))

    # -- what the players use -----------------------------------------------------------------
    def builtin_choice(self) -> int:
        n = self.legal_actions().shape[0]
        return int(self.K.choose_nb(self.cf, self.wp, self.pol, self.st, self.act, self.scr, self.s,
                                    np.int64(n)))

    def action_scores(self) -> np.ndarray:
        n = self.legal_actions().shape[0]
        out = np.zeros(n, dtype=np.float64)
        self.K.scores_nb(self.cf, self.wp, self.heur, self.st, self.act, self.scr, self.s, np.int64(n), out)
        return out

    def action_features(self) -> np.ndarray | None:
        """What the learned player learns from at this decision: per legal row, the seat's
        heuristic's score (column 0, its learned term left out) and the row's features (one
        column per learned weight, ``PolicyTable.learned_weights``); None at a decision the
        learned term does not score, or for a game without a learned player (no
        ``features_nb`` kernel)."""
        K = self.K
        table = self.rules.game.policy_table
        if not hasattr(K, "features_nb") or table is None:
            return None
        n = self.legal_actions().shape[0]
        nf = len(table.learned_weights(table.sides[0]))
        out = np.zeros((n, 1 + nf), dtype=np.float64)
        ok = K.features_nb(self.cf, self.wp, self.heur, self.st, self.act, self.scr, self.s, np.int64(n), out)
        return out if ok else None

    def use_heuristic(self, rows: np.ndarray | None) -> None:
        if rows is not None:
            self.heur[...] = rows

    def run_builtin(self, stop_seats: Sequence[int]) -> int:
        mask = 0
        for seat in stop_seats:
            mask |= 1 << int(seat)
        seat = int(self.K.run_until_nb(self.cf, self.wp, self.pol, self.st, self.tr, self.act, self.scr,
                                       self.s, np.int64(mask)))
        self.n_legal = -1
        return seat

    def playouts(self, candidates: np.ndarray, m: int, key: int, horizon: int = 0) -> np.ndarray:
        hz = self.rules.game.check_horizon(horizon)
        self.legal_actions()
        args = self._playouts_args(candidates, m, key, hz)
        self.K.playouts_nb(*args)
        return args[-1]

    def _playouts_args(self, candidates: np.ndarray, m: int, key: int, hz: int) -> tuple:
        """``playouts_nb``'s arguments, the last one the winners' array it fills."""
        return (self.cf, self.wp, self.heur, self.st, self.act, np.asarray(candidates, dtype=np.int64),
                np.int64(m), np.int64(key), np.int64(hz), np.zeros((len(candidates), int(m)), dtype=np.int64))

    def prepare_playouts(self) -> None:
        """Compile ``playouts_nb`` before the built-in seats' first ``run_until_nb`` (a call with
        no candidates: it plays nothing and reads nothing but the seat to move).

        Only the compile order changes, and only on a cold cache (warm, this call returns at
        once). Minas Tirith's and The Search's playouts call ``run_until_nb``: compiled first,
        the playouts compile it inside them (lean, ``kernels.warmup``), and the compile helper
        then generates its machine code (a follower in the plan) while the main process
        finishes the playouts, instead of the main process compiling it whole and then
        optimising it again inside the playouts."""
        self.K.playouts_nb(*self._playouts_args(np.zeros(0, dtype=np.int64), 0, 0, 0))


class NumbaGame(TableGame):
    """A ``TableGame`` whose engine is a numba kernels module with the common kernels above."""

    kernels: str = ""           # import path of the module with the common kernels
    trace: str = ""             # import path of the module whose decode(compiled, tr, game_index)
                                # turns a trace buffer into events
    trace_words: int = 1 << 18  # a traced game's first buffer (``play`` grows it 4x until it fits)
    state_class: type[NumbaState] = NumbaState   # the game's states

    # -- what each game supplies -----------------------------------------------------------
    def _state_arrays(self, compiled: Any, trace: int) -> dict[str, np.ndarray]:
        """The engine's arrays of a new game: ``st, s, tr, act, scr`` (``tr`` of ``trace``
        words; 0 for no trace)."""
        raise NotImplementedError

    def _policy_rows(self, compiled: Any, seat_players: Sequence[str]) -> np.ndarray:
        """The engine's policy rows (``pol``) with seat ``i`` played by ``seat_players[i]``."""
        raise NotImplementedError

    def _outcome_columns(self, compiled: Any) -> OutcomeColumns:
        """The outcome columns of ``record_nb``'s matrix (``simulate``'s dict)."""
        raise NotImplementedError

    def _out_width(self, compiled: Any) -> int:
        """The columns of ``record_nb``'s matrix: by default the kernels module's ``NOUT``."""
        return int(self.K.NOUT)

    def _decode(self, compiled: Any, state: State, game_index: int) -> list[dict]:
        """The events of a traced game's buffer (the header is added by ``play``): the
        ``trace`` module's ``decode``."""
        return importlib.import_module(self.trace).decode(compiled, state.tr, game_index)

    def _trace_overflowed(self, state: State) -> bool:
        """Did the trace buffer run out (``play`` then plays the game again with a larger
        one)? By default the ``lotr_sim.kernels.tracebuf`` layout's flag."""
        from lotr_sim.kernels.tracebuf import overflowed
        return overflowed(state.tr)

    # -- the engine -------------------------------------------------------------------------
    @property
    def K(self) -> ModuleType:
        """The kernels module (imported on first use)."""
        k = self.__dict__.get("_kernels_module")
        if k is None:
            k = self.__dict__["_kernels_module"] = importlib.import_module(self.kernels)
        return k

    def _seat_players(self, compiled: Any, policies: Mapping[str, str] | None) -> list[str]:
        return list(self.seat_policies(compiled, policies).values())

    def _columns(self, compiled: Any, first: int, out: np.ndarray) -> dict[str, np.ndarray]:
        return self._outcome_columns(compiled).to_dict(out, first)

    # -- simulation ---------------------------------------------------------------------------
    def simulate(self, compiled: Any, policies: Mapping[str, str], seed: int, first: int, n: int,
                 threads: int | None = None, debug: bool = False) -> dict[str, np.ndarray]:
        """Games ``first .. first+n-1`` (game i on stream (seed, i)): the engine's
        ``simulate_nb`` on ``threads`` threads, or, when a seat has a player from
        ``lotr_sim.players``, the step machine (``games.players.simulate_with_players``)."""
        from lotr_sim.kernels.rng import check_seed
        from lotr_sim.kernels.runner import resolve_threads
        check_seed(seed)
        pols = self.check_policies(policies)
        seats = self.seat_policies(compiled, pols)
        K = self.K
        out = np.zeros((max(n, 0), self._out_width(compiled)), dtype=np.int64)
        if n > 0 and self.has_generic(seats):
            from lotr_sim.games.players import simulate_with_players

            def record(state: State, row: int) -> None:
                K.record_nb(compiled.cf, state.st, row, out)
            simulate_with_players(self, compiled, pols, seed, first, n, resolve_threads(threads), record)
        elif n > 0:
            from lotr_sim.kernels.runner import run_range
            pol = self._policy_rows(compiled, list(seats.values()))
            run_range(K.simulate_nb, (compiled.cf, compiled.wp, pol, np.int64(seed), np.int64(first),
                                      np.int64(1 if debug else 0)), n, resolve_threads(threads), out)
        return self._columns(compiled, first, out)

    def play(self, compiled: Any, policies: Mapping[str, str], seed: int, game_index: int,
             debug: bool = False) -> tuple[dict[str, np.ndarray], list[dict]]:
        """One game with its trace: played on a buffer of ``trace_words``, again on one four
        times larger while the buffer overflows; the header (``trace_header``) first."""
        from lotr_sim.kernels.rng import check_seed
        check_seed(seed)
        pols = self.check_policies(policies)
        generic = self.has_generic(self.seat_policies(compiled, pols))
        size = self.trace_words
        while True:
            if generic:
                from lotr_sim.games.players import play_state
                state = play_state(self, compiled, pols, seed, game_index, trace=size, debug=debug)
            else:
                state = self.bind(compiled).new_state(pols, seed, game_index, trace=size, debug=debug)
                state.run_builtin(())
            if not self._trace_overflowed(state):
                break
            size *= 4
        events = [self.trace_header(compiled, pols, seed, game_index)] + self._decode(compiled, state, game_index)
        return state.result(), events

    # -- the step machine -------------------------------------------------------------------
    def start(self, rules: Rules, policies: Mapping[str, str] | None, seed: int, index: int,
              trace: bool | int = False, debug: bool = False) -> NumbaState:
        from lotr_sim.kernels.rng import check_seed
        check_seed(seed)
        compiled = rules.compiled
        pols = self.check_policies(policies)
        arrays = self._state_arrays(compiled, trace_size(trace, self.trace_words))
        arrays["pol"] = self._policy_rows(compiled, self._seat_players(compiled, pols))
        arrays["heur"] = self._policy_rows(compiled, ["greedy"] * len(self.seat_names(compiled)))
        state = self.state_class(rules, int(seed), int(index), pols, arrays)
        self.K.new_game_nb(compiled.cf, state.st, state.tr, state.act, state.s, np.int64(seed),
                           np.int64(index), np.int64(1 if debug else 0))
        return state

    def heuristic_rows(self, compiled: Any, seat_players: Sequence[str]) -> np.ndarray:
        return self._policy_rows(compiled, [self.engine_player(p) for p in seat_players])

    # -- traces -----------------------------------------------------------------------------
    def trace_header(self, compiled: Any, policies: Mapping[str, str], seed: int, game_index: int) -> dict:
        """The first event of every trace, the same keys for every game
        (``HEADER_KEYS``, ``TRACE_VERSION``): enough to re-run the game and to check the trace on
        its own - game, package version, config hash and file, the parameters that differ from
        the defaults, the policies (as given, and each seat's), the seats' sides, the seed and
        the game index, the settings of the search players and the weights of the tuned ones,
        and the rules document."""
        from lotr_sim import __version__
        from lotr_sim.games.players import player_settings
        meta = getattr(compiled, "meta", {}) or {}
        seats = self.seat_policies(compiled, policies)
        return {"game": int(game_index), "round": 0, "turn": 0, "side": None, "event": "header",
                "trace_version": TRACE_VERSION, "game_name": self.name, "lotr_sim_version": __version__,
                "config_hash": meta.get("config_hash"), "config": meta.get("config"),
                "params": dict(meta.get("params", {})), "policies": dict(policies),
                "seat_policies": seats, "players": len(seats),
                "seat_sides": [self.sides[self.seat_side(compiled, i)] for i in range(len(seats))],
                "seed": int(seed), "game_index": int(game_index),
                "search": {p: player_settings(p, self) for p in seats.values() if player_settings(p)},
                "weights": self.player_weights(seats),
                "rules": f"docs/rules/{self.name}.md"}
