"""A stand-in for the LOTR Risk game while its engine is being built (removed at the merge).

Only what ``lotr_sim.api.fellowship`` needs of the game: ``load(config, overrides)`` with
the rules' Fellowship parameter ``fellowship_roll_above`` (LR-10.2, default 3; any other
name is a ConfigError naming the closest one) and ``fellowship_track(cfg)`` giving the
rules' path (LR-10.1). Registered under "lotr-risk" by the tests only when no real
"lotr-risk" game is registered.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from lotr_sim.config import GameConfig, Param, load_toml, resolve_params
from lotr_sim.exact.fellowship import DEFAULT_MARKED_NAMES, DEFAULT_PATH, FellowshipTrack

# no upper bound here on purpose: an impossible threshold must be caught by FellowshipTrack
PARAMS = [Param("fellowship_roll_above", 3, "int", "LR-10.2",
                "The die must show more than this on a marked territory for the Ring to move on.", lo=0)]


class StubLotrRisk:
    name = "lotr-risk"
    title = "LOTR Risk (Fellowship stub)"

    def params(self) -> list[Param]:
        return list(PARAMS)

    def load(self, config: str | None = None,
             overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
        file_params = load_toml(config).get("params", {}) if config is not None else {}
        values = resolve_params(PARAMS, file_params, overrides, game=self.name)
        return GameConfig(game=self.name, data={"fellowship_path": list(DEFAULT_PATH)}, params=values)

    def fellowship_track(self, cfg: GameConfig) -> FellowshipTrack:
        names = tuple(cfg.data["fellowship_path"])
        return FellowshipTrack(names, tuple(n in DEFAULT_MARKED_NAMES for n in names),
                               roll_above=cfg.params["fellowship_roll_above"])
