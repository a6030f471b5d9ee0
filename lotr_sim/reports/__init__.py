"""Tables, plots and report files."""
