#!/usr/bin/env python
"""Where a first run's time goes: numba compile time per game, command and kernel.

Every measurement starts from an empty numba cache (a fresh ``NUMBA_CACHE_DIR``) unless it
says "warm" (the same directory again). CPU is user + sys of the process and its children
(``os.wait4``, what ``/usr/bin/time`` reports); wall is given beside it (noisy on a shared
machine). Run from the repository root; it puts the checkout first on ``PYTHONPATH``.

  python benchmarks/compile_times.py cli [-g GAME ...] [--what play,search,run] [--repeat N]
      lotr-sim play (default players), the first search game (play with the search player
      on the first side) and run -n 200, each cold then warm.
  python benchmarks/compile_times.py kernels [-g GAME ...]
      One fresh process per game calls the game's entry points in turn (simulate, play,
      the step machine: new_state / legal_actions / apply, run_builtin, playouts, then a
      whole game with the search player) under numba's compile events, and tabulates the
      compile seconds of every kernel: inclusive, exclusive (without the callees it
      compiled), split into front end (the passes before lowering: type inference ...),
      lowering, LLVM function passes, LLVM module passes (the linked module: the kernel
      and every callee inlined into it) and machine code.
  python benchmarks/compile_times.py opt -g GAME [--levels 0,1,2,3] [-n 20000]
      NUMBA_OPT per level: cold play and cold run CPU (each from an empty cache), then warm
      games/s (run -n N -j 1, minus a run of 200 games: noisy, ``speed`` is steadier).
  python benchmarks/compile_times.py plan [-g GAME ...] [-j JOBS]
      Records lotr_sim/_numba/compile_plan.json, what the first-run compile helper compiles
      (lotr_sim/_numba/warmup.py): each game's run, play and first search game from an
      empty cache; per entry point, its callees at every depth in the order their compiles
      finished, and the entry points compiled after it (``then``). Run it
      after changing a kernel's callees or signatures (tests/kernels/test_warmup.py says when).
  python benchmarks/compile_times.py speed -g GAME [--levels 0,1,2,3] [-n 20000] [--rounds 3]
      NUMBA_OPT per level, in one fresh process each: CPU seconds of the first simulate call
      (the cold compile of the run path) and games per CPU-second on 1 thread (best of
      --rounds): the figures of ``opt`` without the noise of process start-up.

``--json FILE`` writes every figure; the tables go to stdout. Nothing here is part of the
test suite (tests/test_compile_times.py runs the compile profile on two tiny kernels).
The measured figures and what they say are in docs/performance.md ("First run: where the time goes").
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("minas-tirith", "lotr-risk", "the-search")
FIRST_SIDE = {"minas-tirith": "good", "lotr-risk": "good", "the-search": "frodo"}
#: A contract kernel Python calls (_numba.FULLY_OPTIMISED, MAY_BE_LEAN) that a scenario
#: compiled or JIT-ed (a lean one Python called) after a planned entry point, taking at least
#: this long, is a follower of that entry: its helper prepares it after the entry's callees.
FOLLOWER_SECONDS = 0.3


# -- running commands ------------------------------------------------------------------------

def _env(cache: str | None, extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    env.update(extra or {})
    return env


def run_timed(cmd: list[str], env: dict, cwd: str | Path = ROOT) -> dict:
    """Run ``cmd`` in ``cwd`` (``python -m`` imports the package from there first, before
    ``PYTHONPATH``): wall seconds, and user + sys CPU seconds of it and of the children it
    reaped (``os.wait4``, as ``/usr/bin/time``); raises on a non-zero exit."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # drain the pipes in threads so that a chatty child cannot block, then reap with wait4
    import threading
    bufs = {}

    def drain(name, f):
        bufs[name] = f.read()
    ts = [threading.Thread(target=drain, args=(n, f)) for n, f in (("out", p.stdout), ("err", p.stderr))]
    for t in ts:
        t.start()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    for t in ts:
        t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {bufs['err'].decode()[-2000:]}")
    return dict(wall=round(wall, 2), user=round(ru.ru_utime, 2), sys=round(ru.ru_stime, 2),
                cpu=round(ru.ru_utime + ru.ru_stime, 2), maxrss_mb=round(ru.ru_maxrss / 1024),
                stdout=bufs["out"].decode()[-300:])


