"""The one exception family the CLI turns into a single error line and a non-zero exit."""


class LotrSimError(Exception):
    """A user-facing error: bad input, broken config, unreachable scheduler, ..."""


class ConfigError(LotrSimError):
    """A game config, parameter or override is wrong."""


class Interrupted(LotrSimError):
    """A long run stopped by the user (Ctrl-C); finished work is kept. Exit code 130."""

    exit_code = 130


class SeedError(LotrSimError, ValueError):
    """A seed outside [0, 2**63)."""
