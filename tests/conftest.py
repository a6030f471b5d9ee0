import os

# Keep test runs reproducible and independent of the developer's own numba settings.
os.environ.setdefault("NUMBA_NUM_THREADS", "2")