def cli_cmd(game: str, what: str, games: int = 200, threads: int | None = None) -> list[str]:
    base = [sys.executable, "-m", "lotr_sim.cli.main"]
    if what == "play":
        return base + ["play", "-g", game, "-q"]
    if what == "search":
        return base + ["play", "-g", game, "-q", "--policy", f"{FIRST_SIDE[game]}=search"]
    if what == "run":
        return base + ["run", "-g", game, "-n", str(games), "-q"] + (["-j", str(threads)] if threads else [])
    raise ValueError(what)


def cold_warm(game: str, what: str, extra_env: dict | None = None, warm: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        env = _env(cache, extra_env)
        out = dict(cold=run_timed(cli_cmd(game, what), env))
        if warm:
            out["warm"] = run_timed(cli_cmd(game, what), _env(cache))
    return out


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def cmd_cli(args) -> dict:
    res = {}
    print(f"{'game':<13} {'command':<8} {'cold CPU':>9} {'cold wall':>10} {'warm CPU':>9} {'warm wall':>10}  load")
    for g in args.game:
        for what in args.what.split(","):
            for r in range(args.repeat):
                x = cold_warm(g, what)
                x["load_after"] = _load()
                res.setdefault(g, {}).setdefault(what, []).append(x)
                c, w = x["cold"], x["warm"]
                print(f"{g:<13} {what:<8} {c['cpu']:9.1f} {c['wall']:10.1f} {w['cpu']:9.2f} {w['wall']:10.2f}  "
                      f"{x['load_after']}", flush=True)
    return res


def cmd_opt(args) -> dict:
    res = {}
    print(f"{'game':<13} {'NUMBA_OPT':>9} {'run cold CPU':>12} {'play cold CPU':>13} {'games/s (1 thread)':>18}")
    for g in args.game:
        for lvl in args.levels.split(","):
            x = {}
            with tempfile.TemporaryDirectory(prefix="numba-opt-") as cache:   # play from an empty cache too
                x["play_cold"] = run_timed(cli_cmd(g, "play"), _env(cache, {"NUMBA_OPT": lvl}))
            with tempfile.TemporaryDirectory(prefix="numba-opt-") as cache:
                env = _env(cache, {"NUMBA_OPT": lvl})
                x["run_cold"] = run_timed(cli_cmd(g, "run"), env)
                best = None
                for _ in range(args.rounds):
                    t = run_timed(cli_cmd(g, "run", args.games, threads=1), env)
                    best = t if best is None or t["wall"] < best["wall"] else best
                small = run_timed(cli_cmd(g, "run", 200, threads=1), env)   # start-up without the games
                x["throughput"] = dict(best=best, startup=small, games=args.games,
                                       games_per_s=round(args.games / max(best["cpu"] - small["cpu"], 1e-9)))
            res.setdefault(g, {})[lvl] = x
            print(f"{g:<13} {lvl:>9} {x['run_cold']['cpu']:12.1f} {x['play_cold']['cpu']:13.1f} "
                  f"{x['throughput']['games_per_s']:18,}", flush=True)
    return res


def _throughput_child(game_name: str, games: int, rounds: int) -> dict:
    """In a fresh process: the CPU seconds of the first ``simulate`` call (compiles the
    engine, or loads it), then games per CPU-second of ``simulate`` on 1 thread (best of
    ``rounds``; CPU, not wall, so that a busy machine costs less accuracy)."""
    from lotr_sim.api import get_game
    g = get_game(game_name)
    c = g.compile(g.load())
    pols = dict(getattr(g, "default_policies", {}) or {})
    c0 = time.process_time()
    g.simulate(c, pols, 1, 0, 2, threads=1)
    first = time.process_time() - c0
    best = None
    for r in range(rounds):
        c0 = time.process_time()
        g.simulate(c, pols, 1, 10_000 + r * games, games, threads=1)
        dt = time.process_time() - c0
        best = dt if best is None or dt < best else best
    return dict(game=game_name, numba_opt=os.environ.get("NUMBA_OPT"), first_simulate_cpu=round(first, 2),
                games=games, best_cpu=round(best, 3), games_per_cpu_s=round(games / best))


def cmd_speed(args) -> dict:
    res = {}
    print(f"{'game':<13} {'NUMBA_OPT':>9} {'first simulate CPU s':>21} {'games per CPU-s (1 thread)':>27}")
    for g in args.game:
        for lvl in args.levels.split(","):
            with tempfile.TemporaryDirectory(prefix="numba-speed-") as cache:
                p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "_throughput", g,
                                    str(args.games), str(args.rounds)],
                                   env=_env(cache, {"NUMBA_OPT": lvl}), cwd=str(ROOT), capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(p.stderr[-3000:])
            x = json.loads(p.stdout.splitlines()[-1])
            x["load_after"] = _load()
            res.setdefault(g, {})[lvl] = x
            print(f"{g:<13} {lvl:>9} {x['first_simulate_cpu']:21.1f} {x['games_per_cpu_s']:27,}  {x['load_after']}",
                  flush=True)
    return res


