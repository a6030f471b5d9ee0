"""Players written once for every game, against the step-machine contract
(``lotr_sim.games.step``): the policy registry, the search player and the game driver
that lets them take the decisions of their seats."""
from lotr_sim.players.registry import PLAYERS, generic_player, is_generic

__all__ = ["PLAYERS", "generic_player", "is_generic"]
