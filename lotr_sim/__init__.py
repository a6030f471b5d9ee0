"""lotr-sim: Monte Carlo balance analysis for three Lord of the Rings board games.

Importing the package only sets up the numba cache directory (see ``_numba_cache``);
the heavy modules (numba kernels, pandas, matplotlib, dask) are imported lazily by the
modules that need them, so ``lotr-sim --help`` stays quick.
"""
from importlib.metadata import PackageNotFoundError, version as _version

from lotr_sim._numba_cache import configure_numba_cache as _configure_numba_cache

try:
    __version__ = _version("lotr-sim")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+src"

_configure_numba_cache()

__all__ = ["__version__"]
