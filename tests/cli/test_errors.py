"""Bad input gets ONE line ``lotr-sim: error: ...`` on stderr and exit code 2:
Typer's own errors, counts written 1e12, natural bounds, --threads, run --out over an
earlier run or on a full disk; and memory-bounded battle/bombard (chunked = unchunked)."""
import errno
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def assert_one_line(r, *needles):
    """Exit 2, nothing but one ``lotr-sim: error:`` line on stderr, no traceback."""
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 2, (r.exit_code, r.output)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("lotr-sim: error: "), r.stderr
    assert "Traceback" not in r.output and "╭" not in r.output
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# --- Typer/click's own errors: one line instead of a boxed panel -----------------------

@pytest.mark.parametrize("args,needles", [
    (["battle", "--attackers", "abc", "-d", "3"], ["invalid value for '--attackers'"]),
    (["battle", "-a", "3", "-d", "2", "--foo"], ["no such option: --foo"]),
    (["battle", "-a"], ["'-a' requires an argument"]),
    (["run", "--games"], ["'--games' requires an argument"]),
    (["battle", "-a", "3"], ["missing option '--defenders'"]),
    (["bombard"], ["missing option '--shooters'"]),
    (["frobnicate"], ["no such command 'frobnicate'"]),
    (["--bogus"], ["no such option: --bogus"]),
    (["run", "--json=yes"], ["--json"]),
    (["bench", "kernels", "extra"], ["unexpected extra argument"]),
])
def test_click_errors_are_one_line(args, needles):
    assert_one_line(invoke(*args), *needles)


def test_suggestions_only_when_close():
    """--foo is not "close" to --good (Click's own matcher says it is); --atackers is."""
    line = assert_one_line(invoke("run", "--foo", "1"))
    assert "did you mean" not in line
    line = assert_one_line(invoke("battle", "--atackers", "3", "-d", "2"))
    assert "did you mean --attackers?" in line
    line = assert_one_line(invoke("batle"))
    assert "did you mean 'battle'?" in line and "balance" not in line
    line = assert_one_line(invoke("xyz"))
    assert "did you mean" not in line


def test_help_and_version_still_work():
    for args in (["--help"], ["-h"], ["battle", "--help"], ["run", "-h"]):
        r = invoke(*args)
        assert r.exit_code == 0 and "Usage" in r.stdout and r.stderr == ""
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.startswith("lotr-sim ")
    r = invoke()  # bare `lotr-sim`: the help
    assert r.exit_code == 0 and "Usage" in r.stdout


def test_real_program_one_line_and_exit_2():
    """The installed entry point (not only the test runner) prints the one line."""
    code = "import sys; sys.argv = ['lotr-sim', 'battle', '--attackers', 'abc', '-d', '2']; " \
           "from lotr_sim.cli.main import main; main()"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [p.stderr.strip()] and p.stderr.startswith("lotr-sim: error: ")


def test_internal_error_is_one_line_exit_1(monkeypatch, capsys):
    """A bug escaping a command (not bad input) still prints one line, with exit 1."""
    from lotr_sim.analyses import battles
    from lotr_sim.cli import main as m

    def boom(*a, **k):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr(battles, "battle_report", boom)
    monkeypatch.setattr(sys, "argv", ["lotr-sim", "battle", "-a", "3", "-d", "2"])
    monkeypatch.delenv("LOTR_SIM_TRACEBACK", raising=False)
    with pytest.raises(SystemExit) as e:
        m.main()
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error ZeroDivisionError" in err and "Traceback" not in err


# --- counts: whole numbers (1e12 allowed), bounded --------------------------------------

@pytest.mark.parametrize("value,needle", [
    ("1.5", "'1.5' is not a whole number"), ("1e-3", "is not a whole number"), ("abc", "not a whole number"),
    ("inf", "not a whole number"), ("nan", "not a whole number"), ("", "not a whole number"),
    ("-1", "--games must be 0 or more"), ("1e16", "at most 1,000,000,000,000,000"),
    ("99999999999999999999", "at most"), ("1e400", "far too large"),
])
def test_battle_games_bad_counts(value, needle):
    assert_one_line(invoke("battle", "-a", "3", "-d", "2", "--games", value), needle)


