"""Exact laws (no Monte Carlo) that every kernel is checked against."""
