"""Fix figures (``experiments.fixfig``): a fix run's fixes.json, the shipped copy's lookup by
rules and players, and the "Suggested fixes" block a sweep's verdict builds from it.

The sample ``fixtures/fixes-minas-tirith.json`` is the fixes.json of a small Minas Tirith fix
run (300 screening games a rule set, 600 to confirm and on fresh games, 2 x 40 adaptation:
wide intervals); the tests set its identity (game, rules hash, players) to the one they look up."""
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakegame import FIX_SWEEP
from framebuild import MANIFEST, frame, row
from lotr_sim import api
from lotr_sim.errors import LotrSimError
from lotr_sim.experiments import fixfig
from lotr_sim.experiments.verdict import verdict

SAMPLE = Path(__file__).resolve().parent / "fixtures" / "fixes-minas-tirith.json"
runner = CliRunner()

SWEEP = FIX_SWEEP


def sample() -> dict:
    return json.loads(SAMPLE.read_text())


def ship(tmp_path, monkeypatch, **identity) -> Path:
    """The sample with ``identity`` (game, rules_hash, players, weights...) as the shipped figures."""
    path = tmp_path / "shipped.json"
    fixfig.write(path, {**sample(), **identity})
    monkeypatch.setattr(fixfig, "shipped_path", lambda game: path)
    return path


@pytest.mark.slow
def test_a_fix_run_writes_its_figures_for_the_sweeps_baseline_rules(fake, tmp_path):
    """fixes.json of a fix run names the rules hash a sweep of the same sweep file keeps for
    its baseline (so the sweep's verdict finds it), the players, each fix as found (Good's
    rate on fresh games) and the cells of the best pair: every rule set played changing only
    its two levers. Written and read back, the figures are the same."""
    sf = tmp_path / "fake.toml"
    sf.write_text(SWEEP)
    r = api.fix(fake, sweep_file=sf, out=tmp_path / "fx", games=1000, confirm_games=4000, final_games=4000,
                max_levers=2, adapt=False, threads=1)
    fig = fixfig.read(tmp_path / "fx" / fixfig.FILE)
    s = api.sweep(fake, games=50, sweep_file=sf, out=tmp_path / "sw", run=api.RunOptions(threads=1))
    assert fig["rules_hash"] == s.manifest["config"]["hashes"]["baseline"]
    assert fig["game"] == "fake" and fig["players"] == {"good": "greedy", "evil": "greedy"}
    assert [f["set"] for f in fig["fixes"]] == [f["set"] for f in r.fixes] == [{"edge": 0.15},
                                                                           {"mode": "tilted", "edge": 0.05}]
    for f, g in zip(fig["fixes"], r.fixes):
        assert f["good"]["rate"] == pytest.approx(g["good"]["rate"], abs=1e-6)
        assert f["good"]["games"] == 4000 and f["adapted"] is None and f["search"] is None
    pair = fig["best_pair"]
    assert pair["levers"] == ["mode", "edge"] and pair["fix"] == {"mode": "tilted", "edge": 0.05}
    played = {p["change"]: p for p in r.played if not set(p["set"]) - {"mode", "edge"}}
    assert len(pair["cells"]) == len(played) >= 4         # the defaults, the singles and the pairs played
    for c in pair["cells"]:
        assert c["wins"] == round(c["rate"] * c["games"]) and set(c["set"]) == {"mode", "edge"}
    assert fig["baseline"]["rate"] == pytest.approx(r.baseline["rate"], abs=1e-6)
    again = fixfig.read(fixfig.write(tmp_path / "again.json", fig))
    assert again == fig and again["fixes"][1]["set"]["edge"] == 0.05


def test_figures_read_back_as_written(tmp_path):
    """write then read gives the same figures, lever values of every type and nulls
    included; a file of another layout is one error naming it."""
    fig = fixfig.read(SAMPLE)
    assert fig["format"] == fixfig.FORMAT and fig["game"] == "minas-tirith" and fig["fixes"]
    fig["fixes"][0]["set"] = {"leave_one_behind": True, "leader_bonus": 2, "x": 0.5, "mode": "off"}
    fig["fixes"][0]["adapted"] = None
    assert fixfig.read(fixfig.write(tmp_path / "f.json", fig)) == fig
    (tmp_path / "g.json").write_text(json.dumps({"format": 99, "fixes": []}))
    with pytest.raises(LotrSimError, match="not fix figures of format 1"):
        fixfig.read(tmp_path / "g.json")


