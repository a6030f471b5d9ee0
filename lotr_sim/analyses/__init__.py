"""Analyses shared by the games: an exact law beside Monte Carlo with its own tables and plots
(``battles``: a battle and a bombardment). An analysis of one game's own rules lives in that
game (LOTR Risk's Fellowship journey: ``games/lotr_risk/fellowship/``; The Search's tile
draws: ``games/the_search/tiles.py``). They stand on ``exact/``, ``kernels/``,
``experiments/`` and ``reports/``, and serve ``api`` and ``cli``; nothing below them imports
them."""
