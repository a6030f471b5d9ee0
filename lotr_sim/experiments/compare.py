"""``compare``: two variants A (``--set``) and B (``--vs``) of one game on paired games with
Wald's SPRT on the paired per-game differences (formulas in ``stats``), and ``balance``: bisection on
paired runs for the parameter value where the first outcome's rate (Good's win rate)
crosses a target.

Pairing: game i of A and game i of B use the same stream (seed, i) — common random
numbers. (``paired=False`` gives B its own streams, seed+1, for the pairing benchmark.)
"""
from __future__ import annotations

import math
import time
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import parse_assignment
from lotr_sim.errors import ConfigError, LotrSimError
from lotr_sim.experiments.backends import make_backend
from lotr_sim.experiments.progress import make_progress, warm_up
from lotr_sim.experiments.stats import SPRT, paired_diff_from_counts, wilson


def split_sets(game, sets: Sequence[str] | Mapping[str, Any] | None) -> tuple[dict, dict]:
    """Split ``name=value`` assignments into (rule parameters, side policies)."""
    items = sets.items() if isinstance(sets, Mapping) else [parse_assignment(s) for s in (sets or [])]
    params, pols = {}, {}
    for k, v in items:
        (pols if k in game.sides else params)[k] = v
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
            progress: bool = False) -> dict:
    from lotr_sim.kernels.rng import check_seed
    try:
        check_seed(seed)
    except ValueError as e:
        raise LotrSimError(str(e)) from None
    if delta is not None and (p0 is not None or p1 is not None):
        raise LotrSimError("give either --delta or --p0/--p1, not both")
    if delta is not None:
        if not 0 < delta < 1:
            raise LotrSimError(f"--delta must be in (0, 1), got {delta}")
        p0, p1 = -delta, delta
    p0 = -0.01 if p0 is None else p0
    p1 = 0.01 if p1 is None else p1
    try:
        sprt = SPRT(d0=p0, d1=p1, alpha=alpha, beta=beta, min_games=min_games)
    except ValueError as e:
        raise LotrSimError(str(e)) from None
    if max_games < 1:
        raise LotrSimError(f"--max-games must be at least 1, got {max_games}")
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
    xa, xb = [], []
    t0 = time.perf_counter()
    step = min(batch, max_games)
    if min_games < 2:
        raise LotrSimError(f"--min-games must be at least 2, got {min_games}")
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
            decision, j = sprt.first_decision(a & ~b, ~a & b)
            xa.append(a[:j])
            xb.append(b[:j])
            used = done + j
            done += n
            bar.advance(n)
            step = min(step * 2, 50_000)
    elapsed = time.perf_counter() - t0
    xa = np.concatenate(xa)
    xb = np.concatenate(xb)
    n10 = int(np.count_nonzero(xa & ~xb))
    n01 = int(np.count_nonzero(~xa & xb))
    d = paired_diff_from_counts(used, n10, n01)
    o0 = game.outcomes[0]
    ka, kb = int(xa.sum()), int(xb.sum())
    if decision == "H1":
        verdict = f"A ({_desc(pa, pola)}) favours {o0}"
    elif decision == "H0":
        verdict = f"B ({_desc(pb, polb)}) favours {o0}"
    else:
        verdict = f"no decision within {max_games} games"
    if decision is not None and d.lo <= 0.0 <= d.hi:
        verdict += (f" (but the 95% interval of the difference includes 0: any difference is "
                    f"within the test's resolution p0..p1 = {p0:+g}..{p1:+g})")
    lo_b, hi_b = sprt.bounds
    return dict(
        game=game.name, a=_desc(pa, pola), b=_desc(pb, polb), decision=decision, verdict=verdict,
        favours=("A" if decision == "H1" else "B" if decision == "H0" else None),
        games=used, paired=paired, outcome=o0,
        rate_a=ka / used if used else float("nan"), ci95_a=list(wilson(ka, used)),
        rate_b=kb / used if used else float("nan"), ci95_b=list(wilson(kb, used)),
        delta=d.mean, delta_ci95=[d.lo, d.hi], a_only=n10, b_only=n01,
        sprt=dict(p0=p0, p1=p1, alpha=alpha, beta=beta, min_games=min_games, llr=sprt.llr,
                  lower=lo_b, upper=hi_b),
        seed=seed, elapsed_s=elapsed, games_played=done,
    )


def _desc(params: Mapping, pols: Mapping) -> str:
    return ", ".join(f"{k}={v}" for k, v in {**params, **pols}.items())


