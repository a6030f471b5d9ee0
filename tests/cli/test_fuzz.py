"""Property-based fuzz test of the whole CLI: random argument vectors per command
(valid and invalid option names and values: ints, floats, huge and negative numbers, text,
paths to binary files and folders, missing values) and random TOML documents given with
--config / --sweep-file. Invariant: no traceback, no hang, exit code 0 or 2, and on exit 2
exactly one line on stderr, starting ``lotr-sim: error:``.

In-process (typer.testing.CliRunner), not subprocesses: a subprocess pays ~2-4 s of
interpreter start-up and imports per example, so a 60 s budget would hold ~20 examples for
ten commands; in-process it holds hundreds. A hang is caught by a SIGALRM watchdog around
each invocation (``Hang`` is a BaseException, so no command's ``except Exception`` eats it).
Valid runs are kept cheap: counts come from small (or invalid) values only and the
expensive commands get small caps put before the fuzzed arguments (a later repetition of an
option wins, so the fuzz can still give any *cheap* value). ``derandomize=True``: the same
examples on every run, so the suite never turns red by chance; widen locally with
``LOTR_SIM_FUZZ_EXAMPLES=500``.
"""
from __future__ import annotations

import itertools
import json
import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()
SCALE = int(os.environ.get("LOTR_SIM_FUZZ_EXAMPLES", "0"))

# Failures the fuzz once found (binary config files, a huge `play --index`) are fixed; a flag
# set to True keeps the fuzz away from an input while a known bug is being fixed, and the
# regression tests at the end of this file pin each one.
KNOWN_BINARY_TOML = False     # was: lotr_sim/config.py load_toml raised UnicodeDecodeError
KNOWN_PLAY_HUGE_INDEX = False  # was: play --index >= 2**63 raised OverflowError


WATCHDOG_S = 90


class Hang(BaseException):
    """An invocation ran past the watchdog."""


def _alarm(signum, frame):
    raise Hang("a CLI invocation ran past the watchdog")


def fuzz_settings(n: int):
    return settings(max_examples=SCALE or n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large, HealthCheck.filter_too_much])


# --- the files and folders fuzzed paths point at -----------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    binary = d / "binary.bin"
    binary.write_bytes(bytes(range(256)) * 4 + b"\xff\xfe\x00\x81")
    empty = d / "empty.toml"
    empty.write_text("")
    good_toml = d / "params.toml"
    good_toml.write_text("[params]\nleader_bonus = 1\n")
    folder = d / "folder"
    folder.mkdir()
    corrupt = d / "corrupt_run"
    corrupt.mkdir()
    (corrupt / "manifest.json").write_text("{not json")
    (corrupt / "results.parquet").write_bytes(b"PAR1 nonsense")
    earlier = d / "earlier_run"
    earlier.mkdir()
    (earlier / "summary.json").write_text(json.dumps({"games": 1}))
    return dict(dir=d, binary=binary, empty=empty, toml=good_toml, folder=folder, corrupt=corrupt,
                earlier=earlier, missing=d / "missing" / "nope.toml")


_counter = itertools.count()


def fresh(files, suffix: str = "") -> Path:
    return files["dir"] / f"new{next(_counter)}{suffix}"


# --- value strategies -------------------------------------------------------------------------

JUNK = st.sampled_from(["", " ", "-", "--", "abc", "nan", "inf", "-inf", "1e400", "0x10", "1,5", "½",
                        "1e16", "-1e12", "99999999999999999999", "=", "a=b=c", "None", "true"])
INTS = st.one_of(st.integers(-3, 12), st.integers(-10**25, 10**25)).map(str)
FLOATS = st.floats(allow_nan=True, allow_infinity=True).map(repr)
TEXT = st.text(max_size=10)
SMALL_COUNTS = st.one_of(st.integers(1, 60).map(str), st.integers(-5, 0).map(str),
                         st.sampled_from(["1e1", "2e1", "1.5", "0.0", "3."]))
SEEDS = st.one_of(st.integers(-3, 10).map(str), st.sampled_from([str(2**63 - 1), str(2**63), "-9", "1e3"]))


def anything():
    return st.one_of(JUNK, INTS, FLOATS, TEXT)


def value(*specific):
    """A value: 11 times in 12 from the option's own (cheap, mostly valid) strategies, else
    anything. Most argument vectors must get past parsing to reach the deeper code."""
    if not specific:
        return anything()
    own = st.one_of(*specific)
    return st.integers(0, 11).flatmap(lambda i: anything() if i == 0 else own)


