"""The ``lotr-sim`` command line: a Typer root app, one module per command."""