def balance(game, param: str, lo_text: str, hi_text: str | None = None, target: float = 0.5,
            games: int = 4000, base_sets=None, policies=None, config=None, seed: int = 1,
            tol: float | None = None, max_steps: int = 12, threads=None, scheduler=None, cluster=None,
            progress: bool = False) -> dict:
    """Bisection for the value of ``param`` where the first outcome's rate crosses ``target``.

    Every evaluated value plays the same games 0..games-1 (common random numbers), so the
    comparisons between values along the bisection are paired. For an int parameter the
    search ends with two adjacent values bracketing the target; for a float one when the
    bracket is narrower than ``tol`` (default: range/100) or after ``max_steps`` steps.
    The crossing is estimated by linear interpolation of the rates at the bracket ends, and
    its interval by interpolating the ends' Wilson bounds the same way (clipped to the range).
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
    if not 0 < target < 1:
        raise LotrSimError(f"--target must be in (0, 1), got {target}")
    if games < 1:
        raise LotrSimError(f"--games must be at least 1, got {games}")
    base_params, base_pols = split_sets(game, base_sets)
    pol = game.check_policies({**(policies or {}), **base_pols})
    tol = tol if tol is not None else (b - a) / 100.0
    cache: dict = {}
    order: list = []
    winners: dict = {}

    with make_progress(progress, "balance", games * (max_steps + 2)) as bar, \
            make_backend(threads, scheduler, cluster) as be:
        def rate(v):
            if v not in cache:
                cfg = game.load(config, {**base_params, param: v})
                comp = {0: game.compile(cfg)}
                w = _winners(game, be, comp, {0: pol}, {0: seed}, 0, games, max(1000, games // 4))[0]
                k = int(np.count_nonzero(w == 0))
                lo, hi = wilson(k, games)
                cache[v] = dict(value=v, rate=k / games, ci95=[lo, hi], games=games)
                winners[v] = w == 0
                order.append(v)
                bar.advance(games)
            return cache[v]["rate"]

        ra, rb = rate(a), rate(b)
        sa, sb = np.sign(ra - target), np.sign(rb - target)
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
                rm = rate(m)
                steps += 1
                if np.sign(rm - target) == sa:
                    a, ra = m, rm
                else:
                    b, rb = m, rm
    ea, eb = cache[a], cache[b]
    o0 = game.outcomes[0]
    out = dict(game=game.name, param=param, kind=P.kind, target=target, outcome=o0, games_per_value=games,
               bracketed=bool(bracketed), evaluated=[cache[v] for v in order], seed=seed, policies=pol)
    x = winners[a]
    y = winners[b]
    d = paired_diff_from_counts(games, int(np.count_nonzero(y & ~x)), int(np.count_nonzero(~y & x)))
    out["bracket"] = [ea, eb]
    out["bracket_delta"] = dict(delta=d.mean, ci95=[d.lo, d.hi])
    if bracketed:
        def cross(ya, yb):
            if yb == ya:
                return None
            return a + (target - ya) * (b - a) / (yb - ya)
        est = cross(ea["rate"], eb["rate"])
        c1 = cross(ea["ci95"][0], eb["ci95"][0])
        c2 = cross(ea["ci95"][1], eb["ci95"][1])
        orig_lo = float(P.coerce(str(_num(lo_text))))
        orig_hi = float(P.coerce(str(_num(hi_text))))
        cands = [c for c in (c1, c2) if c is not None and math.isfinite(c)]
        iv = [max(orig_lo, min(cands)), min(orig_hi, max(cands))] if len(cands) == 2 else [orig_lo, orig_hi]
        out["estimate"] = est
        out["interval"] = iv
        if P.kind == "int":
            out["message"] = (f"{o0} win rate crosses {target:g} between {param}={a} "
                              f"({100 * ea['rate']:.1f}% [{100 * ea['ci95'][0]:.1f}, {100 * ea['ci95'][1]:.1f}]) and "
                              f"{param}={b} ({100 * eb['rate']:.1f}% [{100 * eb['ci95'][0]:.1f}, "
                              f"{100 * eb['ci95'][1]:.1f}])")
        else:
            out["message"] = (f"{o0} win rate crosses {target:g} at {param} ≈ {est:.4g} "
                              f"(95% interval {iv[0]:.4g} .. {iv[1]:.4g})")
    else:
        out["estimate"] = None
        out["interval"] = None
        side = "above" if sa > 0 else "below"
        out["message"] = (f"{o0} win rate stays {side} {target:g} over {param} in "
                          f"[{lo_text}, {hi_text}]: {100 * ea['rate']:.1f}% at {a}, {100 * eb['rate']:.1f}% at {b}")
    return out