@pytest.mark.parametrize("value,needle", [
    ("0", "at least 1"), ("2.5", "not a whole number"), ("1e16", "at most 1,000,000,000,000,000"),
    ("-3", "at least 1"),
])
def test_run_games_bad_counts(value, needle):
    assert_one_line(invoke("run", "--games", value, "-q"), needle)


def test_battle_games_written_2e4_is_20000():
    r = invoke("battle", "-a", "3", "-d", "2", "--games", "2e4", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["monte_carlo"]["games"] == 20000


@pytest.mark.parametrize("args,needles", [
    (["battle", "--attackers", "100000", "--defenders", "100000"], ["--attackers must be at most 70", "MT-1.2"]),
    (["battle", "-a", "3", "-d", "71"], ["--defenders must be at most 70"]),
    (["battle", "-r", "classic", "-a", "501", "-d", "3"], ["at most 500 under classic"]),
    (["bombard", "--shooters", "100000000"], ["--shooters must be at most 17", "MT-1.1"]),
    (["bombard", "--shooters", "3", "--banner", "--divisor", "0"], ["divisor must be at least 1"]),
    (["bench", "kernels", "--battles", "1e12"], ["--battles must be from 1000 to 10,000,000"]),
    (["bench", "--game", "minas-tirith", "--games", "1e9"], ["--games must be from 10 to 1,000,000"]),
])
def test_natural_bounds(args, needles):
    assert_one_line(invoke(*args), *needles)


def test_largest_battles_accepted_and_fast():
    """The bounds themselves are accepted: 70 v 70 Minas Tirith, exact only."""
    r = invoke("battle", "-a", "70", "-d", "70", "--games", "0", "--json")
    assert r.exit_code == 0, r.output
    ex = json.loads(r.stdout)["exact"]
    assert sum(ex["outcomes"].values()) == pytest.approx(1.0)
    r = invoke("bombard", "--shooters", "17", "--games", "1000", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["bombard"]["dice"] == 17


@pytest.mark.slow
def test_battle_and_bombard_chunked_equal_unchunked(monkeypatch):
    """Memory-bounded Monte Carlo: battles in chunks of 1000 give exactly the counts of
    one chunk (battle i uses stream (seed, i) however it is cut)."""
    from lotr_sim.analyses import battles
    args = ("minas-tirith", 5, 4, 1, 0, "defender", True, 0, 5500, 7)
    whole = battles.battle_report(*args)["monte_carlo"]
    bw = battles.bombard_report(6, True, 2, 5500, 3)["monte_carlo"]
    monkeypatch.setattr(battles, "CHUNK", 1000)
    cut = battles.battle_report(*args)["monte_carlo"]
    bc = battles.bombard_report(6, True, 2, 5500, 3)["monte_carlo"]
    assert cut == whole and bc == bw      # every figure comes from exact integer counts
    # and the chunked counts are the kernel's own counts for the same battles
    from lotr_sim.kernels.combat import simulate_battles
    r = simulate_battles("minas-tirith", 5, 4, 5500, 7, 0, 1, 0, False, True, 0)
    oc = np.bincount(r["outcome"], minlength=4)
    assert cut["attacker_wins"] == (oc[0] + oc[3]) / 5500
    assert cut["rolls_mean"] == pytest.approx(r["rolls"].mean(), rel=1e-12)


# --- --threads: checked once, in make_backend, for every command ------------------------

@pytest.mark.parametrize("value", ["-1", "0", "1000"])
def test_run_threads_out_of_range(value):
    hi = 4 * (os.cpu_count() or 1)
    assert_one_line(invoke("run", "-n", "10", "-q", "--threads", value),
                    f"--threads must be a whole number from 1 to {hi}", "cores")


@pytest.mark.parametrize("value", [-1, 0, 1000, 2.5, True])
def test_make_backend_checks_threads_and_workers(value):
    from lotr_sim.errors import LotrSimError
    from lotr_sim.experiments.backends import make_backend, max_threads
    with pytest.raises(LotrSimError, match="--threads must be"):
        make_backend(threads=value)
    with pytest.raises(LotrSimError, match="--workers must be"):
        make_backend(workers=value, cluster="local")
    assert make_backend(threads=max_threads()).threads == max_threads()
    assert make_backend(threads=None).threads is None


@pytest.mark.parametrize("cmd", [
    ["compare", "--set", "leader_bonus=1", "--vs", "leader_bonus=2", "--max-games", "200"],
    ["balance", "--param", "leader_bonus", "--range", "0:2", "--games", "100"],
    ["sweep", "--param", "leader_bonus=0,1", "--games", "20"],
])
def test_other_commands_threads_out_of_range(cmd, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_one_line(invoke(*cmd, "-q", "--threads", "0"), "--threads must be a whole number from 1 to")


# --- run --out: an earlier run is not overwritten; a full disk leaves nothing -----------

def test_run_out_refuses_earlier_run_unless_force(tmp_path):
    out = tmp_path / "r"
    r = invoke("run", "-n", "20", "-q", "-o", out, "--json")
    assert r.exit_code == 0, r.output
    before = (out / "summary.json").read_text()
    assert_one_line(invoke("run", "-n", "30", "-q", "-o", out), "already holds an earlier run", "--force")
    assert (out / "summary.json").read_text() == before
    r = invoke("run", "-n", "30", "-q", "-o", out, "--force", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "summary.json").read_text())["games"] == 30
    import pandas as pd
    assert len(pd.read_parquet(out / "games.parquet")) == 30
    assert sorted(p.name for p in out.iterdir()) == ["games.parquet", "summary.json"]


def test_run_out_refuses_a_sweep_folder(tmp_path):
    (tmp_path / "manifest.json").write_text("{}")
    assert_one_line(invoke("run", "-n", "10", "-q", "-o", tmp_path, "--force"), "holds a sweep's results")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["games", "summary", "open"])
def test_run_out_full_disk_one_line_and_no_folder_left(tmp_path, monkeypatch, where):
    """ENOSPC while writing games.parquet (chunk by chunk), summary.json, or opening the
    file: one line, exit 2, and neither the new folder nor a temp file is left behind."""
    from lotr_sim.experiments import run as R

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    if where == "games":
        monkeypatch.setattr(R.GamesWriter, "add", full)
    elif where == "summary":
        monkeypatch.setattr(R.os, "fdopen", full)
    else:
        monkeypatch.setattr(R.tempfile, "mkstemp", full)
    out = tmp_path / "deep" / "run"
    line = assert_one_line(invoke("run", "-n", "3000", "-q", "-o", out))
    assert "no space left on device" in line.lower()
    assert not (tmp_path / "deep").exists()


def test_run_out_full_disk_keeps_an_existing_folder_and_its_files(tmp_path, monkeypatch):
    from lotr_sim.experiments import run as R
    (tmp_path / "notes.txt").write_text("mine")

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(R.GamesWriter, "add", full)
    assert_one_line(invoke("run", "-n", "100", "-q", "-o", tmp_path), "no space left")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_run_out_is_a_file(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    assert_one_line(invoke("run", "-n", "10", "-q", "-o", f), "it is a file")


def test_run_trace_bounded(tmp_path):
    assert_one_line(invoke("run", "-n", "200000", "-q", "--trace", tmp_path / "t.jsonl"),
                    "--trace replays every game: at most 100000 games")


# --- a path that is not what the option wants: the real problem, not "not found" --------

@pytest.mark.parametrize("what", ["folder", "fifo"])
def test_config_folder_or_fifo_names_the_problem(tmp_path, what):
    p = tmp_path / "c.toml"
    if what == "folder":
        p.mkdir()
        needle = "is a folder"
    else:
        os.mkfifo(p)
        needle = "is not a regular file"
    line = assert_one_line(invoke("run", "-n", "10", "-q", "--config", p), str(p), needle)
    assert "not found" not in line


def test_tuned_file_folder_or_empty_names_the_problem(tmp_path):
    line = assert_one_line(invoke("run", "-n", "10", "-q", "--policy", f"good=tuned:{tmp_path}"),
                           str(tmp_path), "is a folder")
    assert "not found" not in line
    line = assert_one_line(invoke("run", "-n", "10", "-q", "--policy", "good=tuned:"), "tuned:FILE", "no file")
    assert "file . not found" not in line


@pytest.mark.parametrize("cmd", [
    ["run", "-n", "10", "-q", "--out"], ["run", "-n", "10", "-q", "--trace"], ["run", "-n", "10", "-q", "--config"],
    ["sweep", "-p", "leader_bonus=0,1", "-n", "10", "-q", "--out"],
    ["sweep", "-p", "leader_bonus=0,1", "-n", "10", "-q", "--resume"],
    ["tune", "-G", "1", "-n", "10", "-q", "--out"], ["skill", "-n", "10", "-q", "--out"],
    ["tiles", "-n", "10", "--out"], ["report"], ["play", "-q", "--trace"],
    ["battle", "-a", "3", "-d", "2", "--plot"], ["fellowship", "-g", "lotr-risk", "-n", "0", "--plot"],
])
def test_empty_path_is_refused(cmd, tmp_path, monkeypatch):
    """An empty path is Path('') = the current folder: --out "" must not write there."""
    monkeypatch.chdir(tmp_path)
    assert_one_line(invoke(*cmd, ""), "an empty path")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cmd", [["battle", "-a", "3", "-d", "2", "-n", "100"],
                                 ["fellowship", "-g", "lotr-risk", "-n", "0"]])
