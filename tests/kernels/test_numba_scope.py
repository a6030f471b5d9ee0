"""lotr-sim is a guest in a user's numba: importing the package and playing every game leaves a
user's own ``@njit`` functions compiled exactly as numba compiles them, and so does the
``lotr-sim`` program's first-run machinery (``lotr_sim._numba``), which acts on lotr-sim's
kernels only. Also: the program's first run with that machinery on (a compile helper, lean
callees) plays the same game as one with it off."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import lotr_sim

ROOT = Path(lotr_sim.__file__).resolve().parent.parent

# A user's caller and callee, compiled after (``clean``: without) lotr-sim; what numba made of
# the callee: its entry point's kind, its compile flags and passes, and its optimised LLVM IR
# (digits masked: numba numbers functions per process). ``library``: after every game was
# played through the API; ``program``: the same with the lotr-sim program's machinery on.
_PROBE = """
    import hashlib, json, os, re, sys
    mode = sys.argv[1]
    env_before = dict(os.environ)
    if mode != "clean":
        from lotr_sim import api
        from lotr_sim.games import registry
        if mode == "program":
            from lotr_sim import _numba
            _numba.enable()
        for name in registry.game_names():
            api.run_games(name, games=2, seed=3, threads=1)
    import numpy as np
    from numba import njit
    from numba.core import codegen, cpu, dispatcher

    @njit
    def user_callee_nb(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * 2.0
        return s

    @njit
    def user_caller_nb(x):
        return user_callee_nb(x) + 1.0

    assert user_caller_nb(np.arange(10.0)) == 91.0
    (cres,) = user_callee_nb.overloads.values()
    ir = cres.library.get_llvm_str()
    methods = [codegen.CPUCodeLibrary._optimize_final_module, codegen.CPUCodeLibrary._unserialize,
               codegen.CPUCodeLibrary.serialize_using_object_code, codegen.JITCPUCodegen.set_env,
               cpu.CPUContext.get_executable, dispatcher._DispatcherBase.add_overload]
    print(json.dumps(dict(
        entry=type(cres.entry_point).__name__,
        flags=[sorted(user_callee_nb.targetoptions.items()), cres.objectmode],
        library=[type(cres.library).__name__, sorted(k for k in vars(cres.library) if "lotr" in k)],
        passes=list(cres.metadata["pipeline_times"]["nopython"]),
        ir=hashlib.sha256(re.sub(r"[0-9]+", "N", ir).encode()).hexdigest(),
        numba_methods=all(getattr(m, "__module__", "").startswith("numba.") for m in methods),
        env_same=dict(os.environ) == env_before,
        callee_runs=user_callee_nb(np.arange(3.0)))))
"""


def _probe(mode: str) -> dict:
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(_PROBE), mode], cwd=str(ROOT),
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_users_njit_functions_compile_as_without_lotr_sim():
    """After every game was played through the API, a user's callee compiled inside a user's
    caller has numba's own entry point, flags, passes and optimised IR, as in a process that
    never imported lotr_sim; numba's classes and the environment are untouched. With the
    program's first-run machinery on, the user's functions are still numba's own."""
    clean = _probe("clean")
    assert clean["entry"] != "_DeferredEntry" and clean["callee_runs"] == 6.0
    library = _probe("library")
    assert library == clean
    program = _probe("program")
    for key in ("entry", "flags", "library", "passes", "ir", "env_same", "callee_runs"):
        assert program[key] == clean[key], key


def _lotr_sim(args: list[str], cache: Path, **env: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("lotr-sim")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lotr_sim.cli.main"]
    p = subprocess.run(cmd + args, cwd=str(ROOT), capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), **env))
    assert p.returncode == 0, p.stderr[-3000:]
    return p


@pytest.mark.slow
def test_a_programs_first_run_with_the_machinery_on_plays_the_same_game(tmp_path):
    """``lotr-sim -v play`` from an empty cache with the compile helper and lean callees on (as
    a user runs it) says so, starts the helper and prints the same game as a first run with
    both off."""
    from lotr_sim import _numba

    log = tmp_path / "compile.log"
    on = _lotr_sim(["-v", "play", "-g", "the-search", "--seed", "4"], tmp_path / "on",
                   LOTR_SIM_COMPILE_HELPER="1", LOTR_SIM_LEAN_CALLEES="1", LOTR_SIM_COMPILE_LOG=str(log))
    off = _lotr_sim(["play", "-g", "the-search", "--seed", "4"], tmp_path / "off",
                    LOTR_SIM_COMPILE_HELPER="0", LOTR_SIM_LEAN_CALLEES="0")
    assert on.stdout == off.stdout and on.stdout.strip()
    if _numba.machinery_known():
        assert "first-run compile helper on, lean callees on" in on.stderr
        assert " helper entry " in log.read_text()              # the helper process took an entry
    else:
        assert "skipped" in on.stderr