PARAM_NAMES = ["leader_bonus", "banner_defence_bonus", "retreat_trigger", "mission_card_base",
               "end_on_last_card", "points_leader", "leave_one_behind", "evil_banner_divisor",
               "creature_hits", "deck_infantry", "strenght", "bogus"]
PARAM_VALUES = ["0", "1", "2", "3", "-3", "99", "true", "false", "natural6", "modified6", "off", "immediate",
                "end_of_turn", "1.5", "", "x", "0,1", "0:3", "3:0", "0:2:0", "1e9"]
SET = st.builds(lambda n, v: f"{n}={v}", st.sampled_from(PARAM_NAMES), st.sampled_from(PARAM_VALUES))
PARAM_SPEC = st.sampled_from(["leader_bonus=0,1", "banner_defence_bonus=0:2", "retreat_trigger=natural6,off",
                              "leave_one_behind=true,false", "mission_card_base=4:8:2", "points_leader=0,5",
                              "strenght=1,2", "leader_bonus=", "leader_bonus", "leader_bonus=0:3:0",
                              "leader_bonus=9,99"])
POLICY = st.sampled_from(["greedy", "random", "cautious", "aggressive", "clever", ""])


# --- random TOML documents --------------------------------------------------------------------

def _toml_scalar():
    return st.one_of(
        st.integers(-5, 80).map(str), st.integers(-2**70, 2**70).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.booleans().map(lambda b: "true" if b else "false"),
        st.text(max_size=8).map(lambda s: json.dumps(s, ensure_ascii=False)),
        st.sampled_from(['"natural6"', '"greedy"', '"pool"', '"minas-tirith"', '"Gate Field"']))


