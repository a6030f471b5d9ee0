"""Stopping a run of games with registered players: Ctrl-C (or SIGTERM, which the CLI turns
into the same KeyboardInterrupt) in the calling thread stops every thread's games before
their next decision, so a long run of search games stops at once instead of after each
thread's whole share (the fake game, a player that takes 0.2 s a decision)."""
from __future__ import annotations

import os
import signal
import threading
import time

from lotr_sim.games import players


class _Slow:
    """A player that thinks for 0.2 s, then takes the first legal action."""

    def __init__(self, game, seed):
        self.decisions = 0

    def choose(self, state) -> int:
        self.decisions += 1
        time.sleep(0.2)
        return 0


def test_an_interrupt_stops_every_threads_games_before_their_next_decision(fake, monkeypatch):
    monkeypatch.setitem(players.PLAYERS, "slow-test", players.PlayerEntry(_Slow, "test", {}))
    comp = fake.compile(fake.load())
    # 2 threads x 100 games x 2 decisions x 0.2 s: about 40 s if each thread played its share
    # Ctrl-C as Python's own handler delivers it: a process started in the background by a
    # non-interactive shell (`cmd &`) inherits SIGINT ignored, and Python keeps it ignored
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    raised = False
    try:
        timer.start()
        fake.simulate(comp, {"good": "slow-test", "evil": "slow-test"}, 1, 0, 200, threads=2)
    except KeyboardInterrupt:
        raised = True
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
    took = time.monotonic() - t0
    assert raised, f"no KeyboardInterrupt: the games ran {took:.1f} s"
    assert took < 5.0, f"the run went on for {took:.1f} s after the interrupt"
    assert not any(t.name.startswith("ThreadPoolExecutor") and t.is_alive() for t in threading.enumerate())
