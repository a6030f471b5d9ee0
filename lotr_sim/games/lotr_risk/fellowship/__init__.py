"""LOTR Risk's Fellowship journey without cards (LR-10), the game's own analysis: ``exact``
(the exact law of the player turns and of the game's length in rounds), ``kernel`` (the
jitted step the engine and the Monte Carlo journeys share) and ``analysis`` (the law beside
Monte Carlo, ``FellowshipResult``, its table rows and bar chart), behind ``api.fellowship``
and ``lotr-sim fellowship``."""
