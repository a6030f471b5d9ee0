"""The Fellowship's move at the end of a player turn (LR-10), jitted, and a batch of journeys.

* ``fellowship_step_nb(pos, marked, roll_above, die_sides, s, mod=0)`` is the one end-of-turn
  move (LR-10.1): from an unmarked territory the Ring moves on; from a marked one a die is
  rolled from the game's stream ``s`` and the Ring moves only if it plus ``mod`` shows more
  than ``roll_above`` (LR-10.2). It returns ``(new_pos, die)`` with ``die = 0`` when no die
  was rolled, so a trace can carry the roll. ``pos == len(marked)`` means the Ring has left
  the last territory: the game is over (LR-10.3) and the step changes nothing.
* The step is its two halves, ``fellowship_die_nb`` (the roll) and ``fellowship_moves_nb``
  (does it move, given die and modifier). The LOTR Risk engine calls the halves after every
  player's turn (never the neutral army's) because its cards come in between: Smeagol's +2 is
  chosen once the die is seen, A Balrog is Come holds a Ring that would leave Moria (LR-9.3,
  LR-10.4); the rule itself lives only here.
* ``fellowship_turns_nb(seed, first, n, marked, roll_above, die_sides, out)`` plays ``n``
  independent journeys with no cards, journey ``i`` on stream ``(seed, first + i)``, and
  writes the player turns each took (``exact`` beside this module has the exact law).
* ``simulate_fellowship(track, n, seed, threads)`` runs it on the thread pool
  (``kernels.runner.run_range``); journeys reseed, so the result is the same on any number
  of threads.

A six-sided die comes from ``rng.d6_nb`` (the dice every engine uses); another die size
from ``rng.randint_nb``.
"""
from __future__ import annotations

import numpy as np

from lotr_sim._numba.jit import njit
from lotr_sim.kernels.rng import STATE_SIZE, d6_nb, randint_nb, stream_init_nb


@njit(cache=True, _nrt=False)
def fellowship_die_nb(pos, marked, die_sides, s):
    """The die of the end-of-turn move from ``pos`` (LR-10.2): rolled from ``s`` only on a
    marked territory of the path, else 0 (no draw)."""
    if pos >= marked.shape[0] or marked[pos] == 0:
        return 0
    if die_sides == 6:
        return d6_nb(s)
    return randint_nb(s, die_sides) + 1


@njit(cache=True, _nrt=False)
def fellowship_moves_nb(pos, marked, roll_above, die, mod):
    """Whether the Ring moves on from ``pos`` (LR-10.1/10.2): always from an unmarked territory;
    from a marked one when ``die + mod`` beats ``roll_above``; never once off the path."""
    if pos >= marked.shape[0]:
        return False
    if marked[pos] == 0:
        return True
    return die + mod > roll_above


@njit(cache=True, _nrt=False)
def fellowship_step_nb(pos, marked, roll_above, die_sides, s, mod=0):
    """One end-of-turn move of the Ring (LR-10.1/10.2), ``mod`` added to the die (a card such
    as Smeagol, LR-9.3): ``(new_pos, die)``, die 0 if none was rolled."""
    die = fellowship_die_nb(pos, marked, die_sides, s)
    if fellowship_moves_nb(pos, marked, roll_above, die, mod):
        return pos + 1, die
    return pos, die


@njit(cache=True, nogil=True)
def fellowship_turns_nb(seed, first, n, marked, roll_above, die_sides, out):
    """Journeys ``first .. first+n-1`` (journey i on stream (seed, first+i)) with no cards:
    ``out[i]`` = player turns until the Ring leaves the last territory (LR-10.3)."""
    s = np.empty(STATE_SIZE, dtype=np.uint64)
    end = marked.shape[0]
    for i in range(n):
        stream_init_nb(seed, first + i, s)
        pos = 0
        turns = 0
        while pos < end:
            pos, _ = fellowship_step_nb(pos, marked, roll_above, die_sides, s)
            turns += 1
        out[i] = turns


def simulate_fellowship(track, n: int, seed: int, threads: int | None = None,
                        first: int = 0) -> np.ndarray:
    """Player turns of journeys ``first .. first+n-1`` of ``track`` (a ``FellowshipTrack``),
    journey i on stream (seed, i): an int32 array, bit-identical for any ``threads``."""
    from lotr_sim.kernels.rng import check_seed
    from lotr_sim.kernels.runner import run_range

    check_seed(seed)
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    marked = track.marked_array()
    ra, ds = np.int64(track.roll_above), np.int64(track.die_sides)
    out = np.empty(n, np.int32)

    def chunk(lo, hi, o):  # rows lo..hi-1 on streams first+lo.. (the kernel drops the GIL)
        fellowship_turns_nb(np.int64(seed), np.int64(first + lo), np.int64(hi - lo), marked, ra, ds,
                            o[lo:hi])

    run_range(chunk, (), n, threads, out)
    return out
