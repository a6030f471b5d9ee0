"""One line on stderr when numba starts compiling an engine and nothing else says so.

A first run compiles the game's engine (about a minute on a 2-core machine); later runs load
it from numba's cache. On a terminal the commands show a spinner that says so
(``experiments.progress.compile_status``); with stderr piped or logged the spinner prints
nothing, and with ``--json``/``--quiet`` there is none. So the ``lotr-sim`` program
(``cli.main.main``, through ``lotr_sim._numba.want``) asks for this notice: the first time numba
starts compiling one of lotr-sim's kernels in the process (a compile event, which a warm cache
never fires) while no spinner is showing, it prints once::

    lotr-sim: compiling the engine for minas-tirith once (numba, about a minute on a first run;
    later runs load it from the cache)

Nothing is printed by the library itself (``wanted`` stays false unless the program sets it),
by a warm run, or by the compile helper process.
"""
from __future__ import annotations

import sys

_state = {"wanted": False, "installed": False, "shown": False, "spinners": 0}


def want() -> None:
    """Ask for the notice in this process (the ``lotr-sim`` program does, at start-up)."""
    _state["wanted"] = True


def spinner_showing(on: bool) -> None:
    """A spinner that says the engine is compiling starts (``on``) or stops: no line then."""
    _state["spinners"] += 1 if on else -1


def _game_of(dispatcher) -> str:
    """The game whose module defines a kernel (``lotr_sim.games.the_search.play`` ->
    ``the-search``); "" for a shared or foreign kernel."""
    mod = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    parts = mod.split(".")
    if len(parts) > 2 and parts[:2] == ["lotr_sim", "games"]:
        return parts[2].replace("_", "-")
    return ""


def _on_start(dispatcher) -> None:
    mod = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    if _state["shown"] or _state["spinners"] > 0 or not mod.startswith("lotr_sim."):
        return
    _state["shown"] = True
    game = _game_of(dispatcher)
    what = f"the engine for {game}" if game else "the game engine"
    print(f"lotr-sim: compiling {what} once (numba, about a minute on a first run; later runs load it "
          f"from the cache)", file=sys.stderr, flush=True)


def install() -> None:
    """Register the compile-event listener when the notice is wanted (idempotent; called by
    ``lotr_sim._numba.activate`` where a game is first loaded)."""
    if not _state["wanted"] or _state["installed"]:
        return
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev):
            _on_start(ev.data["dispatcher"])

        def on_end(self, ev):
            pass

    event.register("numba:compile", _Listener())
    _state["installed"] = True