def _numba_methods_are_numbas() -> bool:
    from numba.core import codegen, cpu, dispatcher
    methods = [codegen.CPUCodeLibrary._optimize_final_module, codegen.CPUCodeLibrary._unserialize,
               codegen.CPUCodeLibrary.serialize_using_object_code, codegen.JITCodeLibrary.get_pointer_to_function,
               codegen.JITCPUCodegen.set_env, cpu.CPUContext.get_executable, dispatcher._DispatcherBase.add_overload]
    return all(getattr(m, "__module__", "").startswith("numba.") for m in methods)


def test_loading_every_game_patches_nothing_and_sets_no_environment():
    """The library (no ``lotr-sim`` program): loading each game leaves numba's classes and the
    process's environment as they were."""
    from lotr_sim.games import registry
    before = dict(os.environ)
    for name in registry.game_names():
        registry.get_game(name)
    assert dict(os.environ) == before
    assert _numba_methods_are_numbas()


def test_with_the_machinery_on_a_users_callee_is_never_lean():
    """With the program's first-run machinery installed in this process, a lotr-sim kernel
    compiled inside another is lean, and a user's callee compiled inside a user's caller (or
    inside a lotr-sim kernel's compile) is numba's own: machine code at once, no lean flag."""
    import numba

    from lotr_sim import _numba
    if not _numba.machinery_known():
        pytest.skip("the first-run machinery is not applied on this numba")
    from lotr_sim._numba import warmup

    was = warmup._state["installed"]
    warmup.install()
    try:
        def ours(fn):
            fn.__module__ = "lotr_sim.scope_probe"
            return numba.njit(fn)

        @numba.njit
        def user_callee_scope_nb(x):
            return x * 3 + 1

        @numba.njit
        def user_caller_scope_nb(x):
            return user_callee_scope_nb(x) + 1

        @ours
        def our_callee_scope_nb(x):
            return x - 2

        @ours
        def our_caller_scope_nb(x):
            return our_callee_scope_nb(x) + 5

        assert user_caller_scope_nb(4) == 14 and our_caller_scope_nb(4) == 7
        (user,) = user_callee_scope_nb.overloads.values()
        (mine,) = our_callee_scope_nb.overloads.values()
        assert type(mine.entry_point).__name__ == "_DeferredEntry"
        assert type(user.entry_point).__name__ != "_DeferredEntry"
        assert not [k for k in vars(user.library) if "lotr" in k]
        assert user_callee_scope_nb(1) == 4 and our_callee_scope_nb(1) == -1
    finally:
        if not was:
            warmup.uninstall()
    if not was:
        assert _numba_methods_are_numbas()


def test_on_a_numba_release_not_known_the_machinery_is_skipped_in_one_line(monkeypatch, capsys):
    """The program on a numba release the machinery is not known to work on: ``activate``
    applies nothing (no error) and ``-v`` says so in one line; on a known one it says what is on."""
    from lotr_sim import _numba
    from lotr_sim._numba import compile_notice, warmup

    monkeypatch.setattr(compile_notice, "install", lambda: None)    # (no notice in this worker)
    monkeypatch.setattr(compile_notice, "want", lambda: None)
    assert _numba.machinery_known("0.68.1") and not _numba.machinery_known("0.61.2")
    assert _numba.numba_release("0.70.0rc1") == (0, 70)
    monkeypatch.setattr(_numba, "_state", {"wanted": False, "verbose": False, "active": None})
    assert _numba.activate() is False                     # the library: not wanted, nothing said
    monkeypatch.setattr(_numba, "KNOWN_NUMBA", ((0, 1),))
    _numba.want()
    _numba.set_verbose(True)
    was = warmup._state["installed"]
    assert _numba.activate() is False
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "skipped" in err[0] and "lotr-sim: numba" in err[0]
    assert warmup._state["installed"] == was
    if not was:
        assert _numba_methods_are_numbas()