def _toml_value():
    return st.one_of(_toml_scalar(), st.lists(_toml_scalar(), max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"))


KEYS = st.one_of(st.sampled_from(PARAM_NAMES + ["infantry", "archer", "cavalry", "creature", "leaders", "game",
                                                "seed", "games", "grid", "chunk", "max_games", "precision",
                                                "good", "evil", "name", "territories", "edges"]),
                 st.from_regex(r"[a-z_]{1,8}", fullmatch=True))
TABLES = st.sampled_from(["params", "set", "policies", "game", "board", "pools.good", "pools.evil",
                          'setup.good."Gate Field"', 'setup.evil."East Osgiliath"', "bogus_table", "deck"])


@st.composite
def toml_document(draw):
    kind = draw(st.sampled_from(["doc", "doc", "doc", "junk"] + ([] if KNOWN_BINARY_TOML else ["binary"])))
    if kind == "binary":
        return draw(st.binary(max_size=64)) + b"\xff\xfe"
    if kind == "junk":
        return draw(st.text(max_size=60)).encode("utf-8", "surrogatepass")
    lines = [f"{k} = {v}" for k, v in draw(st.dictionaries(KEYS, _toml_value(), max_size=3)).items()]
    for t in draw(st.lists(TABLES, max_size=3, unique=True)):
        lines.append(f"[{t}]")
        lines += [f"{k} = {v}" for k, v in draw(st.dictionaries(KEYS, _toml_value(), max_size=4)).items()]
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def toml_file(files, doc: bytes) -> str:
    p = fresh(files, ".toml")
    p.write_bytes(doc)
    return str(p)


# --- argument vectors -------------------------------------------------------------------------

def path_value(files, kind: str) -> str:
    return {"binary": str(files["binary"]), "empty": str(files["empty"]), "toml": str(files["toml"]),
            "folder": str(files["folder"]), "missing": str(files["missing"]), "corrupt": str(files["corrupt"]),
            "earlier": str(files["earlier"]), "fresh": str(fresh(files)), "fresh_png": str(fresh(files, ".png")),
            "fresh_jsonl": str(fresh(files, ".jsonl")), "": ""}[kind]


PATHS = st.sampled_from(["binary", "empty", "toml", "folder", "missing", "corrupt", "earlier", "fresh", ""])
CONFIG_PATHS = st.sampled_from(["empty", "toml", "folder", "missing", "corrupt", "earlier", "fresh", ""]
                               + ([] if KNOWN_BINARY_TOML else ["binary"]))
OUT_PATHS = st.sampled_from(["fresh", "fresh", "earlier", "folder", "binary", "corrupt", ""])
TRACE_PATHS = st.sampled_from(["fresh_jsonl", "folder", "missing", "binary", ""])
PNG_PATHS = st.sampled_from(["fresh_png", "folder", "missing", ""])

# option -> strategy of its value (None: a flag). Values that would make a valid run long
# (large counts, small --precision, a remote scheduler, a local Dask cluster) never appear.
OPTIONS = {
    "battle": {
        "--rules": value(st.sampled_from(["minas-tirith", "classic", "lotr-risk", "chess"])),
        "-r": value(st.sampled_from(["classic", "lotr-risk"])),
        "--attackers": value(SMALL_COUNTS, st.sampled_from(["70", "71", "100000"])),
        "-a": value(SMALL_COUNTS), "--defenders": value(SMALL_COUNTS, st.sampled_from(["70", "100000"])),
        "-d": value(SMALL_COUNTS), "--attack-bonus": value(st.integers(-5, 5).map(str)),
        "--defence-bonus": value(st.integers(-5, 5).map(str)), "--good": value(st.sampled_from(["attacker",
                                                                                                "defender"])),
        "--witch-king": None, "--stop-at": value(st.integers(-2, 6).map(str)),
        "--games": value(SMALL_COUNTS), "-n": value(SMALL_COUNTS), "--seed": value(SEEDS), "-s": value(SEEDS),
        "--json": None, "--plot": ("path", PNG_PATHS),
    },
    "bombard": {
        "--shooters": value(SMALL_COUNTS, st.sampled_from(["17", "18", "100000000"])), "-k": value(SMALL_COUNTS),
        "--banner": None, "--divisor": value(st.integers(-2, 20).map(str)), "--games": value(SMALL_COUNTS),
        "-n": value(SMALL_COUNTS), "--seed": value(SEEDS), "--json": None,
    },
    "bench": {   # never a valid benchmark (each takes seconds): only bad counts and games
        "--game": value(st.sampled_from(["chess", "", "fake"])), "-g": value(st.sampled_from(["nope"])),
        "--games": value(st.sampled_from(["0", "9", "1e9", "abc", "-1"])),
        "--battles": value(st.sampled_from(["0", "999", "1e12", "abc", "-5"])), "--seed": value(SEEDS),
        "--json": None,
    },
    "params": {"--game": value(st.sampled_from(["minas-tirith", "chess"])), "-g": value(), "--json": None},
    "play": {
        "--game": value(st.sampled_from(["minas-tirith"])), "--seed": value(SEEDS),
        "--index": value(st.integers(-2, 50).map(str),
                         st.sampled_from([str(2**63 - 1)] if KNOWN_PLAY_HUGE_INDEX else ["99999999999999999999",
                                                                                         str(2**63)])),
        "-i": value(st.integers(0, 20).map(str)), "--good": value(POLICY), "--evil": value(POLICY),
        "--set": value(SET), "--config": ("toml", None), "-c": ("path", CONFIG_PATHS), "--trace": ("path", TRACE_PATHS),
        "-q": None, "--quiet": None,
    },
    "report": {},
    "run": {
        "--game": value(st.sampled_from(["minas-tirith"] * 5 + ["chess"])), "--games": value(SMALL_COUNTS),
        "-n": value(SMALL_COUNTS), "--seed": value(SEEDS), "--good": value(POLICY), "--evil": value(POLICY),
        "--set": value(SET), "--config": ("toml", None), "-c": ("path", CONFIG_PATHS),
        "--threads": value(st.sampled_from(["-1", "0", "1", "2", "1000"])), "-j": value(st.sampled_from(["1"])),
        "--out": ("path", OUT_PATHS), "-o": ("path", OUT_PATHS), "--json": None, "--trace": ("path", TRACE_PATHS),
        "--force": None, "-q": None,
    },
    "sweep": {
        "--param": value(PARAM_SPEC), "-p": value(PARAM_SPEC), "--grid": None, "--one-at-a-time": None,
        "--games": value(SMALL_COUNTS), "-n": value(SMALL_COUNTS),
        "--precision": value(st.sampled_from(["0", "0.5", "-0.1", "0.3", "abc"])),
        "--max-games": value(SMALL_COUNTS), "--good": value(POLICY), "--evil": value(POLICY), "--set": value(SET),
        "--config": ("toml", None), "--sweep-file": ("toml", None), "-c": ("path", CONFIG_PATHS),
        "--seed": value(SEEDS), "--threads": value(st.sampled_from(["0", "1", "1000"])),
        "--chunk": value(st.sampled_from(["0", "-1", "7", "1e3", "abc"])), "--out": ("path", OUT_PATHS),
        "--resume": ("path", PATHS), "--scheduler": value(st.sampled_from(["tcp://127.0.0.1:1", "junk", "tcp://"])),
        "--cluster": value(st.sampled_from(["remote", "", "nope"])), "--workers": value(st.sampled_from(["0", "-1"])),
        "--connect-timeout": value(st.sampled_from(["0.2", "-1", "0", "abc"])), "--save-games": None,
        "--json": None, "-q": None,
    },
    "compare": {
        "--set": value(SET), "--vs": value(SET), "--base": value(SET), "--good": value(POLICY),
        "--evil": value(POLICY), "--config": ("toml", None), "--alpha": value(st.sampled_from(["0.05", "0", "1", "-1"])),
        "--beta": value(st.sampled_from(["0.1", "0", "2"])), "--p0": value(), "--p1": value(),
        "--delta": value(st.sampled_from(["0.02", "0", "-0.1", "0.5"])),
        "--min-games": value(SMALL_COUNTS), "--max-games": value(SMALL_COUNTS, st.sampled_from(["300"])),
        "--seed": value(SEEDS), "--threads": value(st.sampled_from(["0", "1", "-1"])), "--unpaired": None,
        "--json": None, "-q": None,
    },
    "balance": {
        "--param": value(st.sampled_from(PARAM_NAMES)), "-p": value(st.sampled_from(PARAM_NAMES)),
        "--range": value(st.sampled_from(["0:2", "0:3", "3:0", "a:b", "0:1e9", "1", "0:0"])),
        "--target": value(st.sampled_from(["0.5", "0", "1", "2", "-1"])), "--games": value(SMALL_COUNTS),
        "--set": value(SET), "--good": value(POLICY), "--evil": value(POLICY), "--config": ("toml", None),
        "--tol": value(st.sampled_from(["0.1", "0", "-1"])), "--max-steps": value(st.sampled_from(["0", "1", "2", "-1"])),
        "--seed": value(SEEDS), "--threads": value(st.sampled_from(["0", "1"])), "--json": None, "-q": None,
    },
    "fellowship": {
        "--games": value(SMALL_COUNTS, st.sampled_from(["0", "1e12"])), "-n": value(SMALL_COUNTS),
        "--seed": value(SEEDS), "-s": value(SEEDS),
        "--set": value(st.sampled_from(["fellowship_roll_above=3", "fellowship_roll_above=5",
                                        "fellowship_roll_above=6", "fellowship_roll_above=-1",
                                        "fellowship_roll_above=x", "bogus=1"])),
        "--config": ("toml", None), "-c": ("path", CONFIG_PATHS),
        "--players": value(st.sampled_from(["1", "2", "3", "4", "5", "0", "-2"])), "-p": value(),
        "--threads": value(st.sampled_from(["0", "1", "2"])), "--json": None, "--plot": ("path", PNG_PATHS),
    },
}
BOGUS_OPTIONS = ["--foo", "--gamez", "-Z", "--", "---x", "--set=", "--json=1"]

# Caps put before the fuzzed arguments: cheap runs for the commands whose defaults are long.
CAPS = {
    "run": ["-n", "40", "-q"],
    "play": ["-q"],
    "sweep": ["--param", "leader_bonus=0,1", "--games", "20", "-q"],
    "compare": ["--set", "leader_bonus=1", "--vs", "leader_bonus=0", "--max-games", "300", "--min-games", "20",
                "-q"],
    "balance": ["--param", "leader_bonus", "--range", "0:2", "--games", "60", "--max-steps", "2", "-q"],
}


@st.composite
def argv(draw, command: str, files):
    """Caps, then 0-5 options with their own values, then (2 times in 5) one mutation:
    a bogus option, a value left out, a value from anywhere, or a stray argument."""
    opts = OPTIONS[command]
    out = list(CAPS.get(command, []))
    names = list(opts)
    for _ in range(draw(st.integers(0, 5)) if names else 0):
        name = draw(st.sampled_from(names))
        spec = opts[name]
        out.append(name)
        if spec is None:
            continue
        if isinstance(spec, tuple) and spec[0] == "toml":
            out.append(toml_file(files, draw(toml_document())))
        elif isinstance(spec, tuple) and spec[0] == "path":
            out.append(path_value(files, draw(spec[1])))
        else:
            out.append(draw(spec))
    if command == "report":
        out.append(path_value(files, draw(PATHS)))
    mutation = draw(st.sampled_from(["none", "none", "none", "bogus", "missing", "junk", "stray"]))
    if mutation == "bogus":
        out.insert(draw(st.integers(0, len(out))), draw(st.sampled_from(BOGUS_OPTIONS)))
    elif mutation == "missing" and any(opts.get(a) is not None for a in out if a in opts):
        out.append(draw(st.sampled_from([n for n in names if opts[n] is not None])))
    elif mutation == "junk" and names and any(opts[n] is not None for n in names):
        out += [draw(st.sampled_from([n for n in names if opts[n] is not None])), draw(anything())]
    elif mutation == "stray":
        out.append(draw(anything()))
    return out


def check(args: list[str], tmp: Path) -> None:
    """The invariant, for one argument vector."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, WATCHDOG_S)
    cwd = os.getcwd()
    os.chdir(tmp)                 # sweeps without --out write under ./reports
    shown = f"lotr-sim {' '.join(repr(a) for a in args)}"
    try:
        r = runner.invoke(app, args)
    except Hang:
        raise AssertionError(f"{shown}: still running after the watchdog's {WATCHDOG_S} s") from None
    finally:
        os.chdir(cwd)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise AssertionError(f"{shown}: {type(r.exception).__name__}: {r.exception}") from r.exception
    assert r.exit_code in (0, 2), f"{shown}: exit {r.exit_code}: {r.output[-500:]}"
    assert "Traceback" not in r.output, f"{shown}: {r.output[-500:]}"
    if r.exit_code == 2:
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("lotr-sim: error: "), f"{shown}: stderr {r.stderr!r}"


EXAMPLES = {"battle": 60, "bombard": 40, "bench": 25, "params": 12, "play": 25, "report": 15, "run": 50,
            "sweep": 12, "compare": 12, "balance": 12, "fellowship": 25}


def _make(command: str):
    @fuzz_settings(EXAMPLES[command])
    @given(data=st.data())
    def test(files, data):
        args = [command] + data.draw(argv(command, files), label="argv")
        check(args, files["dir"])
    test.__name__ = f"test_fuzz_{command}"
    test.__doc__ = f"`lotr-sim {command} ...` with random arguments: exit 0, or 2 with one error line."
    return test


for _cmd in OPTIONS:
    globals()[f"test_fuzz_{_cmd}"] = _make(_cmd)
# play compiles and plays whole games of every engine: the slowest fuzz target (~65 s)
test_fuzz_play = pytest.mark.slow(test_fuzz_play)  # noqa: F821 - defined just above
# the quick subset (-m "not slow") keeps the cheap targets; these play games (2-3 s each)
for _cmd in ("run", "sweep", "fellowship", "battle"):
    globals()[f"test_fuzz_{_cmd}"] = pytest.mark.slow(globals()[f"test_fuzz_{_cmd}"])


@pytest.mark.slow
@fuzz_settings(40)
@given(data=st.data())
def test_fuzz_any_command_name_and_root_options(files, data):
    """The root: unknown commands, options before the command, --version/--help anywhere."""
    args = data.draw(st.lists(st.one_of(st.sampled_from(["--version", "--help", "-h", "-V", "--foo", "batle",
                                                         "runn", "help", "report", "params"]), anything()),
                              max_size=3), label="argv")
    check(args, files["dir"])


# --- regressions: failures the fuzz found, now fixed ---------------------------------------------

@pytest.mark.parametrize("args", [["run", "-n", "10", "-q", "--config"], ["play", "-q", "--config"],
                                  ["sweep", "--param", "leader_bonus=0,1", "-n", "10", "-q", "--sweep-file"]])
def test_known_binary_toml_is_one_line(files, args):
    check(args + [str(files["binary"])], files["dir"])


@pytest.mark.parametrize("index", ["99999999999999999999", str(2**63)])
def test_known_play_huge_index_is_one_line(files, index):
    check(["play", "-q", "--index", index], files["dir"])


@pytest.mark.parametrize("cmd", [["run", "-n", "20", "-q"], ["play", "-q"]])
def test_known_negative_setup_is_one_line(files, cmd):
    from lotr_sim.games.minas_tirith.config import default_path
    text = Path(default_path()).read_text()
    bad = text.replace('[setup.good."Minas Tirith"]\ninfantry = 3', '[setup.good."Minas Tirith"]\ninfantry = -3', 1)
    assert bad != text
    p = fresh(files, ".toml")
    p.write_text(bad)
    check(cmd + ["--config", str(p)], files["dir"])