# -- kernels: compile events ----------------------------------------------------------------

LOWERING_PASSES = ("native_lowering", "nopython_backend")   # run_pass names are "name [function]"


class CompileProfile:
    """Collects numba's compile events of one process: a stack of compiles (a callee is
    compiled while its caller's types are inferred), the passes of each, and the LLVM work
    (function passes, module passes over the linked module, machine code) done in it.
    ``rows()`` gives one row per compiled kernel, exclusive of the callees it compiled."""

    LLVM = ("llvm_function_passes", "llvm_module_passes", "llvm_machine_code")

    def __init__(self):
        self.stack: list[dict] = []      # compile frames and pass frames
        self.done: list[dict] = []
        self.step = "import"
        self._installed = False
        self._uids = itertools.count()

    # frames ---------------------------------------------------------------------------------
    # durations are CPU seconds of the compiling thread (``time.thread_time``): numba
    # compiles on the calling thread, and a busy machine does not inflate them
    clock = staticmethod(time.thread_time)

    def _push(self, kind, name, **kw):
        self.stack.append(dict(kind=kind, name=name, t0=self.clock(), child=0.0, cchild=0.0, **kw))

    def _pop(self, kind):
        """Pop the innermost frame of ``kind``: ``(frame, inclusive, exclusive)``; a pass is
        exclusive of the frames inside it, a compile of the compiles inside it."""
        while self.stack and self.stack[-1]["kind"] != kind:
            self.stack.pop()
        f = self.stack.pop()
        incl = self.clock() - f["t0"]
        if self.stack:
            self.stack[-1]["child"] += incl
            if kind == "compile":
                c = self._compile_frame()
                if c is not None:
                    c["cchild"] += incl
        return f, incl, incl - (f["cchild"] if kind == "compile" else f["child"])

    def _compile_frame(self):
        for f in reversed(self.stack):
            if f["kind"] == "compile":
                return f
        return None

    # numba listener --------------------------------------------------------------------------
    def install(self):
        from numba.core import codegen, event

        prof = self

        class L(event.Listener):
            def on_start(self, ev):
                if ev.kind == "numba:compile":
                    d = ev.data["dispatcher"]
                    fn = d.py_func
                    parent = prof._compile_frame()
                    prof._push("compile", f"{fn.__module__}.{fn.__qualname__}", dispatcher=d,
                               top=parent is None, parent=parent["name"] if parent else None,
                               uid=next(prof._uids), parent_uid=parent["uid"] if parent else None,
                               args=str(ev.data["args"]), passes={}, llvm={k: 0.0 for k in prof.LLVM},
                               step=prof.step)
                else:
                    prof._push("pass", ev.data["name"])

            def on_end(self, ev):
                if ev.kind == "numba:compile":
                    f, incl, excl = prof._pop("compile")
                    f.update(incl=incl, excl=excl)
                    prof.done.append(f)
                else:
                    f, incl, excl = prof._pop("pass")
                    c = prof._compile_frame()
                    if c is not None:
                        n = f["name"].split(" ")[0]
                        c["passes"][n] = c["passes"].get(n, 0.0) + excl

        self._listener = L()
        event.register("numba:compile", self._listener)
        event.register("numba:run_pass", self._listener)

        self._patched = []

        def wrap(cls, meth, bucket):
            orig = cls.__dict__[meth]
            self._patched.append((cls, meth, orig))

            def timed_llvm(lib, *a, **k):
                t0 = prof.clock()
                try:
                    return orig(lib, *a, **k)
                finally:
                    dt = prof.clock() - t0
                    c = prof._compile_frame()
                    if c is not None:
                        c["llvm"][bucket] += dt
            setattr(cls, meth, timed_llvm)

        wrap(codegen.CPUCodeLibrary, "_optimize_functions", "llvm_function_passes")
        wrap(codegen.CPUCodeLibrary, "_optimize_final_module", "llvm_module_passes")
        wrap(codegen.JITCodeLibrary, "_finalize_specific", "llvm_machine_code")
        self._installed = True

    def uninstall(self):
        """Remove the listener and put numba's LLVM methods back."""
        from numba.core import event
        if not self._installed:
            return
        event.unregister("numba:compile", self._listener)
        event.unregister("numba:run_pass", self._listener)
        for cls, meth, orig in self._patched:
            setattr(cls, meth, orig)
        self._installed = False

    # results ---------------------------------------------------------------------------------
    def rows(self) -> list[dict]:
        out = []
        for f in self.done:
            passes = f["passes"]
            lower = sum(v for k, v in passes.items() if k.split(" ")[0] in LOWERING_PASSES)
            front = sum(v for k, v in passes.items() if k.split(" ")[0] not in LOWERING_PASSES)
            llvm = f["llvm"]
            lib = None
            try:
                lib = f["dispatcher"].overloads[next(iter(f["dispatcher"].overloads))].library
            except Exception:
                pass
            out.append(dict(kernel=f["name"], step=f["step"], top=f["top"], parent=f["parent"], uid=f["uid"],
                            parent_uid=f["parent_uid"], incl=f["incl"], excl=f["excl"],
                            front_end=front, lowering=max(lower - sum(llvm.values()), 0.0), **llvm,
                            other=max(f["excl"] - front - lower, 0.0), passes=dict(passes),
                            linked=_linked(lib), functions=_nfuncs(lib)))
        return out


