"""``compare``: two variants A (``--set``) and B (``--vs``) of one game on paired games with
a sequential test valid from the first pair (two trinomial GSPRTs, formulas in ``sequential``):
does A move Good's win rate by at least δ either way, or not? And ``balance``: bisection on
paired runs for the parameter value where Good's win rate crosses a target (a number, or
``equal``: Good's win rate = Evil's).

Pairing: game i of A and game i of B use the same stream (seed, i) — common random
numbers. (``paired=False`` gives B its own streams, seed+1, for the pairing benchmark.)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim._result import Result
from lotr_sim.config import parse_overrides
from lotr_sim.experiments.run import MAX_GAMES
from lotr_sim.errors import ConfigError, LotrSimError
from lotr_sim.experiments.backends import make_backend
from lotr_sim.experiments.progress import make_progress, warm_up
from lotr_sim.stats import paired_diff_from_counts, wilson, zero_crossing


BALANCE_MAX_GAMES = 50_000_000


@dataclass(frozen=True)
class CompareResult(Result):
    """What ``compare`` returns: does variant A move the first side's win rate against B?

    Attributes
    ----------
    game : str
        The game's registry name.
    a, b : str
        The two variants, as ``name=value, ...`` (rule parameters and side players).
    decision : str or None
        ``"raises"``, ``"lowers"``, ``"no_change"``, or None when undecided within ``max_games``.
    verdict : str
        The one-line answer (``compare_headline``).
    favours : str or None
        ``"A"`` (raises), ``"B"`` (lowers) or None.
    changed : bool or None
        True for raises/lowers, False for no change, None when undecided.
    games : int
        Pairs of games the decision used.
    paired : bool
        Whether game i of both variants used stream i (common random numbers).
    outcome : str
        The first outcome, whose win rate is compared (``"good"``; ``"frodo"`` in The Search).
    rate_a, rate_b : float
        That outcome's win rate under A and under B over the ``games`` used.
    ci95_a, ci95_b : list of float
        Their Wilson 95% intervals ``[lo, hi]``.
    delta : float
        Win rate under A minus under B (paired).
    delta_ci95 : list of float
        Its Bonett-Price 95% interval ``[lo, hi]``.
    a_only, b_only : int
        Games won by the outcome under A only / under B only.
    test : dict
        The sequential test's state (``ThreeWayTest.state``: delta, alpha, beta, log-likelihood
        ratios and bounds).
    seed : int
        The seed of the game streams.
    elapsed_s : float
        Wall time in seconds.
    games_played : int
        Pairs played (at least ``games``: the last batch may run past the decision).
    """

    game: str
    a: str
    b: str
    decision: str | None
    verdict: str
    favours: str | None
    changed: bool | None
    games: int
    paired: bool
    outcome: str
    rate_a: float
    ci95_a: list[float]
    rate_b: float
    ci95_b: list[float]
    delta: float
    delta_ci95: list[float]
    a_only: int
    b_only: int
    test: dict[str, Any]
    seed: int
    elapsed_s: float
    games_played: int


@dataclass(frozen=True)
class BalanceResult(Result):
    """What ``balance`` returns: where the first side's win rate crosses the target.

    Attributes
    ----------
    game : str
        The game's registry name.
    param : str
        The rule parameter searched.
    kind : str
        Its kind, ``"int"`` or ``"float"``.
    target : float or str
        The target rate in (0, 1), or ``"equal"`` (the first side's rate = the second's).
    parity : str
        The target in words.
    outcome, second_outcome : str
        The game's first and second outcomes (Good and Evil; Frodo and Sam in The Search).
    games_per_value : int
        Games played at every evaluated value (the same games 0..n-1: paired).
    bracketed : bool
        Whether the range's ends lie on both sides of the target.
    evaluated : list of dict
        Every value tried, in order: ``value``, ``rate``/``ci95`` (the first outcome's),
        ``rate_second``/``ci95_second``, ``games``, ``score`` and ``score_ci95`` (the
        distance from the target the bisection follows).
    seed : int
        The seed of the game streams.
    policies : dict
        The players of the sides.
    bracket : list of dict
        The two evaluated values that bracket the crossing (entries of ``evaluated``).
    bracket_delta : dict
        The paired change of the first outcome's rate from the lower to the upper bracket
        value: ``delta``, ``ci95``, ``lower``, ``upper``, ``meaning``.
    estimate : float or None
        The interpolated crossing (None when not bracketed).
    interval : list of float or None
        Its 95% interval, clipped to the range (None when not bracketed).
    message : str
        The answer in one sentence.
    """

    game: str
    param: str
    kind: str
    target: float | str
    parity: str
    outcome: str
    second_outcome: str
    games_per_value: int
    bracketed: bool
    evaluated: list[dict[str, Any]]
    seed: int
    policies: dict[str, str]
    bracket: list[dict[str, Any]]
    bracket_delta: dict[str, Any]
    estimate: float | None
    interval: list[float] | None
    message: str


def split_sets(game, sets: Sequence[str] | Mapping[str, Any] | None) -> tuple[dict, dict]:
    """Split ``name=value`` assignments into (rule parameters, side/seat policies)."""
    items = sets.items() if isinstance(sets, Mapping) else parse_overrides(sets or []).items()
    params, pols = {}, {}
    for k, v in items:
        (pols if k in game.policy_keys else params)[k] = v
    return params, pols


def _winners(game, backend, compiled, pols, seed_for, first, n, chunk):
    """Winner columns of games first..first+n-1 for each variant key."""
    from lotr_sim.experiments.run import split
    out = {k: {} for k in compiled}
    for key in compiled:
        tasks = [(key, a, m) for a, m in split(first, n, chunk)]

        def done(task, cols, key=key):
            out[key][task[1]] = cols["winner"]
        backend.run(game, compiled, pols, seed_for[key], tasks, ["winner"], done)
    return {k: np.concatenate([v[a] for a in sorted(v)]) for k, v in out.items()}


def compare(game, set_a, set_b, base_sets=None, policies=None, config=None, seed: int = 1,
            alpha: float = 0.05, beta: float = 0.05, p0: float | None = None, p1: float | None = None,
            delta: float | None = None, max_games: int = 200_000, batch: int = 2000, min_games: int = 100,
            threads: int | None = None, scheduler=None, cluster=None, paired: bool = True,
            progress: bool = False) -> CompareResult:
    """Does variant A (``set_a``) move Good's win rate by at least ``delta`` either way,
    compared with B (``set_b``)? Paired games and the sequential test of
    :mod:`lotr_sim.experiments.sequential` (three verdicts, or undecided at ``max_games``).

    ``p0``/``p1`` (the old two-hypothesis SPRT) are refused with a message.
    """
    from lotr_sim.experiments.sequential import LOWERS, NO_CHANGE, RAISES, ThreeWayTest, paired_interval
    from lotr_sim.kernels.rng import check_seed
    check_seed(seed)  # a SeedError is a LotrSimError: one error line
    if p0 is not None or p1 is not None:
        raise LotrSimError("--p0/--p1 are gone: compare asks whether A moves Good's win rate by at least "
                           "--delta (default 0.02) either way; give --delta")
    delta = 0.02 if delta is None else delta
    if not isinstance(max_games, int) or max_games < 1:
        raise LotrSimError(f"--max-games must be at least 1, got {max_games}")
    if max_games > MAX_GAMES:
        raise LotrSimError(f"--max-games must be at most {MAX_GAMES:.0e}, got {max_games}")
    if min_games > max_games:
        raise LotrSimError(f"--min-games ({min_games}) is larger than --max-games ({max_games})")
    try:
        test = ThreeWayTest(delta=delta, alpha=alpha, beta=beta, min_games=min_games)
    except ValueError as e:
        raise LotrSimError(str(e)) from None
    base_params, base_pols = split_sets(game, base_sets)
    pa, pola = split_sets(game, set_a)
    pb, polb = split_sets(game, set_b)
    if not (pa or pola) or not (pb or polb):
        raise LotrSimError("give the two variants with --set name=value and --vs name=value")
    pol0 = dict(policies or {})
    pol0.update(base_pols)
    pol_a = game.check_policies({**pol0, **pola})
    pol_b = game.check_policies({**pol0, **polb})
    cfg_a = game.load(config, {**base_params, **pa})
    cfg_b = game.load(config, {**base_params, **pb})
    if cfg_a.hash == cfg_b.hash and pol_a == pol_b:
        raise LotrSimError("the two variants are the same configuration")
    compiled = {0: game.compile(cfg_a), 1: game.compile(cfg_b)}
    pols = {0: pol_a, 1: pol_b}
    seeds = {0: seed, 1: seed if paired else seed + 1}
    done = 0
    decision = None
    used = 0
    ka = kb = 0         # Good's wins under A / B in the games used (counts: memory stays flat)
    t0 = time.perf_counter()
    step = min(batch, max_games)
    warm_up(game, compiled[0], pols[0], seed, progress)
    with make_progress(progress, "compare", max_games) as bar, make_backend(threads, scheduler, cluster) as be:
        while done < max_games and decision is None:
            n = min(step, max_games - done)
            w = {}
            for k in (0, 1):
                w.update({k: _winners(game, be, {k: compiled[k]}, pols, {k: seeds[k]}, done, n,
                                      max(n, 1))[k]})
            a = w[0] == 0
            b = w[1] == 0
            decision, j = test.feed(a & ~b, ~a & b)
            ka += int(np.count_nonzero(a[:j]))
            kb += int(np.count_nonzero(b[:j]))
            used = done + j
            done += n
            bar.advance(n)
            step = min(step * 2, 50_000)
    elapsed = time.perf_counter() - t0
    n10, n01 = test.n10, test.n01
    lo, hi = paired_interval(used, n10, n01)
    mean = (n10 - n01) / used
    o0 = game.outcomes[0]
    verdict = compare_headline(decision, o0, _desc(pa, pola), _desc(pb, polb), delta, lo, hi, max_games)
    return CompareResult(
        game=game.name, a=_desc(pa, pola), b=_desc(pb, polb), decision=decision, verdict=verdict,
        favours=("A" if decision == RAISES else "B" if decision == LOWERS else None),
        changed=(True if decision in (RAISES, LOWERS) else False if decision == NO_CHANGE else None),
        games=used, paired=paired, outcome=o0,
        rate_a=ka / used, ci95_a=list(wilson(ka, used)),
        rate_b=kb / used, ci95_b=list(wilson(kb, used)),
        delta=mean, delta_ci95=[lo, hi], a_only=n10, b_only=n01,
        test=test.state(), seed=seed, elapsed_s=elapsed, games_played=done,
    )


def _pp_range(lo: float, hi: float) -> str:
    return f"[{100 * lo:+.2f}, {100 * hi:+.2f}] percentage points"


def compare_headline(decision: str | None, outcome: str, a: str, b: str, delta: float, lo: float, hi: float,
                     max_games: int) -> str:
    """The one-line answer of ``compare``: the direction the test decided and the 95%
    interval ``[lo, hi]`` of A - B (Good's win rate under A minus under B).

    The headline never claims more than the interval shows: a rise or fall is said to be
    "at least δ" only when the interval excludes every smaller change (``lo >= δ`` or
    ``hi <= -δ``); otherwise it gives the direction and the interval, and says whether a
    change of δ is still possible. The test stops on "raises" when the interval excludes no
    change and still reaches δ (``lo > 0`` and ``hi >= δ``), so most stops say only the
    direction. "No change" is given only when the interval lies within (-δ, δ)."""
    from lotr_sim.experiments.sequential import LOWERS, NO_CHANGE, RAISES
    pts = f"{100 * delta:g} percentage point" + ("" if 100 * delta == 1 else "s")
    who = f"{outcome.capitalize()}'s win rate"
    iv = f"A - B in {_pp_range(lo, hi)}"
    if decision == RAISES:
        if lo >= delta:
            return f"A ({a}) raises {who} by at least {pts}: {iv}"
        return f"A ({a}) raises {who}: {iv} (a rise of {pts} is within the interval, not established)"
    if decision == LOWERS:
        if hi <= -delta:
            return f"A ({a}) lowers {who} by at least {pts}: {iv}"
        return f"A ({a}) lowers {who}: {iv} (a fall of {pts} is within the interval, not established)"
    if decision == NO_CHANGE:
        return f"no change as large as {pts}: A ({a}) and B ({b}) are within {pts} of each other ({iv})"
    return f"undecided within {max_games} games (the interval below is the answer)"


def _desc(params: Mapping, pols: Mapping) -> str:
    return ", ".join(f"{k}={v}" for k, v in {**params, **pols}.items())


def parse_target(target) -> float | str:
    """``--target``: a number in (0, 1) (Good's win rate = that) or ``"equal"`` (Good's win
    rate = Evil's win rate)."""
    if isinstance(target, str):
        t = target.strip().lower()
        if t in ("equal", "eq", "good=evil"):
            return "equal"
        try:
            target = float(t)
        except ValueError:
            raise LotrSimError(f"--target must be a number in (0, 1) or 'equal', got {target!r}") from None
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 < target < 1:
        raise LotrSimError(f"--target must be a number in (0, 1) or 'equal', got {target!r}")
    return float(target)


def _trinomial_ci(k_plus, k_minus, n, conf: float = 0.95) -> tuple[float, float]:
    """Interval of ``(k_plus - k_minus)/n`` for one trinomial sample (Good wins minus Evil
    wins); the same adjusted Wald interval (Bonett-Price) as ``sequential.paired_interval``."""
    from lotr_sim.experiments.sequential import paired_interval
    return paired_interval(n, k_plus, k_minus, conf)


def balance(game, param: str, lo_text: str, hi_text: str | None = None, target: float | str = 0.5,
            games: int = 4000, base_sets=None, policies=None, config=None, seed: int = 1,
            tol: float | None = None, max_steps: int = 12, threads=None, scheduler=None, cluster=None,
            progress: bool = False) -> BalanceResult:
    """Bisection for the value of ``param`` where Good's win rate crosses ``target``.

    ``target`` is a number in (0, 1) (Good's win rate = target) or ``"equal"`` (Good's win
    rate = Evil's win rate: parity when draws are possible); the result's ``parity`` says
    which. The bisection follows the *score*: Good's rate minus the target, or Good's rate
    minus Evil's. Every evaluated value plays the same games 0..games-1 (common random
    numbers), so the comparisons between values along the bisection are paired. For an int
    parameter the search ends with two adjacent values bracketing the target; for a float one
    when the bracket is narrower than ``tol`` (default: range/100) or after ``max_steps``
    steps. The crossing is estimated by linear interpolation of the scores at the bracket ends,
    and its interval by interpolating the ends' interval bounds the same way (clipped to the
    range): Wilson intervals for a rate, the adjusted Wald interval of a trinomial mean for
    Good - Evil. ``bracket_delta`` is Good's win rate at the upper bracket value minus at the
    lower one (paired).

    "Good" and "Evil" stand for the game's first and second outcomes, named in the result as
    ``outcome`` and ``second_outcome`` (Frodo and Sam in The Search); each evaluated value has
    ``rate``/``ci95`` (the first's) and ``rate_second``/``ci95_second`` (the second's).
    """
    from lotr_sim.config import closest
    from lotr_sim.experiments.spec import _num
    table = {p.name: p for p in game.params()}
    if param not in table:
        raise ConfigError(f"unknown parameter '{param}' of game '{game.name}'{closest(param, table)}")
    P = table[param]
    if P.kind not in ("int", "float"):
        raise LotrSimError(f"balance needs a numeric parameter; '{param}' is {P.kind} ({P.allowed()})")
    if hi_text is None:
        parts = lo_text.split(":")
        if len(parts) != 2:
            raise LotrSimError(f"--range must be a:b, got {lo_text!r}")
        lo_text, hi_text = parts
    a, b = P.coerce(str(_num(lo_text))), P.coerce(str(_num(hi_text)))
    if not a < b:
        raise LotrSimError(f"--range {lo_text}:{hi_text} is empty or inverted (need a < b)")
    target = parse_target(target)
    if games < 1:
        raise LotrSimError(f"--games must be at least 1, got {games}")
    if games > BALANCE_MAX_GAMES:
        raise LotrSimError(f"--games must be at most {BALANCE_MAX_GAMES:,} for balance (it keeps one byte "
                           f"per game for every value it tries, to pair them), got {games:,}")
    base_params, base_pols = split_sets(game, base_sets)
    if param in base_params:
        raise LotrSimError(f"--set {param}={base_params[param]} clashes with --param {param}: "
                           f"balance chooses {param} itself (drop that --set)")
    pol = game.check_policies({**(policies or {}), **base_pols})
    tol = tol if tol is not None else (b - a) / 100.0
    cache: dict = {}
    order: list = []
    winners: dict = {}
    o0, o1 = game.outcomes[0], game.outcomes[1]
    equal = target == "equal"

    with make_progress(progress, "balance", games * (max_steps + 2)) as bar, \
            make_backend(threads, scheduler, cluster) as be:
        def score(v):
            if v not in cache:
                cfg = game.load(config, {**base_params, param: v})
                comp = {0: game.compile(cfg)}
                w = _winners(game, be, comp, {0: pol}, {0: seed}, 0, games, max(1000, games // 4))[0]
                k = int(np.count_nonzero(w == 0))
                ke = int(np.count_nonzero(w == 1))
                lo, hi = wilson(k, games)
                elo, ehi = wilson(ke, games)
                e = dict(value=v, rate=k / games, ci95=[lo, hi], rate_second=ke / games, ci95_second=[elo, ehi],
                         games=games)
                if equal:
                    e["score"] = (k - ke) / games
                    e["score_ci95"] = list(_trinomial_ci(k, ke, games))
                else:
                    e["score"] = k / games - target
                    e["score_ci95"] = [lo - target, hi - target]
                cache[v] = e
                winners[v] = w == 0
                order.append(v)
                bar.advance(games)
            return cache[v]["score"]

        ra, rb = score(a), score(b)
        sa, sb = np.sign(ra), np.sign(rb)
        bracketed = sa != sb or sa == 0 or sb == 0
        steps = 0
        if bracketed:
            while steps < max_steps:
                if P.kind == "int":
                    if b - a <= 1:
                        break
                    m = (a + b) // 2
                else:
                    if b - a <= tol:
                        break
                    m = (a + b) / 2.0
                rm = score(m)
                steps += 1
                if np.sign(rm) == sa:
                    a, ra = m, rm
                else:
                    b, rb = m, rm
    ea, eb = cache[a], cache[b]
    parity = (f"{o0}'s win rate = {o1}'s win rate" if equal else f"{o0}'s win rate = {100 * target:g}%")
    out = dict(game=game.name, param=param, kind=P.kind, target=target, parity=parity, outcome=o0,
               second_outcome=o1, games_per_value=games, bracketed=bool(bracketed), evaluated=[cache[v] for v in order], seed=seed,
               policies=pol)
    x = winners[a]          # Good won, at the lower bracket value
    y = winners[b]          # ... at the upper one
    # n10 = won at the upper value only, n01 = at the lower only: delta = rate(b) - rate(a)
    d = paired_diff_from_counts(games, int(np.count_nonzero(y & ~x)), int(np.count_nonzero(~y & x)))
    out["bracket"] = [ea, eb]
    out["bracket_delta"] = dict(delta=d.mean, ci95=[d.lo, d.hi], lower=a, upper=b,
                                meaning=f"{o0}'s win rate at {param}={b} minus at {param}={a}")

    def pct(e):
        if equal:
            return (f"{o0} {100 * e['rate']:.1f}% vs {o1} {100 * e['rate_second']:.1f}%, "
                    f"difference {100 * e['score']:+.1f} [{100 * e['score_ci95'][0]:+.1f}, "
                    f"{100 * e['score_ci95'][1]:+.1f}]")
        return f"{100 * e['rate']:.1f}% [{100 * e['ci95'][0]:.1f}, {100 * e['ci95'][1]:.1f}]"
    what = f"{o0}'s win rate reaches {o1}'s" if equal else f"{o0} win rate crosses {target:g}"
    if bracketed:
        est = zero_crossing(a, b, ea["score"], eb["score"])
        c1 = zero_crossing(a, b, ea["score_ci95"][0], eb["score_ci95"][0])
        c2 = zero_crossing(a, b, ea["score_ci95"][1], eb["score_ci95"][1])
        orig_lo = float(P.coerce(str(_num(lo_text))))
        orig_hi = float(P.coerce(str(_num(hi_text))))
        cands = [c for c in (c1, c2) if c is not None and math.isfinite(c)]
        iv = [max(orig_lo, min(cands)), min(orig_hi, max(cands))] if len(cands) == 2 else [orig_lo, orig_hi]
        out["estimate"] = est
        out["interval"] = iv
        if P.kind == "int":
            out["message"] = f"{what} between {param}={a} ({pct(ea)}) and {param}={b} ({pct(eb)})"
        else:
            out["message"] = f"{what} at {param} ≈ {est:.4g} (95% interval {iv[0]:.4g} .. {iv[1]:.4g})"
    else:
        out["estimate"] = None
        out["interval"] = None
        if equal:
            side = "above" if sa > 0 else "below"
            out["message"] = (f"{o0}'s win rate stays {side} {o1}'s over {param} in [{lo_text}, {hi_text}]: "
                              f"{pct(ea)} at {a}; {pct(eb)} at {b}")
        else:
            side = "above" if sa > 0 else "below"
            out["message"] = (f"{o0} win rate stays {side} {target:g} over {param} in "
                              f"[{lo_text}, {hi_text}]: {100 * ea['rate']:.1f}% at {a}, "
                              f"{100 * eb['rate']:.1f}% at {b}")
    return BalanceResult(**out)
