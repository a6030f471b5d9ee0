"""The sweep's "after adaptation" figure (experiments.sweep_adapt): the players adapted to
exactly the K largest rule levers, the figure's paired interval and its games, resuming
without re-tuning, --no-adapt, bit-identical whatever the threads."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from framebuild import MANIFEST, frame, row
from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.errors import ConfigError, Interrupted
from lotr_sim.experiments import sweep_adapt
from lotr_sim.experiments.sequential import paired_interval
from lotr_sim.experiments.spec import SweepSpec, load_sweep_file
from lotr_sim.experiments.store import Store
from lotr_sim.experiments.sweep import spec_difference
from lotr_sim.experiments.verdict import fmt_pp, levers, verdict
from lotr_sim.games.registry import get_game
from lotr_sim.reports.verdict_text import levers_rows

runner = CliRunner()
TUNED = {"good": "tuned", "evil": "tuned"}


def _mt_frame(policies=TUNED):
    """A Minas Tirith results frame: four rule levers and a players lever (the largest)."""
    dims0 = {"retreat_trigger": "natural6", "mission_card_base": 6, "points_leader": 10, "leader_bonus": 1,
             "good": "tuned"}
    rows = [row(0, "baseline", "baseline", dims0, 10_000, (3000, 6800, 200), policies=policies)]
    levers_ = [("retreat_trigger", "off", (100, 1600)), ("mission_card_base", 8, (1100, 170)),
               ("points_leader", 0, (500, 100)), ("leader_bonus", 0, (100, 290)),
               ("good", "greedy", (100, 3000))]
    for i, (name, value, d) in enumerate(levers_, start=1):
        pol = dict(policies, good=value) if name == "good" else policies
        label = f"{name}={value}"
        rows.append(row(i, label, name, {**dims0, name: value}, 10_000, (3000, 6800, 200), delta=d,
                        sets={} if name == "good" else {name: value}, policies=pol))
    return frame(rows)


def _spec(**kw):
    return SweepSpec("minas-tirith", dims=[("retreat_trigger", ["off"])], paired_precision=0.01,
                     max_games=38_416, **kw)


def test_candidates_are_the_k_largest_rule_levers():
    game = get_game("minas-tirith")
    df = _mt_frame()
    ranked = [x["label"] for x in levers(df, "good")]
    assert ranked[0] == "good=greedy"          # the largest, but a players dimension: never adapted to
    assert sweep_adapt.candidates(game, _spec(adapt_levers=2), df) == (
        ["retreat_trigger=off", "mission_card_base=8"], None)
    assert sweep_adapt.candidates(game, _spec(adapt_levers=3), df)[0] == ranked[1:4]
    assert sweep_adapt.candidates(game, _spec(adapt_levers=10), df)[0] == ranked[1:]
    # not asked for: nothing, and no note
    assert sweep_adapt.candidates(game, _spec(), df) == ([], None)
    assert sweep_adapt.candidates(game, _spec(adapt_levers=3), df, command="skill") == ([], None)


def test_a_skill_run_is_never_adapted(tmp_path):
    spec = SweepSpec("minas-tirith", dims=[], pairings=["greedy", "tuned"], gain_precision=0.03, max_games=4000,
                     adapt_levers=3)
    for command in ("skill", "sweep"):
        assert sweep_adapt.adapt_levers(get_game("minas-tirith"), spec, [], {}, _mt_frame(), None, tmp_path,
                                        command=command) is None
    assert not (tmp_path / "adapt").exists()


@pytest.mark.parametrize("why, spec_kw, policies, game_name", [
    ("for a grid sweep", dict(grid=True), TUNED, "minas-tirith"),
    ("the baseline players, good=search, evil=tuned, have no tunable weights", {},
     {"good": "search", "evil": "tuned"}, "minas-tirith"),
    ("game 'fake' has no tunable weights", {}, TUNED, "fake"),
])
def test_a_sweep_that_cannot_adapt_says_why_in_one_line(why, spec_kw, policies, game_name):
    labels, note = sweep_adapt.candidates(get_game(game_name), _spec(adapt_levers=3, **spec_kw),
                                          _mt_frame(policies))
    assert labels == [] and why in note and "\n" not in note and note.startswith("After adaptation: not measured")


def test_a_sweep_of_players_only_has_no_lever_to_adapt_to():
    df = _mt_frame()
    df = df[df["varied"].isin(["baseline", "good"])]
    assert sweep_adapt.candidates(get_game("minas-tirith"), _spec(adapt_levers=3), df) == (
        [], "After adaptation: not measured (no rule parameter swept).")


def _adaptation(kept_first=("good", "evil")):
    fig = dict(delta=-0.139, lo=-0.150, hi=-0.128, games=16_300, n10=300, n01=2566, rate=0.15, base_rate=0.29,
               base_games=16_300, half_width=0.011, goal=0.01, max_games=38_416, met=False, first_game=2 * 10 ** 12)
    return dict(levers=[
        dict(label="retreat_trigger=off", param="retreat_trigger", players={}, checks={}, first_only=None, tune={},
             kept={s: s in kept_first for s in ("good", "evil")}, figure=fig),
        dict(label="mission_card_base=8", param="mission_card_base", players={}, checks={}, first_only=None,
             tune={}, kept={"good": False, "evil": False}, figure=None)],
        settings=dict(levers=2, generations=8, games=300, check_games=5000, goal=0.01, max_games=38_416),
        played=0, elapsed_s=1.0, note=None)


def test_the_lever_lines_carry_the_figure_beside_todays():
    df = _mt_frame()
    plain = verdict(df, MANIFEST)
    v = verdict(df, {**MANIFEST, "adaptation": _adaptation()})
    lines = {ln.split(":")[0]: ln for ln in v["lines"] if ln.startswith("- ")}
    assert lines["- retreat_trigger=off"].endswith(
        "; after adaptation: -13.9 [-15.0, -12.8] (good and evil adapted; ±1.1 at the cap of 16,300 games)")
    assert lines["- mission_card_base=8"].endswith(
        "; after adaptation: neither side's re-tuned weights did better (the default players)")
    # today's figure first, unchanged; the other lines as they were
    for ln in plain["lines"]:
        if ln.startswith("- retreat_trigger=off") or ln.startswith("- mission_card_base=8"):
            assert lines[ln.split(":")[0]].startswith(ln + "; after adaptation: ")
    rest = [ln for ln in v["lines"] if "after adaptation" not in ln and not ln.startswith("After adaptation")]
    assert rest == [ln for ln in plain["lines"] if not ln.startswith(("- retreat_trigger=off", "- mission_card_base=8"))]
    budget = [ln for ln in v["lines"] if ln.startswith("After adaptation (the 2 largest levers)")]
    assert len(budget) == 1 and "8 generations x 300 games" in budget[0] and "5,000 paired games" in budget[0]
    assert "(16,300 games, paired 95% interval" in budget[0] and "played to ±1 or 38,416 games" in budget[0]
    assert v["adaptation"]["text"] == budget[0]
    head, body = levers_rows(v)
    assert head[-1] == "ΔGood after adaptation [95% CI]" and len(head) == 3
    cells = {r[0]: r for r in body}
    assert cells["retreat_trigger=off"][2].startswith("-13.9 [-15.0, -12.8] (good and evil adapted")
    assert "after adaptation" not in cells["retreat_trigger=off"][1]
    assert cells["points_leader=0"][2] == ""
    assert len(levers_rows(plain)[0]) == 2
    # only Good adapted
    v = verdict(df, {**MANIFEST, "adaptation": _adaptation(kept_first=("good",))})
    assert "-13.9 [-15.0, -12.8] (good adapted;" in "\n".join(v["lines"])


def test_sweep_file_and_resume_rules_for_the_adaptation(tmp_path):
    f = tmp_path / "s.toml"
    for bad in ("adapt_levers = -1", "adapt_levers = \"3\"", "adapt_games = 5", "adapt_generations = true"):
        f.write_text(f'game = "fake"\n{bad}\n[params]\nbonus = [true]\n')
        with pytest.raises(ConfigError, match=bad.split(" ")[0]):
            load_sweep_file(f)
    # a resumed sweep may adapt to more or fewer levers, not change the adaptation's budget
    assert spec_difference(_spec(), _spec(adapt_levers=3)) is None
    assert spec_difference(_spec(adapt_levers=3), _spec()) is None
    diff = spec_difference(_spec(adapt_levers=3), _spec(adapt_levers=3, adapt_generations=4))
    assert diff == "the adaptation's tune generations (adapt_generations): 8 there, 4 now"
    # folders written without an adaptation keep their spec (and hash)
    assert "adapt_levers" not in _spec().as_dict() and _spec(adapt_levers=2).as_dict()["adapt_levers"] == 2


def test_cli_adapt_option_errors(tmp_path):
    for args, msg in ((["--adapt", "2", "--no-adapt"], "give either --adapt K or --no-adapt"),
                      (["--adapt", "-1"], "--adapt must be at least 0")):
        r = runner.invoke(app, ["sweep", "-g", "fake", "-p", "bonus=false,true", "-n", "20", "-q",
                                "--out", str(tmp_path / "c"), *args])
        assert r.exit_code == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "c").exists()


@pytest.mark.slow
def test_cli_adapt_options_on_a_game_without_weights(fake, tmp_path):
    r = runner.invoke(app, ["sweep", "-g", "fake", "-p", "bonus=false,true", "-n", "200", "--json",
                            "--adapt", "2", "--out", str(tmp_path / "a")])
    assert r.exit_code == 0, r.stderr
    asked = json.loads(r.stdout)["verdict"]["lines"]
    none = api.sweep(fake, ["bonus=false,true"], games=200, out=tmp_path / "b", report=False).verdict["lines"]
    note = "After adaptation: not measured (game 'fake' has no tunable weights)."
    assert note in asked and [ln for ln in asked if ln != note] == none
    assert not any("adaptation" in ln for ln in none)
    r = runner.invoke(app, ["sweep", "--resume", str(tmp_path / "a"), "--no-adapt", "--json"])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["verdict"]["lines"] == none


# --- Minas Tirith, tiny budgets ------------------------------------------------------------------

PARAMS = ["retreat_trigger=natural6,off", "mission_card_base=6,8", "leader_bonus=1,0"]
BUDGET = dict(generations=3, games=20, check_games=200)
# seed 1: the tune improves Good under retreat_trigger=off, neither side under leader_bonus=0
KW = dict(seed=1, paired_precision=0.05, max_games=600, chunk=100, adapt_levers=2, adapt_budget=BUDGET)


def _run(out, threads=2, **kw):
    return api.sweep("minas-tirith", PARAMS, out=out, threads=threads, **{**KW, **kw})


@pytest.fixture(scope="module")
def adapted(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("adapt") / "s")


def _same(a: dict, b: dict) -> bool:
    """Two adaptations agree on everything but this run's games and time (a tune resumed
    when it had finished counts the generations it played then: none)."""
    def kept(d):
        d = json.loads(json.dumps(d))
        for x in d["levers"]:
            x["tune"].pop("games_played")
        return {k: v for k, v in d.items() if k not in ("played", "elapsed_s")}
    return kept(a) == kept(b)


@pytest.mark.slow
def test_adapts_to_exactly_the_k_largest_levers(adapted):
    ad = adapted.manifest["adaptation"]
    top = [x["label"] for x in levers(adapted.results, "good")][:2]
    assert [x["label"] for x in ad["levers"]] == top
    root = adapted.out / "adapt"
    assert sorted(p.name for p in root.iterdir()) == sorted(top + ["figure", "state.json"])
    for x in ad["levers"]:
        tune = adapted.out / x["tune"]["folder"]
        assert (tune / "tuned.toml").is_file()
        assert len((tune / "history.jsonl").read_text().splitlines()) == BUDGET["generations"]
        for s in ("good", "evil"):
            if s not in x["checks"]:          # its tune never left the start weights: not checked
                assert not x["kept"][s] and x["players"][s] == "tuned"
                continue
            c = x["checks"][s]
            assert c["tuned"]["games"] == c["start"]["games"] == BUDGET["check_games"]
            better = c["tuned"]["rate"] > c["start"]["rate"] if s == "good" else c["tuned"]["rate"] < c["start"]["rate"]
            assert x["kept"][s] == better
            assert x["players"][s] == (x["tune"]["player"] if better else "tuned")
    # the figure is played only where some side adapted; this seed covers both cases
    for x in ad["levers"]:
        assert (x["figure"] is None) == (not any(x["kept"].values()))
    assert sorted(x["figure"] is None for x in ad["levers"]) == [False, True]


@pytest.mark.slow
def test_the_figure_is_the_paired_change_to_its_goal_or_cap(adapted):
    ad = adapted.manifest["adaptation"]
    store = Store(adapted.out / "adapt" / "figure")
    first = sweep_adapt.FRESH_FIGURE
    points = {p.label: p.index for p in adapted.points}
    lines = "\n".join(adapted.verdict["lines"])
    for x in ad["levers"]:
        f = x["figure"]
        if f is None:
            assert f"- {x['label']}: " in lines and "neither side's re-tuned weights did better" in lines
            continue
        n = f["games"]
        a = np.concatenate([c["winner"] for _, c in store.iter_games(points[x["label"]], upto=first + n, start=first)])
        b = np.concatenate([c["winner"] for _, c in store.iter_games(0, upto=first + n, start=first)])
        assert a.size == b.size == n
        n10, n01 = int(np.sum((a == 0) & (b != 0))), int(np.sum((a != 0) & (b == 0)))
        assert (f["n10"], f["n01"]) == (n10, n01) and f["delta"] == (n10 - n01) / n
        assert (f["lo"], f["hi"]) == paired_interval(n, n10, n01)
        assert f["half_width"] == (f["hi"] - f["lo"]) / 2
        assert f["met"] == (f["half_width"] <= KW["paired_precision"])
        assert f["met"] or n == KW["max_games"]
        assert f["rate"] == float(np.mean(a == 0))
        kept = " and ".join(s for s in ("good", "evil") if x["kept"][s])
        assert f"after adaptation: {fmt_pp(f['delta'])} [{fmt_pp(f['lo'])}, {fmt_pp(f['hi'])}] ({kept} adapted" in lines
    # fresh games: no sweep point's, and the keep checks' not the figure's
    assert all(a < sweep_adapt.FRESH_KEEP for lst in Store(adapted.out).chunk_index().values() for a, _, _ in lst)
    assert all(a >= first for lst in store.chunk_index().values() for a, _, _ in lst)
    counts = json.loads((adapted.out / "adapt" / "state.json").read_text())["counts"]
    assert counts and all(sweep_adapt.FRESH_KEEP <= int(k.split("|")[2]) < first for k in counts)
    # the report and the JSON carry it too
    md = (adapted.out / "report.md").read_text()
    assert "ΔGood after adaptation [95% CI]" in md and ad["levers"] and \
        "After adaptation (the 2 largest levers)" in md and "3 generations x 20 games" in md
    d = json.loads(json.dumps(adapted.to_dict(), default=str))
    assert [x["label"] for x in d["verdict"]["levers"] if x.get("adapted")] == [x["label"] for x in ad["levers"]]


@pytest.mark.slow
def test_a_resumed_sweep_does_not_tune_again(adapted, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(adapted.out, out)
    tunes = [out / x["tune"]["folder"] for x in adapted.manifest["adaptation"]["levers"]]
    stamps = {p: p.stat().st_mtime_ns for t in tunes for p in t.iterdir()}
    again = api.sweep("minas-tirith", resume=out, threads=2)
    ad = again.manifest["adaptation"]
    assert ad["played"] == 0 and _same(ad, adapted.manifest["adaptation"])
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    # stopped after the tunes but before the adaptations were stored: the tunes' state is reused
    state = json.loads((out / "adapt" / "state.json").read_text())
    state["adapted"] = {}
    (out / "adapt" / "state.json").write_text(json.dumps(state))
    shutil.rmtree(out / "adapt" / "figure")
    again = api.sweep("minas-tirith", resume=out, threads=2)
    assert _same(again.manifest["adaptation"], adapted.manifest["adaptation"])
    for t in tunes:
        m = json.loads((t / "manifest.json").read_text())
        assert m["last_run"]["games_played"] == 0         # no generation played again
        assert (t / "history.jsonl").stat().st_mtime_ns == stamps[t / "history.jsonl"]


@pytest.mark.slow
def test_no_adapt_leaves_the_lines_as_they_were(adapted, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(adapted.out, out)
    plain = api.sweep("minas-tirith", resume=out, adapt_levers=0, threads=2)
    assert "adaptation" not in plain.manifest and plain.verdict["adaptation"] is None
    m = {k: v for k, v in adapted.manifest.items() if k != "adaptation"}
    assert plain.verdict["lines"] == verdict(adapted.results, m)["lines"]
    assert not any("after adaptation:" in ln for ln in plain.verdict["lines"])
    # the same lines with the figures taken out
    stripped = [ln.split("; after adaptation: ")[0] for ln in adapted.verdict["lines"]
                if not ln.startswith("After adaptation")]
    assert plain.verdict["lines"] == stripped
    # asked again, the stored adaptations come back without a game played
    back = api.sweep("minas-tirith", resume=out, adapt_levers=2, threads=2)
    assert back.manifest["adaptation"]["played"] == 0
    assert _same(back.manifest["adaptation"], adapted.manifest["adaptation"])


@pytest.mark.slow
def test_interrupted_then_resumed_on_one_thread_is_bit_identical(adapted, tmp_path, monkeypatch):
    out = tmp_path / "j1"

    def stop(*a, **k):
        raise KeyboardInterrupt
    with monkeypatch.context() as mp:
        mp.setattr(sweep_adapt, "_figure", stop)
        with pytest.raises(Interrupted, match=f"continue with: lotr-sim sweep --resume {out}"):
            _run(out, threads=1)
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert len(json.loads((out / "adapt" / "state.json").read_text())["adapted"]) == 2
    res = api.sweep("minas-tirith", resume=out, threads=1)
    ad, ref = res.manifest["adaptation"], adapted.manifest["adaptation"]
    figure_games = sum(x["figure"]["games"] + x["figure"]["base_games"] for x in ad["levers"] if x["figure"])
    assert ad["played"] == figure_games           # only the figure's games were left to play
    assert _same(ad, ref)
    assert res.results.drop(columns=["rounds_hist"]).equals(adapted.results.drop(columns=["rounds_hist"]))