def _linked(lib) -> list[str]:
    """Names of every library linked (transitively) into ``lib``: the callees it inlines."""
    seen, todo, names = set(), list(getattr(lib, "_linking_libraries", []) or []), []
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        names.append(x.name)
        todo.extend(getattr(x, "_linking_libraries", []) or [])
    return names


def _nfuncs(lib) -> int | None:
    try:
        return sum(1 for f in lib._final_module.functions if not f.is_declaration)
    except Exception:
        return None


def entry_points(game_name: str, prof: CompileProfile | None = None) -> list[dict]:
    """Call each entry point of ``game_name`` in turn (the first call compiles it); one row
    per step: wall and process CPU seconds."""
    import numpy as np

    from lotr_sim.api import get_game

    steps = []

    def step(name, fn):
        if prof is not None:
            prof.step = name
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        steps.append(dict(step=name, wall=time.perf_counter() - t0, cpu=time.process_time() - c0))

    g = get_game(game_name)
    box: dict = {}
    step("load+compile config", lambda: box.update(c=g.compile(g.load())))
    c = box["c"]
    pols = dict(g.default_policies) if getattr(g, "default_policies", None) else {}
    step("simulate (run)", lambda: g.simulate(c, pols, 1, 0, 2, threads=1))
    step("play (trace)", lambda: g.play(c, pols, 1, 0))

    def steps_machine():
        st = g.bind(c).new_state(pols, 1, 0)
        box["st"] = st
    step("new_state", steps_machine)

    def legal():
        box["n"] = box["st"].legal_actions().shape[0]
    step("legal_actions", legal)
    step("apply", lambda: box["st"].apply(0))
    step("to_move/result/invariant", lambda: (box["st"].to_move, box["st"].invariant_ok(),
                                              box["st"].decision_kind()))
    step("action_scores/choices", lambda: (box["st"].action_scores(), box["st"].heuristic_choice(),
                                           box["st"].builtin_choice()))

    def playouts():
        n = box["st"].legal_actions().shape[0]
        box["st"].playouts(np.arange(min(n, 2), dtype=np.int64), 1, 7)
    step("playouts", playouts)
    step("determinize", lambda: box["st"].determinize(box["st"].to_move if box["st"].to_move >= 0 else 0, 3))
    step("run_builtin", lambda: box["st"].run_builtin([]))
    step("result", lambda: box["st"].result())
    search = dict(pols)
    search[g.sides[0]] = "search"
    step("play with search (rest)", lambda: g.play(c, search, 1, 0))
    return steps