def test_lookup_refuses_other_rules_players_and_weights(tmp_path, monkeypatch):
    """The shipped fixes are cited only for the rules hash and the players (and those players'
    weights) they were searched with; otherwise lookup says which differs."""
    from lotr_sim.experiments.skillfig import weights_of
    tuned = weights_of("minas-tirith", "tuned")
    assert tuned is not None
    pol = {"good": "tuned", "evil": "tuned"}
    ship(tmp_path, monkeypatch, game="minas-tirith", rules_hash="r1", players=pol, weights={"tuned": tuned})
    found = fixfig.lookup("minas-tirith", "r1", pol)
    assert found["status"] == "measured" and found["fixes"] == sample()["fixes"]
    other = fixfig.lookup("minas-tirith", "r2", pol)
    assert other["status"] == "not measured" and "other rules" in other["why"]
    other = fixfig.lookup("minas-tirith", "r1", {"good": "greedy", "evil": "tuned"})
    assert other["status"] == "not measured" and "other players (good=tuned, evil=tuned)" in other["why"]
    ship(tmp_path, monkeypatch, game="minas-tirith", rules_hash="r1", players=pol, weights={"tuned": "0" * 16})
    other = fixfig.lookup("minas-tirith", "r1", pol)
    assert other["status"] == "not measured" and "other tuned weights" in other["why"]


def test_lookup_without_a_shipped_file_or_with_a_broken_one(tmp_path, monkeypatch):
    monkeypatch.setattr(fixfig, "shipped_path", lambda game: tmp_path / "none.json")
    assert fixfig.lookup("minas-tirith", "r1", {}) == dict(status="not measured",
                                                         why="no fixes shipped for minas-tirith")
    bad = tmp_path / "bad.json"
    bad.write_text('{"fixes": ')
    monkeypatch.setattr(fixfig, "shipped_path", lambda game: bad)
    found = fixfig.lookup("minas-tirith", "r1", {})
    assert found["status"] == "not measured" and f"cannot read {bad}" in found["why"]


def test_search_figures_of_another_search_player_are_dropped(tmp_path, monkeypatch):
    ship(tmp_path, monkeypatch, game="fake", rules_hash="r1", players={"good": "greedy", "evil": "greedy"},
         search_settings="0" * 16)
    found = fixfig.lookup("fake", "r1", {"good": "greedy", "evil": "greedy"})
    assert found["status"] == "measured" and all(f["search"] is None for f in found["fixes"])
    assert "other settings" in found["search_note"]


# --- the sweep's verdict --------------------------------------------------------------------

def _frame():
    dims = {"x": 1}
    return frame([row(0, "baseline", "baseline", dims, 4000, (1200, 2600, 200)),
                  row(1, "x=2", "x", {"x": 2}, 4000, (1400, 2400, 200), delta=(200, 0))])


def _manifest(rules="r1"):
    return dict(MANIFEST, config={"hashes": {"baseline": rules, "x=2": "r9"}})


def test_verdict_suggests_the_shipped_fixes_right_under_its_headline(tmp_path, monkeypatch):
    """With fixes shipped for the baseline's rules and players, the verdict's lines after the
    headline (sentence, baseline, players) are the suggested fixes: where they come from, then
    one line per fix with Good's rate with the default players, after adaptation and under
    search, as the figures give them."""
    ship(tmp_path, monkeypatch, game="fake", rules_hash="r1", players={"good": "greedy", "evil": "greedy"})
    v = verdict(_frame(), _manifest())
    sf = v["suggested_fixes"]
    assert sf["status"] == "measured"
    lines = v["lines"]
    assert lines[2].startswith("AI players:")
    fig = sample()
    n = len(fig["fixes"])
    assert lines[3].startswith("Suggested fixes for these rules and players (Good within ±1 point of 50%; "
                               f"lotr-sim fix run of {fig['date']}, seed {fig['seed']}, "
                               f"{fig['games']['played']:,} games)")
    ci = lambda r: f"{100 * r['rate']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"  # noqa: E731
    for ln, f in zip(lines[4:4 + n], fig["fixes"]):
        g, a, se = f["good"], f["adapted"], f["search"]
        want = (f"- {f['change']}: Good {ci(g)}{'' if g['confirmed'] else ' (not confirmed)'} with the default "
                f"players; after adaptation {ci(a)}, {'holds' if a['holds'] else 'does not hold'}; under search "
                f"{ci(se['good_search'])} as Good / {ci(se['evil_search'])} as Evil"
                + (" (search gains > 5 points)" if se["flag"] else "") + ".")
        assert ln == want
    assert sf["lines"] == lines[3:4 + n] and sf["lines"] == v["summary"][3:4 + n]


