"""Numba kernels shared by every game: random streams, dice, combat, bombardment.

Kernels are pure functions over NumPy arrays and scalars, named ``*_nb``, compiled with
``@njit(cache=True)``; each takes its random stream (a ``uint64[STATE_SIZE]`` array made by
``stream_init_nb``) from outside. Python wrappers live next to them without the suffix.
"""