def _profile_child(game_name: str) -> dict:
    """In a fresh process (NUMBA_CACHE_DIR set by the parent): every entry point under the
    compile profile."""
    prof = CompileProfile()
    t0, c0 = time.perf_counter(), time.process_time()
    import numba  # noqa: F401  (after NUMBA_CACHE_DIR and NUMBA_OPT are set)
    prof.install()
    import lotr_sim.api  # noqa: F401
    from lotr_sim import _numba
    _numba.want()                  # the first-run machinery, as the lotr-sim program has it
    imp = dict(step="import", wall=time.perf_counter() - t0, cpu=time.process_time() - c0)
    steps = [imp] + entry_points(game_name, prof)
    return dict(game=game_name, steps=steps, kernels=prof.rows(),
                numba_opt=os.environ.get("NUMBA_OPT"))


def short(name: str) -> str:
    return name.replace("lotr_sim.games.", "").replace("lotr_sim.kernels.", "kernels.")


def kernel_tables(res: dict, top: int = 25) -> str:
    """The tables of one game's ``_profile_child`` result (markdown)."""
    lines = [f"### {res['game']}", "", "| step | wall s | CPU s | compile s (top-level kernels) |", "|---|---:|---:|---:|"]
    ks = res["kernels"]
    for s in res["steps"]:
        comp = sum(k["incl"] for k in ks if k["step"] == s["step"] and _is_top(k, ks))
        lines.append(f"| {s['step']} | {s['wall']:.2f} | {s['cpu']:.2f} | {comp:.2f} |")
    tot = sum(k["excl"] for k in ks)
    cols = ("front_end", "lowering") + CompileProfile.LLVM
    sums = {c: sum(k[c] for k in ks) for c in cols}
    lines += ["", f"All compiles: {len(ks)} kernels, {tot:.1f} s exclusive in all: "
              + ", ".join(f"{c.replace('_', ' ')} {v:.1f} s" for c, v in sums.items()) + ".", ""]
    if ks and "uid" in ks[0]:
        rl = repeated_llvm(ks)
        lines += [f"LLVM module passes + machine code of the kernels called from Python (each links every "
                  f"callee it calls, and re-optimises and re-emits them): {rl['entries_total']:.1f} s ("
                  + ", ".join(f"{k} {v:.2f}" for k, v in rl["entries"].items() if v >= 0.1)
                  + f"); in the callees' own libraries: {rl['callee_libraries_total']:.1f} s.", "",
                  "Critical path (longest chain of exclusive compile seconds down the callee tree, the "
                  "least any number of parallel compiles could take): "
                  + ", ".join(f"{s['step']} {critical_path(ks, s['step']):.1f} s" for s in res["steps"]
                              if critical_path(ks, s["step"]) >= 0.05)
                  + f"; all steps in one tree: {critical_path(ks):.1f} s.", ""]
    lines += ["| kernel | first compiled by | incl s | excl s | front end | lowering | LLVM fn passes | "
              "LLVM module passes | machine code | callees linked | functions |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for k in sorted(ks, key=lambda k: -k["excl"])[:top]:
        lines.append(f"| {short(k['kernel'])} | {k['step']} | {k['incl']:.2f} | {k['excl']:.2f} | "
                     f"{k['front_end']:.2f} | {k['lowering']:.2f} | {k['llvm_function_passes']:.2f} | "
                     f"{k['llvm_module_passes']:.2f} | {k['llvm_machine_code']:.2f} | {len(k['linked'])} | "
                     f"{k['functions'] if k['functions'] is not None else '?'} |")
    return "\n".join(lines)


def critical_path(ks: list[dict], step: str | None = None) -> float:
    """The longest chain of exclusive compile seconds from a top-level kernel down the
    callees it compiled: the least a compile could take with as many processes as it likes,
    each compiling one kernel once its callees are done (``step``: the kernels first compiled
    there)."""
    kids: dict = {}
    for k in ks:
        kids.setdefault(k.get("parent_uid"), []).append(k)

    def path(k):
        return k["excl"] + max((path(c) for c in kids.get(k["uid"], [])), default=0.0)
    return max((path(k) for k in ks if k["top"] and (step is None or k["step"] == step)), default=0.0)


def repeated_llvm(ks: list[dict]) -> dict:
    """LLVM module passes + machine code: every library re-optimises and re-emits the callees
    linked into it. ``entries``: the kernels called from Python (each links the engine);
    ``callee_libraries``: the same work in the libraries of the callees."""
    top = [k for k in ks if k["top"]]
    rest = [k for k in ks if not k["top"]]

    def lv(k):
        return k["llvm_module_passes"] + k["llvm_machine_code"]
    return dict(entries={short(k["kernel"]): round(lv(k), 2) for k in sorted(top, key=lambda k: -lv(k))},
                entries_total=round(sum(lv(k) for k in top), 2),
                callee_libraries_total=round(sum(lv(k) for k in rest), 2))


def _is_top(k: dict, ks: list[dict]) -> bool:
    """Compiled at the top of the stack (called from Python), not as a callee."""
    return k.get("top", True)


# -- plan: what the compile helper compiles (lotr_sim/_numba/warmup.py) ----------------------

def plan_scenarios(game: str) -> dict[str, list[str]]:
    """The first runs the plan is recorded on: each a CLI command, each from an empty cache."""
    return {"run": ["run", "-g", game, "-n", "50", "-q"], "play": ["play", "-g", game],
            "search": ["play", "-g", game, "--policy", f"{FIRST_SIDE[game]}=search"]}


def _plan_child(game: str, scenario: str) -> dict:
    """In a fresh process and cache: run one scenario's CLI command and record its compiles."""
    import contextlib
    import io

    from lotr_sim import _numba
    from lotr_sim._numba import warmup
    from lotr_sim.cli.main import app

    _numba.want()                  # as the lotr-sim program has it (``app`` is run without ``main``)

    def go():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                app(plan_scenarios(game)[scenario])
            except SystemExit as e:
                if e.code:
                    raise
    return warmup.record(go)


def cmd_plan(args) -> dict:
    """Record every game's scenarios (two at a time, each in a fresh process and cache) and
    write lotr_sim/_numba/compile_plan.json: for each entry point whose direct callees took
    MIN_CALLEE_SECONDS or more, the scenario's recording where they took longest, and the
    unplanned kept kernels any scenario compiled or JIT-ed after it (``then``). With ``-g``, the
    other games' entries already in the file stay (when it was recorded with the same numba)."""
    from concurrent.futures import ThreadPoolExecutor

    from lotr_sim._numba import FULLY_OPTIMISED, MAY_BE_LEAN
    from lotr_sim._numba import warmup

    jobs = [(g, s) for g in args.game for s in plan_scenarios(g)]

    def one(job):
        g, s = job
        with tempfile.TemporaryDirectory(prefix="numba-plan-") as cache:
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "_plan", g, s],
                               env=_env(cache, {warmup.ENV_SWITCH: "0"}), cwd=str(ROOT),
                               capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{g} {s}: {p.stderr[-3000:]}")
        print(f"recorded {g} {s}", flush=True)
        return job, json.loads(p.stdout.splitlines()[-1])

    with ThreadPoolExecutor(args.jobs) as ex:
        recs = list(ex.map(one, jobs))
    entries: dict[str, dict] = {}
    then: dict[str, list] = {}
    then_seconds: dict[str, float] = {}
    for (g, s), rec in recs:
        names = list(rec)          # in the order the scenario compiled them
        for i, (name, e) in enumerate(rec.items()):
            old = entries.get(name)
            if old is None or e["callee_seconds"] > old["callee_seconds"]:
                entries[name] = dict(e, scenario=f"{g} {s}")
            later = then.setdefault(name, [])
            for n in names[i + 1:]:
                spec = [n.rsplit(".", 1)[0], n.rsplit(".", 1)[1], rec[n]["args"]]
                if (rec[n]["seconds"] >= FOLLOWER_SECONDS and spec[1] in FULLY_OPTIMISED + MAY_BE_LEAN
                        and spec not in later):
                    later.append(spec)
                    then_seconds[json.dumps(spec)] = rec[n]["seconds"]
    planned = sorted(k for k, e in entries.items() if e["callee_seconds"] >= warmup.MIN_CALLEE_SECONDS)
    # an entry point with a plan of its own starts its own helper: no other helper compiles it,
    # unless it was compiled inside this entry (lean) and then called by Python: this entry's
    # helper JIT-s it (run_until_nb inside the playouts). The quickest followers first.
    keep = {k: dict(entries[k], then=sorted((t for t in then[k] if f"{t[0]}.{t[1]}" not in planned
                                             or t in entries[k]["order"]),
                                            key=lambda t: then_seconds[json.dumps(t)]))
            for k in planned}
    import numba

    # a run for some games keeps the other games' entries (recorded with the same numba)
    if warmup.PLAN_FILE.exists():
        prev = json.loads(warmup.PLAN_FILE.read_text())
        if prev.get("numba") == numba.__version__:
            others = {k: e for k, e in prev.get("entries", {}).items()
                      if e.get("scenario", "").split(" ")[0] not in args.game}
            keep = dict(sorted({**others, **keep}.items()))
    out = dict(comment="Written by `python benchmarks/compile_times.py plan`: each entry point's callees "
                       "(every depth) in the order a cold compile finishes them, and the entry points "
                       "compiled after it (lotr_sim/_numba/warmup.py).",
               numba=numba.__version__, entries=keep)
    warmup.PLAN_FILE.write_text(json.dumps(out, indent=1) + "\n")
    for k, e in keep.items():
        print(f"{k}: {e['seconds']} s, callees {e['callee_seconds']} s ({len(e['order'])} kernels, "
              f"helper takes {len(warmup.helper_order(e))}, then {len(e['then'])} entry points; {e['scenario']})")
    return out