def test_plot_path_says_the_file_it_writes(cmd, tmp_path):
    """--plot NAME without a suffix writes NAME.png (matplotlib adds it): the message names
    that file; --plot on a folder is refused before anything is written."""
    r = invoke(*cmd, "--plot", tmp_path / "chart")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "chart.png").is_file() and not (tmp_path / "chart").exists()
    assert f"plot written to {tmp_path / 'chart.png'}" in " ".join(r.stdout.split())
    (tmp_path / "dir").mkdir()
    assert_one_line(invoke(*cmd, "--plot", tmp_path / "dir"), str(tmp_path / "dir"), "is a folder")
    assert list((tmp_path / "dir").iterdir()) == [] and not (tmp_path / "dir.png").exists()
    assert_one_line(invoke(*cmd, "--plot", tmp_path / "chart.foo"), "cannot write '.foo' files")


# --- an ASCII-only terminal ---------------------------------------------------------------

@pytest.mark.parametrize("args", [["run", "-n", "20", "-q"], ["params", "-g", "lotr-risk"],
                                  ["run", "-n", "20", "-q", "--config", "/nonexistent/\u00e9t\u00e9.toml"]])
def test_ascii_only_output_degrades_without_an_error(args):
    """PYTHONIOENCODING=ascii: every character still reaches the user (ASCII fallbacks such
    as '-' for an en dash), never a UnicodeEncodeError."""
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    p = subprocess.run([sys.executable, "-m", "lotr_sim.cli.main", *args], capture_output=True, env=env,
                       timeout=300)
    out, err = p.stdout.decode("ascii"), p.stderr.decode("ascii")   # ASCII bytes only
    assert "UnicodeEncodeError" not in err and "internal error" not in err, err
    if "--config" in args:
        assert p.returncode == 2 and err.count("\n") == 1 and "/nonexistent/ete.toml" in err, err
    else:
        assert p.returncode == 0, err
    if args[0] == "run":
        assert "5-95%" in out if p.returncode == 0 else True


