"""Analyses: an exact law beside Monte Carlo, or a game's outcomes over many games, each with
its own tables and plots, one module per analysis (``battles``: a battle and a bombardment;
``fellowship``: LOTR Risk's Fellowship journey; ``tiles``: The Search's tile draws). They
stand on ``exact/``, ``kernels/``, ``experiments/`` and ``reports/``, and serve ``api`` and
``cli``; nothing below them imports them."""
