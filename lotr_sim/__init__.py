"""lotr-sim: Monte Carlo balance analysis for three Lord of the Rings board games.

Importing the package sets nothing up: the heavy modules (numba kernels, pandas, matplotlib,
dask) are imported lazily by the modules that need them, so ``lotr-sim --help`` stays quick,
and the package changes nothing in numba or the environment of the process that imports it
(where lotr-sim's own kernels cache: ``lotr_sim._numba.cache``).
"""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("lotr-sim")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+src"

__all__ = ["__version__"]