def test_verdict_points_to_lotr_sim_fix_when_none_are_shipped_for_its_rules(tmp_path, monkeypatch):
    monkeypatch.setattr(fixfig, "shipped_path", lambda game: tmp_path / "none.json")
    v = verdict(_frame(), _manifest())
    assert v["suggested_fixes"]["status"] == "not measured"
    assert v["lines"][3] == "Suggested fixes: no fixes shipped for fake (lotr-sim fix --game fake finds them)."
    assert sum(ln.startswith("Suggested fixes") for ln in v["lines"]) == 1
    ship(tmp_path, monkeypatch, game="fake", rules_hash="r1", players={"good": "greedy", "evil": "greedy"})
    v = verdict(_frame(), _manifest(rules="other"))
    date = sample()["date"]
    assert v["lines"][3] == (f"Suggested fixes: the shipped fixes (fix run of {date}) were searched from other "
                             "rules (lotr-sim fix --game fake finds them for these).")
    man = dict(_manifest(), policies={"baseline": {"good": "random", "evil": "greedy"}},
               config={"hashes": {"baseline": "r1"}, "base_sets": {"x": 1}})
    v = verdict(_frame(), man)
    assert v["lines"][3] == (f"Suggested fixes: the shipped fixes (fix run of {date}) were searched with other "
                             "players (good=greedy, evil=greedy) (lotr-sim fix --game fake --set x=1 "
                             "--policy good=random --policy evil=greedy finds them for these).")
    assert verdict(_frame(), MANIFEST)["suggested_fixes"] is None     # no rules hash: nothing to look up


@pytest.mark.slow
def test_the_cli_prints_the_fixes_after_the_headline_and_json_has_them(fake, tmp_path, monkeypatch):
    """``lotr-sim sweep`` prints the suggested fixes' lines right after the headline verdict
    lines; ``--json`` gives them as the verdict's ``suggested_fixes``."""
    from lotr_sim.cli.main import app
    ship(tmp_path, monkeypatch, game="fake", rules_hash=fake.load().hash, players={"good": "greedy", "evil": "greedy"})
    args = ["sweep", "-g", "fake", "-q", "-p", "strength=3,7", "-n", "100"]
    r = runner.invoke(app, args + ["--json", "-o", str(tmp_path / "j")])
    assert r.exit_code == 0, r.output
    js = json.loads(r.stdout)
    manifest = json.loads((tmp_path / "j" / "manifest.json").read_text())
    assert manifest["config"]["hashes"]["baseline"] == fake.load().hash
    sf = js["verdict"]["suggested_fixes"]
    assert sf["status"] == "measured" and [f["change"] for f in sf["fixes"]] == [f["change"] for f in sample()["fixes"]]
    r = runner.invoke(app, args + ["-o", str(tmp_path / "t")], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert out.index("AI players:") < out.index("Suggested fixes for these rules") < out.index("Levers")
    assert f"- {sample()['fixes'][0]['change']}: " in out


@pytest.mark.parametrize("name", ["minas-tirith", "lotr-risk", "the-search"])
def test_shipped_fixes_name_the_default_sweeps_rules_and_players(name):
    """configs/fixes/GAME.json (when shipped) is for the baseline of the game's default sweep
    (its rules and players, their weights), so a bare ``lotr-sim sweep`` suggests them; after
    a rule change or a re-tune run lotr-sim fix again and copy its fixes.json there."""
    from lotr_sim.experiments.spec import default_sweep_file, load_sweep_file
    g = api.get_game(name)
    if fixfig.read(fixfig.shipped_path(name)) is None:
        pytest.skip(f"no fixes shipped for {name}")
    d = load_sweep_file(default_sweep_file(name))
    pol = g.check_policies(dict(d.get("policies") or {}))
    found = fixfig.lookup(name, g.load(None, dict(d.get("set") or {})).hash, pol)
    assert found["status"] == "measured", found["why"] if "why" in found else found


@pytest.mark.parametrize("kept, says", [({"good": True, "evil": True}, " (Good and Evil adapted)"),
                                        ({"good": False, "evil": True}, " (Evil adapted)"),
                                        ({"good": False, "evil": False}, " (no side's re-tuned weights did better)")])
def test_a_fix_says_which_sides_adapted(kept, says):
    """The adaptation keeps a side's re-tuned weights only where they did better
    (``experiments.adapt``); the fix's line names the sides that adapted."""
    from lotr_sim.experiments.verdict import fix_cells
    ad = {"rate": 0.5, "lo": 0.49, "hi": 0.51, "games": 10_000, "holds": True}
    fig = fixfig._adapted({**ad, "kept": kept, "first_only": ad if kept["good"] else None})
    assert fig["kept"] == kept and (fig["first_only"] is not None) == kept["good"]
    f = {"change": "x=1", "good": None, "adapted": fig, "search": None}
    assert fix_cells(f, ("good", "evil"))[2] == "50.0% [49.0, 51.0], holds" + says
    assert fix_cells({**f, "adapted": {**ad}}, ("good", "evil"))[2] == "50.0% [49.0, 51.0], holds"