def cmd_kernels(args) -> dict:
    res = {}
    for g in args.game:
        with tempfile.TemporaryDirectory(prefix="numba-prof-") as cache:
            extra = {"NUMBA_OPT": args.numba_opt} if args.numba_opt is not None else {}
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "_profile", g],
                               env=_env(cache, extra), cwd=str(ROOT), capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-3000:])
        r = json.loads(p.stdout.splitlines()[-1])
        res[g] = r
        print(kernel_tables(r, args.top), "\n", flush=True)
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("cli", "kernels", "opt"):
        p = sub.add_parser(name)
        p.add_argument("-g", "--game", action="append", choices=GAMES)
        p.add_argument("--json", dest="json_out")
        if name == "cli":
            p.add_argument("--what", default="play,search,run")
            p.add_argument("--repeat", type=int, default=1)
        if name == "kernels":
            p.add_argument("--top", type=int, default=25)
            p.add_argument("--numba-opt", default=None)
        if name == "opt":
            p.add_argument("--levels", default="0,1,2,3")
            p.add_argument("-n", "--games", type=int, default=20000)
            p.add_argument("--rounds", type=int, default=2)
    p = sub.add_parser("speed")
    p.add_argument("-g", "--game", action="append", choices=GAMES)
    p.add_argument("--json", dest="json_out")
    p.add_argument("--levels", default="0,1,2,3")
    p.add_argument("-n", "--games", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=3)
    p = sub.add_parser("plan")
    p.add_argument("-g", "--game", action="append", choices=GAMES)
    p.add_argument("--json", dest="json_out")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p = sub.add_parser("_plan")
    p.add_argument("game")
    p.add_argument("scenario")
    p = sub.add_parser("_profile")
    p.add_argument("game")
    p = sub.add_parser("_throughput")
    p.add_argument("game")
    p.add_argument("games", type=int)
    p.add_argument("rounds", type=int)
    a = ap.parse_args(argv)
    if a.cmd == "_throughput":
        print(json.dumps(_throughput_child(a.game, a.games, a.rounds)))
        return
    if a.cmd == "_plan":
        print(json.dumps(_plan_child(a.game, a.scenario)))
        return
    if a.cmd == "_profile":
        r = _profile_child(a.game)
        r["kernels"] = [{k: v for k, v in x.items()} for x in r["kernels"]]
        print(json.dumps(r))
        return
    a.game = a.game or list(GAMES)
    res = dict(cli=cmd_cli, kernels=cmd_kernels, opt=cmd_opt, speed=cmd_speed, plan=cmd_plan)[a.cmd](a)
    res = dict(command=a.cmd, argv=sys.argv[1:], date=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               cpus=os.cpu_count(), results=res)
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(res, indent=1, default=str))


if __name__ == "__main__":
    main()