# --- --out on another command's folder ---------------------------------------------------

def _folder_of(kind: str, root):
    """A folder holding what ``kind`` of lotr-sim output writes (its marker files)."""
    d = root / kind
    (d / "chunks").mkdir(parents=True) if kind == "sweep" else d.mkdir(parents=True)
    files = {"sweep": {"manifest.json": json.dumps({"kind": "sweep", "game": "minas-tirith"}),
                       "results.parquet": "x"},
             "tune": {"manifest.json": json.dumps({"kind": "tune", "game": "minas-tirith"}),
                      "state.pkl": "x", "tuned.toml": 'game = "minas-tirith"\n', "history.jsonl": ""},
             "run": {"games.parquet": "x", "summary.json": "{}"},
             "tiles": {"report.json": "{}", "summary.csv": "", "doom_heat.csv": ""}}[kind]
    for name, text in files.items():
        (d / name).write_text(text)
    return d


def _snapshot(d):
    return {str(p.relative_to(d)): p.read_bytes() if p.is_file() else None for p in sorted(d.rglob("*"))}


OUT_COMMANDS = {
    "run": ["run", "-n", "10", "-q", "--force", "-o"],
    "sweep": ["sweep", "-p", "leader_bonus=0,1", "-n", "10", "-q", "-o"],
    "tune": ["tune", "-G", "1", "-n", "10", "--final-games", "10", "-q", "-o"],
    "skill": ["skill", "--players", "random,greedy", "-n", "10", "-q", "-o"],
    "tiles": ["tiles", "-n", "10", "--force", "-o"],
}
FOLDER_WORDS = {"sweep": "a sweep's results", "tune": "a tune run", "run": "a run's games",
                "tiles": "a tiles report"}


