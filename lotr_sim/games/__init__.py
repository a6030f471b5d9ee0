"""Games: one package per game plus the registry (``get_game``, ``game_names``)."""
from lotr_sim.games.registry import get_game, game_names

__all__ = ["get_game", "game_names"]
