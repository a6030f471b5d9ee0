"""Headless Chromium for the browser tests of this folder (the report, the replays): which
binary to run and how, with the same flags and window for every test."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH, HEIGHT = 1200, 2000


def find_browser() -> str | None:
    """``LOTR_SIM_CHROMIUM`` (an error when set to something that is not there), else the
    first of ``BROWSERS`` on PATH, else None."""
    env = os.environ.get("LOTR_SIM_CHROMIUM")
    if env:
        if not shutil.which(env):
            pytest.fail(f"LOTR_SIM_CHROMIUM={env} is not an executable")
        return env
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


def run_chromium(exe: str, profile: Path, *args: str) -> str:
    """Run headless ``exe`` with ``args`` in a ``WIDTH`` x ``HEIGHT`` window; its stdout."""
    cmd = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
           "--no-first-run", f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}", *args]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{exe} did not finish in 180 s: {' '.join(cmd)}")
    assert r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr[-2000:]}"
    return r.stdout
