"""The project's one seeding scheme and its random streams (used by every kernel).

Scheme (also in docs/statistics.md):

* A run has a master ``seed`` (0 <= seed < 2**63). Work item ``index`` (a game number, a
  battle number) gets its own stream: ``key = mix64(mix64(seed ^ SEED_SALT) ^ index)``,
  and the four words of a xoshiro256** state are the next four outputs of a splitmix64
  generator started at ``key``.
* Nothing else is random: no kernel reads numpy's or Python's global random state, so a
  work item's draws do not depend on threads, chunking, process or Dask worker.
* A stream is a ``uint64[STATE_SIZE]`` array: the xoshiro256** words ``s[0:4]``, then a
  buffer of pending base-6 digits ``s[4]`` and their count ``s[5]``.
* Dice are exact: a 64-bit draw ``x`` is accepted when ``x < 3 * 6**24`` (p = 0.77), then
  ``x mod 6**24`` is uniform on ``[0, 6**24)`` and its 24 base-6 digits are 24 independent
  fair dice. Other integers use Lemire's multiply-shift with rejection, also exact.
"""
from __future__ import annotations

import numpy as np

from lotr_sim._numba.jit import njit


STATE_SIZE = 6
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
SEED_SALT = np.uint64(0x6C6F74722D73696D)  # "lotr-sim"
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SIX24 = np.uint64(6**24)
_ACCEPT6 = np.uint64(3 * 6**24)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U6 = np.uint64(6)
_U24 = np.uint64(24)
_MASK32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def mix64_nb(z):
    """splitmix64's finaliser: a bijection of uint64 with good avalanche."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def stream_base_nb(seed):
    """The per-run half of the seeding: ``mix64(seed ^ SEED_SALT)`` (hoistable out of loops)."""
    return mix64_nb(np.uint64(seed) ^ SEED_SALT)


@njit(cache=True, inline="always")
def stream_words_nb(base, index):
    """The four xoshiro256** words of work item ``index``, from ``stream_base_nb(seed)``.

    The same words ``stream_init_nb`` stores, for kernels that keep them in local variables.
    """
    key = mix64_nb(base ^ np.uint64(index))
    key = key + GOLDEN
    s0 = mix64_nb(key)
    key = key + GOLDEN
    s1 = mix64_nb(key)
    key = key + GOLDEN
    s2 = mix64_nb(key)
    key = key + GOLDEN
    s3 = mix64_nb(key)
    return s0, s1, s2, s3


@njit(cache=True)
def stream_init_nb(seed, index, s):
    """Seed stream ``s`` (uint64[STATE_SIZE]) for work item ``index`` of run ``seed``."""
    s0, s1, s2, s3 = stream_words_nb(stream_base_nb(seed), index)
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    s[4] = _U0
    s[5] = _U0


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def next_u64_nb(s):
    """One xoshiro256** output; advances the stream."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True, inline="always")
def xoshiro_step_nb(s0, s1, s2, s3):
    """``next_u64_nb`` on a state held in four local words: (output, s0, s1, s2, s3)."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(cache=True, inline="always")
def d6_nb(s):
    """A fair six-sided die, 1..6 (exact; ~1.3 draws per 24 dice)."""
    if s[5] == _U0:
        x = next_u64_nb(s)
        while x >= _ACCEPT6:
            x = next_u64_nb(s)
        s[4] = x % _SIX24
        s[5] = _U24
    v = s[4] % _U6
    s[4] = s[4] // _U6
    s[5] = s[5] - _U1
    return np.int64(v) + 1


@njit(cache=True)
def randint_nb(s, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32 (Lemire, exact)."""
    nn = np.uint64(n)
    threshold = (np.uint64(0x100000000) - nn) % nn  # 2**32 mod n
    while True:
        r = next_u64_nb(s) >> np.uint64(32)
        m = r * nn
        if (m & _MASK32) >= threshold:
            return np.int64(m >> np.uint64(32))


@njit(cache=True)
def uniform_nb(s):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64_nb(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def make_stream(seed: int, index: int) -> np.ndarray:
    """A fresh stream for (seed, index), usable from Python and by any kernel."""
    check_seed(seed)
    s = np.empty(STATE_SIZE, dtype=np.uint64)
    stream_init_nb(seed, index, s)
    return s


def check_seed(seed: int) -> int:
    from lotr_sim.errors import SeedError

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not (0 <= int(seed) < 2**63):
        raise SeedError(f"seed must be an integer in [0, 2**63), got {seed!r}")
    return int(seed)


# --- pure-Python twin of the scheme (reference for tests and the benchmark) ------------
_M64 = (1 << 64) - 1


def _mix64_py(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class PyStream:
    """The same stream as ``stream_init_nb``/``d6_nb``/``randint_nb``, in plain Python."""

    def __init__(self, seed: int, index: int):
        key = _mix64_py(_mix64_py(seed ^ int(SEED_SALT)) ^ index)
        self.s = []
        for _ in range(4):
            key = (key + int(GOLDEN)) & _M64
            self.s.append(_mix64_py(key))
        self.buf = 0
        self.left = 0

    def next_u64(self) -> int:
        s = self.s
        x = (s[1] * 5) & _M64
        result = ((((x << 7) | (x >> 57)) & _M64) * 9) & _M64
        t = (s[1] << 17) & _M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = ((s[3] << 45) | (s[3] >> 19)) & _M64
        return result

    def d6(self) -> int:
        if self.left == 0:
            x = self.next_u64()
            while x >= 3 * 6**24:
                x = self.next_u64()
            self.buf = x % 6**24
            self.left = 24
        v = self.buf % 6
        self.buf //= 6
        self.left -= 1
        return v + 1

    def randint(self, n: int) -> int:
        threshold = (2**32 - n) % n
        while True:
            m = (self.next_u64() >> 32) * n
            if (m & 0xFFFFFFFF) >= threshold:
                return m >> 32
