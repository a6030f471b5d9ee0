"""Learn a fast player from a wider, slower search (expert iteration), and check it paired.

The fast player is a game's heuristic plus a linear term over features of each legal action
row (``PolicyTable.learned_weights``; each game's ``policies.row_features_nb``), scored inside
the numba step loop at the cost of a dot product per row. ``learn`` sets that term's weights:

1. **Data.** A recording search player (``RecordingSearch``: the search player with every legal
   action as a candidate, screened on a few playouts each and raced by halving, its playouts
   played by the current player for every seat) takes one side's seat against the current
   player; at every decision the learned term scores, it keeps the rows' features and the row
   the search chose, and each row's playouts' paired differences against the heuristic's own
   choice. Game ``i`` of iteration ``k`` is game ``i`` of the seed's stream, its
   search streams its own (``SearchPlayer``), so the data are reproducible from the seed. Data
   are saved per chunk of games (``data/k<K>-<side>-<first>.npz``): an interrupted run goes on
   from its last chunk (``resume``). With ``states="player"`` the search only labels: the game
   goes on with the current player's own choice at every decision, so the data are the
   positions the fast player reaches (as in DAgger), not the ones the search's play leads to,
   and the rounds measure no search gain.
2. **Fit.** Per side (one fit on every seat's data where the sides play the same role and
   share a row, ``PolicyTable.tie_sides``: The Search's hobbits), a conditional logit over each decision's legal rows: the chosen row's
   probability is ``softmax(beta * h + w . f)`` over the rows, ``h`` the heuristic's score,
   ``f`` the features, fitted by L-BFGS (SciPy) with an L2 penalty on ``w``, on every
   iteration's data so far. The player's weights are ``w / beta`` (the heuristic's score keeps
   its scale), clipped to the weights' range. With ``target="value"`` the fit follows the
   search's playouts instead of its choice: each row's mean paired difference against the
   heuristic's choice moves the heuristic's own softmax by ``exp(q / tau)`` (``fit_logit``),
   so the rows the race played and found worse or better teach as well as the one it chose.
3. **Check.** The fitted player against the current one on paired games (game ``i`` of both
   on stream ``i``), each side against the current player on the other: the gain in the side's
   score (win 1, draw 1/2) with a 95% interval from the paired differences. Each side keeps its
   fitted row where it gained (a shared row: where its gains add up to more than nothing); the
   loop stops when nothing is kept (or after ``iterations``).
4. **Pair.** A round checks a side's new row against the other side's row of that round only,
   so a side's row learned against a weak opponent may be the worse answer to the other side's
   final row. For two sides with their own rows, every combination of the start and the
   learned rows plays the same fresh games, and the result keeps, per side, the row that is
   the better answer to the other side's choice (``select_pair``).

The search's own result in the data games against the current player on the same indices is
the iteration's exploitability estimate (``search_gain``): how much the wide search still
finds against the player it searched on.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim._result import Result
from lotr_sim.errors import LotrSimError
from lotr_sim.players.search import SearchPlayer

#: the recording search's settings: every legal action, 2 playouts each to screen, halving
#: until the budget (per decision) is spent; the current player plays every seat in its playouts.
#: Where a game can score a position (LOTR Risk) a playout stops after two rounds, as the
#: judge's do (``search-wide``); elsewhere the horizon is not taken and playouts run to the end.
SEARCH = dict(width=10_000, start=2, budget=1024, z=1.0, model="opponents", horizon=2)
STATE_FILE = "learn.json"
RESULT = "learned.toml"


class RecordingSearch(SearchPlayer):
    """The search player on a base heuristic, keeping at every decision the learned term scores
    (``State.action_features``) the rows' features, the row it chose and, per row, the sum and
    the number of its playouts' paired differences against the heuristic's own choice (every
    race round plays that choice beside the others on the same streams): a record
    ``(features, chosen row, sums, counts)``."""

    def __init__(self, game, seed: int, **settings: Any):
        super().__init__(game, seed, **settings)
        self.records: list[tuple[np.ndarray, int, np.ndarray, np.ndarray]] = []
        self._dsum: np.ndarray | None = None
        self._dcnt: np.ndarray | None = None

    def _values(self, state, cand: np.ndarray, m: int, key: int, side: int) -> np.ndarray:
        v = super()._values(state, cand, m, key, side)
        if self._dsum is not None:     # row 0 of every round is the heuristic's own choice
            d = v - v[0]
            np.add.at(self._dsum, cand, d.sum(axis=1))
            np.add.at(self._dcnt, cand, float(v.shape[1]))
        return v

    def choose(self, state) -> int:
        self.use_base(state, state.to_move)   # the rows the features read
        feats = state.action_features()
        n = state.legal_actions().shape[0]
        self._dsum, self._dcnt = np.zeros(n), np.zeros(n)
        pick = super().choose(state)
        if feats is not None and feats.shape[0] > 1:
            self.records.append((feats, int(pick), self._dsum, self._dcnt))
        self._dsum = self._dcnt = None
        return pick


def play_recorded(game, compiled, player: str, side: str, seed: int, index: int,
                  settings: Mapping[str, Any], states: str = "search"
                  ) -> tuple[list[tuple[np.ndarray, int]], dict[str, np.ndarray]]:
    """Game ``index`` with a recording search on ``side`` (on ``player``'s weights) and
    ``player`` on every other seat: the decisions it recorded and the game's result row. With
    ``states="player"`` the search's choice is recorded but ``player``'s own is played."""
    policies = {s: player for s in game.sides}
    state = game.bind(compiled).new_state(policies, seed, index)
    want = list(game.sides).index(side)     # the side's first seat (LOTR Risk: p1..pN by side)
    seat = next(i for i in range(len(game.seat_names(compiled))) if game.seat_side(compiled, i) == want)
    rec = RecordingSearch(game, seed, base=player, **settings)
    rec.prepare(state)
    while True:
        s = state.run_builtin([seat])
        if s < 0:
            break
        pick = rec.choose(state)
        if states == "player":       # rec.choose left the player's rows in place (use_base)
            pick = state.heuristic_choice() if state.legal_actions().shape[0] > 1 else 0
        state.apply(pick)
    return rec.records, state.result()


def side_scores(game, res: Mapping[str, np.ndarray], side: str) -> np.ndarray:
    """Each game's score for ``side``: 1 for a win, 1/2 for a draw, 0 for a loss."""
    w = np.asarray(res["winner"])
    i = list(game.outcomes).index(side)
    draw = list(game.outcomes).index("draw") if "draw" in game.outcomes else -1
    return (w == i).astype(float) + 0.5 * (w == draw)


def paired_gain(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Mean of ``a - b`` (paired scores) with a 95% normal interval and the games."""
    d = np.asarray(a, float) - np.asarray(b, float)
    n = d.size
    m = float(d.mean()) if n else 0.0
    se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    return dict(gain=m, lo=m - 1.96 * se, hi=m + 1.96 * se, games=int(n))


# -- fitting ----------------------------------------------------------------------------------
#: value targets: the playouts' mean paired difference of a row is shrunk towards the
#: heuristic's choice as if it had PRIOR more playouts of difference 0, and weighs exp(q / TAU)
PRIOR = 8.0
TAU = 0.05


def fit_logit(records: Sequence[tuple], l2: float = 1.0, h_clip: tuple[float, float] = (-5.0, 60.0),
              target: str = "choice", tau: float = TAU, prior: float = PRIOR) -> dict[str, Any]:
    """Fit ``softmax(beta * h + w . f)`` over each decision's legal rows (see the module docstring).

    ``target="choice"`` fits the row the search chose. ``target="value"`` fits, per decision,
    the distribution ``pi_h(a) * exp(q_a / tau)`` over its rows: ``pi_h`` the heuristic alone
    (``softmax(beta_h * h)``, ``beta_h`` fitted to the choices) and ``q_a`` the row's playouts'
    mean paired difference against the heuristic's choice, shrunk by ``prior`` playouts of 0
    (a record's sums and counts, ``RecordingSearch``). It keeps the heuristic's preferences
    where the playouts saw nothing and moves them by how much each row won or lost, so every
    row raced says something, not only the one chosen; a decision without playout values
    fits its chosen row. Measured on the same data (docs/players.md): it gains more than the
    choice where decisions have few rows (The Search) and loses badly where they have dozens
    (Minas Tirith), since the soft target spends the fit on rows the player never plays; the
    choice is the default.

    Returns ``beta``, ``w`` (the raw coefficients), ``weights`` (``w / beta``), the mean log
    likelihood of the chosen rows per decision with and without the features, the share of
    decisions whose chosen row the fitted scores rank first, and the decisions used."""
    from scipy.optimize import minimize
    if target not in ("choice", "value"):
        raise LotrSimError(f"the fit's target is 'choice' or 'value', not {target!r}")
    recs = [r for r in records if r[0].shape[0] > 1]
    if not recs:
        raise LotrSimError("no decisions to learn from: play more games")
    X = np.concatenate([r[0] for r in recs])
    X[:, 0] = np.clip(X[:, 0], *h_clip)
    sizes = np.array([r[0].shape[0] for r in recs])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    chosen = starts + np.array([r[1] for r in recs])
    seg = np.repeat(np.arange(len(recs)), sizes)
    scale = X[:, 1:].std(axis=0)
    scale[scale == 0] = 1.0
    Z = X.copy()
    Z[:, 1:] /= scale
    nd = len(recs)
    onehot = np.zeros(X.shape[0])
    onehot[chosen] = 1.0

    def softmax(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mx = np.maximum.reduceat(u, starts)
        e = np.exp(u - mx[seg])
        den = np.add.reduceat(e, starts)
        return e / den[seg], mx + np.log(den)

    def make_nll(T: np.ndarray):
        def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
            u = Z @ theta
            p, lse = softmax(u)
            val = float(lse.sum() - T @ u) / nd
            g = ((p - T) @ Z) / nd
            pen = np.zeros_like(theta)
            pen[1:] = theta[1:]
            return val + 0.5 * l2 / nd * float(theta[1:] @ theta[1:]), g + l2 / nd * pen
        return nll

    theta0 = np.zeros(Z.shape[1])
    theta0[0] = 1.0
    choice_nll = make_nll(onehot)
    base = minimize(lambda t: choice_nll(np.concatenate((t, np.zeros(Z.shape[1] - 1))))[0],
                    theta0[:1], method="L-BFGS-B")
    T = onehot
    valued = 0
    if target == "value":
        if len(recs[0]) < 4:
            raise LotrSimError("these decisions hold no playout values (recorded before values were kept): "
                               "fit their choices")
        q = np.concatenate([r[2] / (r[3] + prior) for r in recs])
        has = np.add.reduceat(np.concatenate([r[3] for r in recs]), starts) > 0
        valued = int(has.sum())
        T, _ = softmax(float(base.x[0]) * Z[:, 0] + q / tau)
        T = np.where(has[seg], T, onehot)
    res = minimize(make_nll(T), theta0, jac=True, method="L-BFGS-B")
    theta = res.x
    beta = float(theta[0])
    w = theta[1:] / scale
    u = Z @ theta
    top = np.maximum.reduceat(u, starts)
    hit = float(np.mean(u[chosen] >= top[np.arange(nd)] - 1e-12))
    return dict(beta=beta, w=w, weights=w / beta if beta > 1e-6 else np.zeros_like(w),
                loglik=-float(choice_nll(theta)[0]), loglik_h_only=-float(base.fun), top1=hit, decisions=nd,
                converged=bool(res.success), target=target, valued=valued)


# -- the loop ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class LearnResult(Result):
    """What ``learn`` did.

    Attributes
    ----------
    out : Path
        The learn run's folder (``learn.json`` holds its rounds).
    path : Path or None
        ``learned.toml``, or None when no round improved on the start.
    player : str
        The player that plays the result (``tuned:FILE``; the start player when nothing was written).
    iterations : list of dict
        Per round: the data, the fit, the paired check and the search's gain.
    manifest : dict
        The run's state as saved (settings, rounds, finish time).
    """

    out: Path
    path: Path | None
    player: str
    iterations: list[dict] = field(default_factory=list)
    manifest: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``out``, ``file``, ``player`` and ``iterations`` (what ``lotr-sim learn
        --json`` prints)."""
        return dict(out=str(self.out), file=str(self.path) if self.path else None, player=self.player,
                    iterations=self.iterations)


def _record_chunk(game, compiled, player: str, side: str, seed: int, first: int, n: int, settings: Mapping,
                  threads: int, states: str = "search") -> tuple[list, np.ndarray]:
    """Games first..first+n-1 with a recording search on ``side``: records and the side's scores."""
    def one(i: int):
        return play_recorded(game, compiled, player, side, seed, first + i, settings, states)
    if threads > 1:
        with ThreadPoolExecutor(max_workers=threads) as ex:
            out = list(ex.map(one, range(n)))
    else:
        out = [one(i) for i in range(n)]
    recs = [r for rs, _ in out for r in rs]
    scores = np.concatenate([side_scores(game, res, side) for _, res in out])
    return recs, scores


def _save_chunk(path: Path, recs: list, scores: np.ndarray) -> None:
    from lotr_sim.experiments.store import atomic_write_bytes
    import io
    sizes = np.array([r[0].shape[0] for r in recs], dtype=np.int64)
    X = np.concatenate([r[0] for r in recs]) if recs else np.zeros((0, 1))
    picks = np.array([r[1] for r in recs], dtype=np.int64)
    dsum = np.concatenate([r[2] for r in recs]) if recs else np.zeros(0)
    dcnt = np.concatenate([r[3] for r in recs]) if recs else np.zeros(0)
    buf = io.BytesIO()
    np.savez(buf, X=X, sizes=sizes, picks=picks, scores=scores, dsum=dsum, dcnt=dcnt)
    atomic_write_bytes(path, buf.getvalue())


def _load_chunk(path: Path) -> tuple[list, np.ndarray]:
    with np.load(path) as z:
        X, sizes, picks, scores = z["X"], z["sizes"], z["picks"], z["scores"]
        # chunks saved before the playouts' values were kept have none: counts of 0
        dsum = z["dsum"] if "dsum" in z else np.zeros(X.shape[0])
        dcnt = z["dcnt"] if "dcnt" in z else np.zeros(X.shape[0])
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    recs = [(X[bounds[j]:bounds[j + 1]], int(picks[j]), dsum[bounds[j]:bounds[j + 1]], dcnt[bounds[j]:bounds[j + 1]])
            for j in range(len(sizes))]
    return recs, scores


def learn(game, config: str | None = None, sets: Sequence[str] | Mapping[str, Any] | None = None,
          seed: int = 1, iterations: int = 3, games: int = 100, check_games: int = 20_000,
          budget: int = SEARCH["budget"], start: str = "tuned", l2: float = 1.0, chunk: int = 10,
          threads: int | None = None, out: str | Path | None = None, resume: str | Path | None = None,
          progress: bool = False, target: str = "choice", extend_to: int | None = None,
          sides: Sequence[str] | None = None, states: str = "search") -> LearnResult:
    """Expert iteration for ``game``'s learned player (see the module docstring): ``iterations``
    rounds of ``games`` recorded search games a side, a fit on all data so far and a paired
    check on ``check_games`` games a side; starting from player ``start`` (default the
    shipped ``tuned``). Writes ``learned.toml`` (readable as ``tuned:FILE``; copied to
    ``configs/tuned/<game>.toml`` it is the built-in ``tuned``), ``learn.json`` (the
    iterations) and the data. Ctrl-C keeps every finished chunk of games (``resume``).
    ``target`` is what the fit follows: the search's chosen rows (``"choice"``) or its playouts'
    values of every row (``"value"``; ``fit_logit``). With ``resume``, ``extend_to`` raises the
    run's number of rounds (refused where its last round kept nothing: another round would
    search the same player on the same games). ``sides`` learns only those sides (the search
    plays, the fit and the check run only there; default every side). ``states`` is whose play
    the data games follow: the search's (``"search"``, default; each round also measures the
    search's gain) or the current player's (``"player"``: the search labels the positions the
    fast player reaches)."""
    from lotr_sim import __version__
    from lotr_sim.experiments.store import ensure_writable_dir, folder_lock, now_iso, read_manifest_file
    from lotr_sim.kernels.rng import check_seed

    table = game.policy_table
    if table is None or not table.learned_weights(table.sides[0]) or not hasattr(game.K, "features_nb"):
        raise LotrSimError(f"game '{game.name}' has no learned player yet (no features for its actions)")
    if resume is not None:
        outp = Path(resume)
        if not (outp / STATE_FILE).is_file():
            raise LotrSimError(f"{outp} holds no learn run to resume (no {STATE_FILE})")
        st = read_manifest_file(outp / STATE_FILE)   # a broken file: one error naming it
        if st.get("game") != game.name:
            raise LotrSimError(f"{outp} is a learn run of '{st.get('game')}', not '{game.name}'")
        a = st["args"]
        config, sets, seed, iterations, games = a["config"], a["sets"], a["seed"], a["iterations"], a["games"]
        check_games, budget, start, l2, chunk = a["check_games"], a["budget"], a["start"], a["l2"], a["chunk"]
        target = a.get("target", "choice")
        sides = a.get("sides")
        states = a.get("states", "search")
        if extend_to is not None:
            if not isinstance(extend_to, int) or extend_to < 1:
                raise LotrSimError(f"--iterations must be an integer of at least 1, got {extend_to}")
            its = st["iterations"]
            if extend_to > iterations:
                if its and not its[-1]["kept"]:
                    raise LotrSimError(f"{outp} stopped after round {len(its)}, which kept nothing: more rounds "
                                       "would search the same player on the same games")
                iterations = a["iterations"] = int(extend_to)
                st.pop("pair", None)        # the pair is chosen again after the last round
                st.pop("finished", None)
    else:
        check_seed(seed)
        for name, v, lo in (("--iterations", iterations, 1), ("--games", games, 1), ("--check-games", check_games, 100),
                            ("--budget", budget, 4), ("--chunk", chunk, 1)):
            if not isinstance(v, int) or v < lo:
                raise LotrSimError(f"{name} must be an integer of at least {lo}, got {v}")
        if not l2 >= 0:
            raise LotrSimError(f"--l2 must be >= 0, got {l2}")
        if target not in ("choice", "value"):
            raise LotrSimError(f"--target must be choice or value, got {target!r}")
        if states not in ("search", "player"):
            raise LotrSimError(f"--states must be search or player, got {states!r}")
        if sides:
            sides = list(dict.fromkeys(str(x) for x in sides))
            bad = [x for x in sides if x not in game.sides]
            if bad:
                raise LotrSimError(f"--sides: no side '{bad[0]}' in {game.name} (sides: {', '.join(game.sides)})")
            if table.tie_sides and len(sides) != len(game.sides):
                raise LotrSimError(f"--sides: {game.name}'s sides play one role and share one learned row; "
                                   "learn them together (leave --sides out)")
            sides = [x for x in game.sides if x in sides]
        else:
            sides = None
        outp = Path(out) if out is not None else Path("reports") / game.name / (
            "learn-" + time.strftime("%Y%m%d-%H%M%S"))
        if (outp / STATE_FILE).is_file():
            raise LotrSimError(f"{outp} already holds a learn run: continue it with --resume {outp}")
        st = dict(game=game.name, package_version=__version__, started=now_iso(), iterations=[],
                  args=dict(config=config, sets=list(sets) if isinstance(sets, (list, tuple)) else sets,
                            seed=int(seed), iterations=int(iterations), games=int(games),
                            check_games=int(check_games), budget=int(budget), start=start, l2=float(l2),
                            chunk=int(chunk), target=target, sides=sides, states=states))
    if not table.knows(start):
        raise LotrSimError(f"--start {start!r} is not a player of {game.name}'s weight table: give a preset "
                           f"({', '.join(table.presets)}), tuned or tuned:FILE")
    table.check(start)
    ensure_writable_dir(outp)
    with folder_lock(outp, "learn"):
        return _run(game, table, st, outp, config, sets, seed, iterations, games, check_games, budget, start,
                    l2, chunk, threads, progress, target, sides, states)


def _run(game, table, st: dict, outp: Path, config, sets, seed: int, iterations: int, games: int,
         check_games: int, budget: int, start: str, l2: float, chunk: int, threads: int | None,
         progress: bool, target: str = "choice", sides: Sequence[str] | None = None,
         states: str = "search") -> LearnResult:
    """``learn`` with its folder locked: the data of finished iterations, then the rest."""
    from lotr_sim.experiments.store import atomic_write_json
    from lotr_sim.kernels.runner import resolve_threads
    (outp / "data").mkdir(exist_ok=True)
    cfg = game.load(config, sets)
    compiled = game.compile(cfg)
    threads = resolve_threads(threads)
    settings = dict(SEARCH, budget=int(budget))
    st.setdefault("rules_hash", cfg.hash)
    atomic_write_json(outp / STATE_FILE, st)

    current = st["iterations"][-1]["player"] if st["iterations"] else start
    data: dict[str, list] = {s: [] for s in (sides or game.sides)}
    for k in range(len(st["iterations"])):        # the data of finished iterations
        for s in data:
            for p in sorted((outp / "data").glob(f"k{k}-{s}-*.npz")):
                data[s] += _load_chunk(p)[0]
    n_chunks = -(-games // chunk)
    try:
        current = _iterate(game, compiled, table, st, outp, data, current, seed, iterations, games, chunk,
                           n_chunks, check_games, settings, l2, threads, progress, target, states)
    except KeyboardInterrupt:
        from lotr_sim.errors import Interrupted
        raise Interrupted(f"interrupted: the finished chunks of games are saved in {outp}; continue with: "
                          f"lotr-sim learn --game {game.name} --resume {outp}") from None
    if current != start and len(game.sides) == 2 and not table.tie_sides and not sides and "pair" not in st:
        st["pair"] = select_pair(game, compiled, table, start, current, seed, check_games, threads)
        atomic_write_json(outp / STATE_FILE, st)
        current = st["pair"]["player"]
    return _finish(game, table, st, outp, cfg, current, start, seed, games, budget, l2, check_games)


#: First game index of the final pair selection's games (apart from the data and check games).
PAIR_FIRST = 900_000_000


def select_pair(game, compiled, table, start: str, learned: str, seed: int, n: int, threads: int) -> dict:
    """The pair of rows (per side: the start player's or the learned one's) that neither side
    gains by leaving. Each round's check judged a side's new row against the other side's
    row of that round only; here every combination plays the same ``n`` fresh games, and a
    side keeps the learned row only where it is the better answer to the other side's
    choice. Where no combination is such a pair, each side takes the row that does better
    against the other side's learned row. Returns the first side's scores by combination
    (``scores``, keyed ``"<first side's>/<second side's>"`` row names ``start``/``learned``),
    the rows chosen (``choice``) and their ``player``."""
    sides = list(game.sides)
    rows = {"start": table.rows(start), "learned": table.rows(learned)}
    names = ("start", "learned")
    mean = {}
    for a in names:
        for b in names:
            both = table.inline_name({sides[0]: rows[a][sides[0]], sides[1]: rows[b][sides[1]]})
            res = game.simulate(compiled, {s: both for s in sides}, seed, PAIR_FIRST, n, threads=threads)
            mean[a, b] = (float(side_scores(game, res, sides[0]).mean()),
                          float(side_scores(game, res, sides[1]).mean()))
    stable = [(a, b) for a in names for b in names
              if mean[a, b][0] >= max(mean[x, b][0] for x in names)
              and mean[a, b][1] >= max(mean[a, y][1] for y in names)]
    if stable:      # prefer the learned rows among several
        a, b = max(stable, key=lambda ab: (ab[0] == "learned") + (ab[1] == "learned"))
    else:
        a = max(names, key=lambda x: mean[x, "learned"][0])
        b = max(names, key=lambda y: mean["learned", y][1])
    chosen = {sides[0]: rows[a][sides[0]].copy(), sides[1]: rows[b][sides[1]].copy()}
    player = start if (a, b) == ("start", "start") else table.inline_name(chosen)
    return dict(scores={f"{x}/{y}": [round(v, 6) for v in mean[x, y]] for x in names for y in names},
                choice={sides[0]: a, sides[1]: b}, stable=bool(stable), games=int(n), player=player)


def _iterate(game, compiled, table, st: dict, outp: Path, data: dict, current: str, seed: int, iterations: int,
             games: int, chunk: int, n_chunks: int, check_games: int, settings: Mapping, l2: float,
             threads: int, progress: bool, target: str = "choice", states: str = "search") -> str:
    """The iterations still to do; returns the player the last one kept."""
    from lotr_sim.experiments.progress import make_progress
    from lotr_sim.experiments.store import atomic_write_json
    while len(st["iterations"]) < iterations:
        k = len(st["iterations"])
        it: dict[str, Any] = dict(iteration=k + 1, searched_on=current)
        t0 = time.perf_counter()
        with make_progress(progress, f"learn {game.name}: iteration {k + 1}, search games",
                           n_chunks * chunk * len(data)) as bar:
            gains = {}
            # the current player against itself on the data games' indices: the search's pairs
            selfplay = game.simulate(compiled, {x: current for x in game.sides}, seed, 0, games, threads=threads)
            for s in data:
                scores = []
                for c in range(n_chunks):
                    first = c * chunk
                    n = min(chunk, games - first)
                    path = outp / "data" / f"k{k}-{s}-{first:06d}.npz"
                    if path.is_file():
                        recs, sc = _load_chunk(path)
                    else:
                        recs, sc = _record_chunk(game, compiled, current, s, seed, first, n, settings, threads,
                                                 states)
                        _save_chunk(path, recs, sc)
                    data[s] += recs
                    scores.append(sc)
                    bar.advance(n)
                if states == "search":    # the data games followed the player: no search gain
                    gains[s] = paired_gain(np.concatenate(scores), side_scores(game, selfplay, s))
        it["search_gain"] = gains
        it["search_seconds"] = round(time.perf_counter() - t0, 1)
        rows = {x: r.copy() for x, r in table.rows(current).items()}
        fits = {}
        # sides that play the same role (tie_sides) share one row, fitted on every seat's data
        groups = {table.sides[0]: list(game.sides)} if table.tie_sides else {s: [s] for s in data}
        for s, group in groups.items():
            f = fit_logit([r for x in group for r in data[x]], l2=l2, target=target)
            fits[s] = {key: (v.tolist() if isinstance(v, np.ndarray) else v) for key, v in f.items()}
            for w, x in zip(table.learned_weights(s), f["weights"]):
                rows[s][w.index] = float(np.clip(x, w.lo, w.hi))
        if table.tie_sides:
            for x in game.sides:
                rows[x] = rows[table.sides[0]].copy()
        new = table.inline_name(rows)
        check = {}
        first = 1_000_000 * (k + 1)     # check games apart from the data games
        b = game.simulate(compiled, {x: current for x in game.sides}, seed, first, check_games, threads=threads)
        for s in data:
            a = game.simulate(compiled, {x: (new if x == s else current) for x in game.sides}, seed, first,
                              check_games, threads=threads)
            check[s] = paired_gain(side_scores(game, a, s), side_scores(game, b, s))
        # each side keeps its fitted row where it gained on the paired games; a shared row is
        # kept when its gains over the seats add up to more than nothing
        if table.tie_sides:
            kept = list(game.sides) if sum(c["gain"] for c in check.values()) > 0 else []
        else:
            kept = [s for s, c in check.items() if c["gain"] > 0]
        old_rows = table.rows(current)
        final = {x: (rows[x] if x in kept else old_rows[x]).copy()
                 for x in game.sides}
        it.update(fit=fits, check=check, kept=kept, seconds=round(time.perf_counter() - t0, 1))
        it["player"] = table.inline_name(final) if kept else current
        st["iterations"].append(it)
        atomic_write_json(outp / STATE_FILE, st)
        if not kept:
            break
        current = it["player"]
    return current


def _finish(game, table, st: dict, outp: Path, cfg, current: str, start: str, seed: int, games: int,
            budget: int, l2: float, check_games: int) -> LearnResult:
    """Write the learned weights (when an iteration was kept) and the run's record."""
    from lotr_sim import __version__
    from lotr_sim.experiments.store import atomic_write_json, now_iso
    path = None
    if current != start:
        rows = table.rows(current)
        prov = dict(seed=int(seed), iterations=len(st["iterations"]), games_per_side=int(games),
                    budget=int(budget), start=start, l2=float(l2), check_games=int(check_games),
                    **{f"{s}_gain_v_start": round(sum(it["check"][s]["gain"] for it in st["iterations"]
                                                      if s in it["kept"]), 5)
                       for s in game.sides},
                    date=now_iso()[:10], package_version=__version__, learned_by="lotr-sim learn")
        path = table.write(outp / RESULT, rows, cfg.hash, prov, by="lotr-sim learn")
    st["finished"] = now_iso()
    atomic_write_json(outp / STATE_FILE, st)
    return LearnResult(out=outp, path=path, player=f"tuned:{path}" if path else start,
                       iterations=list(st["iterations"]), manifest=st)