@pytest.mark.parametrize("cmd", sorted(OUT_COMMANDS))
@pytest.mark.parametrize("kind", sorted(FOLDER_WORDS))
def test_out_on_another_commands_folder_is_refused(tmp_path, cmd, kind):
    """Every command's --out refuses a folder holding another command's output (even with
    --force): nothing there is replaced, and no --resume that would fail is suggested."""
    own = "sweep" if cmd == "skill" else cmd
    if kind == own:
        return                        # a command's own folder: its own rule (--force, --resume)
    d = _folder_of(kind, tmp_path)
    before = _snapshot(d)
    line = assert_one_line(invoke(*OUT_COMMANDS[cmd], d), str(d), FOLDER_WORDS[kind], "choose another --out")
    assert "--resume" not in line or kind in ("sweep", "tune") and f"lotr-sim {kind} --resume" in line
    assert _snapshot(d) == before


def test_tune_out_on_a_finished_sweep_keeps_the_sweep(tmp_path):
    """The reported case: tune --out on a finished sweep replaced its manifest.json."""
    sw = tmp_path / "sw"
    r = invoke("sweep", "-p", "leader_bonus=0,1", "-n", "20", "-q", "-o", sw)
    assert r.exit_code == 0, r.output
    before = _snapshot(sw)
    assert_one_line(invoke(*OUT_COMMANDS["tune"], sw), "a sweep's results")
    assert _snapshot(sw) == before
    r = invoke("sweep", "-q", "--resume", sw)
    assert r.exit_code == 0, r.output


def test_sweep_resume_of_a_tune_folder_names_the_right_command(tmp_path):
    d = _folder_of("tune", tmp_path)
    assert_one_line(invoke("sweep", "-q", "--resume", d), "a tune run", f"lotr-sim tune --resume {d}")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc (a folder nothing can be created in)")
@pytest.mark.parametrize("cmd", sorted(OUT_COMMANDS))
def test_out_where_no_folder_can_be_made_says_so(cmd):
    """An output folder that cannot be created is that error (not a sweep's '0 B free; use
    fewer --games', not tiles' internal FileNotFoundError)."""
    line = assert_one_line(invoke(*OUT_COMMANDS[cmd], "/proc/lotr-sim-out"),
                           "cannot write to output folder /proc/lotr-sim-out")
    assert "free" not in line and "fewer --games" not in line


# --- report on a folder whose results are another sweep's --------------------------------

@pytest.mark.slow
def test_report_on_another_games_results_is_one_line(tmp_path):
    """A sweep folder whose results.parquet came from another game's sweep: one line naming
    the mismatch (it was an internal KeyError 'wins_good')."""
    import shutil
    for d, args in (("mt", ["-g", "minas-tirith", "-p", "leader_bonus=0,1"]),
                    ("ts", ["-g", "the-search", "-p", "neutral_tile=chosen"])):
        r = invoke("sweep", *args, "-n", "20", "-q", "--no-pairings", "-o", tmp_path / d)
        assert r.exit_code == 0, r.output
    shutil.copy(tmp_path / "ts" / "results.parquet", tmp_path / "mt" / "results.parquet")
    assert_one_line(invoke("report", tmp_path / "mt"), str(tmp_path / "mt" / "results.parquet"),
                    "does not match", "manifest.json")
