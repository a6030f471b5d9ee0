"""`lotr-sim battle`, `bombard`, `bench kernels`, `--version` through Typer's runner."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from lotr_sim import __version__
from lotr_sim.cli.main import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_version_and_help():
    r = run("--version")
    assert r.exit_code == 0 and __version__ in r.output
    for cmd in ("battle", "bombard", "bench"):
        r = run(cmd, "--help")
        assert r.exit_code == 0 and "Usage" in r.output


def test_battle_json_exact_and_monte_carlo():
    r = run("battle", "--rules", "minas-tirith", "--attackers", "3", "--defenders", "5",
            "--attack-bonus", "1", "--defence-bonus", "2", "--good", "defender", "--games", "50000",
            "--seed", "3", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    ex, mc = out["exact"], out["monte_carlo"]
    for k in ("attacker_wins", "defender_wins", "retreat", "attacker_survivors_mean",
              "defender_survivors_mean"):
        assert k in ex
    assert ex["attacker_wins"] + ex["defender_wins"] + ex["retreat"] == pytest.approx(1.0)
    assert mc["games"] == 50000
    lo, hi = mc["ci95"]
    assert lo < mc["attacker_wins"] < hi
    assert abs(mc["z"]) < 4


def test_battle_osborne_10_v_10_through_cli():
    r = run("battle", "--rules", "classic", "--attackers", "11", "--defenders", "10",
            "--games", "0", "--json")
    out = json.loads(r.output)
    assert round(out["exact"]["attacker_wins"], 3) == 0.568
    assert "monte_carlo" not in out


def test_battle_text_and_plot(tmp_path):
    png = tmp_path / "s.png"
    r = run("battle", "-r", "lotr-risk", "-a", "6", "-d", "4", "--attack-bonus", "1",
            "-n", "20000", "--plot", str(png))
    assert r.exit_code == 0, r.output
    assert "attacker takes territory" in r.output and "Wilson" in r.output
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args,needle", [
    (["--rules", "chess", "-a", "3", "-d", "2"], "unknown rule set 'chess'"),
    (["--rules", "classic", "-a", "1", "-d", "2"], "--attackers must be at least 2"),
    (["-a", "0", "-d", "2"], "--attackers must be at least 1"),
    (["-a", "3", "-d", "0"], "--defenders must be at least 1"),
    (["-a", "3", "-d", "-4"], "--defenders must be at least 1"),
    (["-a", "3", "-d", "2", "--attack-bonus", "7"], "--attack-bonus must be in -3..3"),
    (["-r", "classic", "-a", "3", "-d", "2", "--witch-king"], "only to --rules minas-tirith"),
    (["-a", "3", "-d", "2", "--good", "both"], "--good must be"),
    (["-a", "3", "-d", "2", "--games", "-1"], "--games must be 0 or more"),
    (["-a", "3", "-d", "2", "--seed", "-1"], "seed must be"),
])
def test_battle_bad_input_one_line_nonzero_exit(args, needle):
    r = run("battle", *args)
    assert r.exit_code != 0
    assert needle in r.output
    assert "Traceback" not in r.output
    assert len([ln for ln in r.output.splitlines() if ln.strip()]) == 1


def test_bombard_json_mt_7_2():
    r = run("bombard", "--shooters", "4", "--banner", "--games", "40000", "--json")
    out = json.loads(r.output)
    assert out["bombard"]["dice"] == 2
    assert out["exact"]["p_at_least_one"] == pytest.approx(1 - (5 / 6) ** 2)
    assert abs(out["monte_carlo"]["z"]) < 4
    r = run("bombard", "--shooters", "0")
    assert r.exit_code != 0 and "shooters must be at least 1" in r.output


@pytest.mark.slow
def test_bench_kernels_json_reports_all_three_and_the_c_reference():
    r = run("bench", "kernels", "--battles", "200000", "--rounds", "1", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    b = out["battles_per_s"]
    assert set(b) == {"numba_1_thread", "numba_all_threads", "python_reference"}
    assert all(v > 0 for v in b.values())
    c = out["c_reference"]
    if shutil.which("cc") or shutil.which("gcc") or shutil.which("clang"):
        assert c["available"] and c["build"].endswith("-O3 -march=native"), c
        assert c["battles_per_s"] > 0 and c["threads"] == 1
        assert c["checksums_agree"] and c["checksum"] == c["numba_checksum"]
        assert out["ratios"]["numba_1_thread_over_c"] == pytest.approx(b["numba_1_thread"] / c["battles_per_s"])
    r = run("bench")
    assert r.exit_code != 0 and "say what to benchmark" in r.output
    r = run("bench", "kernels", "--rounds", "0")
    assert r.exit_code != 0 and "--rounds must be from 1 to 20" in r.output


@pytest.mark.slow
def test_bench_kernels_text_without_a_c_compiler(monkeypatch):
    import lotr_sim.bench as b
    monkeypatch.setattr(b, "find_c_compiler", lambda: None)
    r = run("bench", "kernels", "--battles", "1000", "--rounds", "1")
    assert r.exit_code == 0, r.output
    assert "C reference skipped: no C compiler" in r.output
    assert "numba_1_thread" in r.output and "c_reference " not in r.output


@pytest.fixture(scope="module")
def c_reference(tmp_path_factory):
    from lotr_sim.bench import build_c_reference
    exe, how = build_c_reference(tmp_path_factory.mktemp("cref"))
    if exe is None:
        pytest.skip(f"C reference not built: {how}")
    return exe


@pytest.mark.parametrize("rules,a,d,stop,ab,db,good,wk", [
    ("classic", 11, 10, 0, 0, 0, True, False),
    ("classic", 7, 9, 2, 2, -1, True, False),
    ("lotr-risk", 6, 5, 0, 1, 2, True, False),
    ("lotr-risk", 12, 3, 4, -3, 3, False, False),
    ("minas-tirith", 7, 5, 0, 1, 2, False, True),
    ("minas-tirith", 8, 6, 1, 1, 1, True, True),
    ("minas-tirith", 5, 5, 0, 0, 2, True, False),
])
def test_c_reference_plays_the_same_battles_as_numba(c_reference, rules, a, d, stop, ab, db, good, wk):
    """battle_ref.c: the same streams, draws and rules as battles_nb, checksum for checksum."""
    from lotr_sim.bench import battle_checksum, run_c_reference
    from lotr_sim.kernels.combat import RULES, simulate_battles
    n, first, seed = 20_000, 123_456, 2**62 + 5
    res = simulate_battles(rules, a, d, n, seed, first=first, attack_bonus=ab, defence_bonus=db,
                           good_attacks=good, witch_king=wk, stop_at=stop)
    c = run_c_reference(c_reference, seed, first, n, a, d, RULES[rules], stop, ab, db, good, wk, min_seconds=0.0)
    assert c["battles"] == n and c["rolls"] == int(res["rolls"].sum())
    assert c["outcomes"] == np.bincount(res["outcome"], minlength=4).tolist()
    assert c["checksum"] == battle_checksum(res["outcome"], res["attackers_left"], res["defenders_left"],
                                            res["rolls"], first)


@pytest.mark.slow
def test_numba_cache_falls_back_when_home_cache_unwritable(tmp_path):
    """With no NUMBA_CACHE_DIR and an unusable cache home, a writable fallback is used."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = "/dev/null/not-a-dir"
    env["TMPDIR"] = str(tmp_path)
    code = ("import os; from lotr_sim._numba.cache import cache_root; d = cache_root(); print(d);"
            "assert 'NUMBA_CACHE_DIR' not in os.environ;"
            "from lotr_sim.kernels.combat import simulate_battles as s; s('classic', 3, 2, 10, 1);"
            "print(len(os.listdir(d)) > 0)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    lines = out.stdout.split()
    assert lines[0].startswith(str(tmp_path)) and lines[1] == "True"


def test_battle_table_rows_are_exclusive_and_add_up_to_one():
    """'attacker takes', 'defender holds' and 'attackers retreat' partition the outcomes (a
    defenders' retreat counts as a taking, once), with Good attacking or defending."""
    from lotr_sim.exact.battle import battle_law
    for good_attacks in (True, False):
        s = battle_law("minas-tirith", 5, 5, good_attacks=good_attacks, witch_king=True).summary()
        assert s["attacker_wins"] + s["defender_wins"] + s["attacker_retreats"] == pytest.approx(1.0, abs=1e-12)
        assert s["attacker_retreats"] > 0.01


def test_c_reference_ships_as_package_data():
    from pathlib import Path

    from lotr_sim.bench import c_reference_source
    assert c_reference_source().is_file()
    root = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
    pyproject = (root / "pyproject.toml").read_text()
    assert '"kernels/battle_ref.c"' in pyproject


@pytest.mark.slow
def test_bench_search_compares_players_per_side_on_the_same_games():
    """`bench search`: each player on every side against the same games; the
    gain is paired over the opponent playing itself, so greedy's own gain is exactly 0."""
    r = run("bench", "search", "-g", "the-search", "-n", "3", "-L", "greedy,search-fast", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    rows = {(x["player"], x["side"]): x for x in out["rows"]}
    assert set(rows) == {(p, s) for p in ("greedy", "search-fast") for s in ("frodo", "sam")}
    for side in ("frodo", "sam"):
        g = rows[("greedy", side)]
        assert g["gain"] == 0.0 and g["win_rate"] == g["baseline"] and g["playouts_per_game"] == 0
        s = rows[("search-fast", side)]
        assert s["playouts_per_game"] > 0 and s["cpu_s_per_game"] > 0
        assert s["gain"] == pytest.approx(s["win_rate"] - s["baseline"])
        assert -1.0 <= s["gain_lo"] <= s["gain"] <= s["gain_hi"] <= 1.0
    r = run("bench", "search", "-g", "the-search", "-n", "0")
    assert r.exit_code != 0 and "--games must be from 1" in r.output
    r = run("bench", "search", "-g", "the-search", "-L", "nobody")
    assert r.exit_code != 0 and "nobody" in r.output
