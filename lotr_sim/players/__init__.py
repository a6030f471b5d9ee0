"""Players written once for every game, against the step-machine contract
(``lotr_sim.games.step``): the search player (``search.py``). The table that names them
for the games, and the driver that lets them take the decisions of their seats, stand
below, in ``lotr_sim.games.players``; their names are handed on here."""
from lotr_sim.games.players import PLAYERS, generic_player, is_generic, player_settings, register_player

__all__ = ["PLAYERS", "generic_player", "is_generic", "player_settings", "register_player"]
