"""Build hook: ship the source tree's ``configs/`` folder inside the package as
``lotr_sim/configs/`` (``lotr_sim.config.configs_dir`` looks there in an installed copy), so a
non-editable install (``pip install .``, a wheel) finds the game and sweep configurations.
``configs/`` stays at the top of the source tree; everything else is in pyproject.toml."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONFIGS = Path(__file__).resolve().parent / "configs"


class BuildPyWithConfigs(build_py):
    """``build_py`` that also copies ``configs/**`` to ``<build>/lotr_sim/configs/``."""

    def run(self) -> None:
        super().run()
        if not CONFIGS.is_dir():
            raise RuntimeError(f"{CONFIGS} is missing: the package needs its configs/ folder")
        dest = Path(self.build_lib) / "lotr_sim" / "configs"
        for src in sorted(CONFIGS.rglob("*")):
            if src.is_file():
                out = dest / src.relative_to(CONFIGS)
                self.mkpath(str(out.parent))
                self.copy_file(str(src), str(out))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        dest = Path(self.build_lib) / "lotr_sim" / "configs"
        return super().get_outputs(include_bytecode) + [
            str(dest / p.relative_to(CONFIGS)) for p in sorted(CONFIGS.rglob("*")) if p.is_file()]


setup(cmdclass={"build_py": BuildPyWithConfigs})
