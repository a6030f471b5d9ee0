"""Tuned players: the weight tables of every game (``games.weights``), the
``tuned`` / ``tuned:FILE`` / inline-weight players, and ``lotr-sim tune`` (CMA-ES self-play:
reproducible across threads, resumable after an interruption, one error line on bad input)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.errors import ConfigError, LotrSimError
from lotr_sim.games import registry
from lotr_sim.games.weights import shipped_path

runner = CliRunner()
GAMES = registry.game_names()


def _cli(args):
    r = runner.invoke(app, args, catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("name", GAMES)
def test_table_round_trips_and_covers_the_presets(name):
    g = api.get_game(name)
    t = g.policy_table
    assert t is not None and "tuned" in g.policies
    for preset in g.builtin_policies:
        rows = t.rows(preset)
        assert set(rows) == set(g.sides)
        inline = t.inline_name(rows)
        # an inline name carries exactly the tunable entries: non-tunable ones come from greedy
        back = t.rows(inline)
        for s in g.sides:
            for w in t.side_weights(s):
                assert back[s][w.index] == pytest.approx(rows[s][w.index], rel=1e-5)
    x = t.vector(t.rows("greedy"), t.tuned_sides)
    assert len(x) == len(t.slots(t.tuned_sides))
    y = t.from_vector(x, t.tuned_sides)
    for s in g.sides:
        np.testing.assert_array_equal(y[s], t.rows("greedy")[s])


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_inline_greedy_plays_greedys_games_and_other_weights_do_not(name):
    """The weights reach the engine: greedy's weights given inline play greedy's games bit
    for bit, and moving one weight changes some games."""
    g = api.get_game(name)
    t = g.policy_table
    comp = g.compile(g.load())
    same = t.inline_name(t.rows("greedy"))
    a = g.simulate(comp, {s: "greedy" for s in g.sides}, 3, 0, 300, threads=1)
    b = g.simulate(comp, {s: same for s in g.sides}, 3, 0, 300, threads=1)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    side = g.sides[0]
    rows = t.rows("greedy")
    w = t.side_weights(side)[0]
    moved = {s: r.copy() for s, r in rows.items()}
    moved[side][w.index] = w.hi if rows[side][w.index] < (w.lo + w.hi) / 2 else w.lo
    c = g.simulate(comp, {side: t.inline_name(moved), g.sides[1]: "greedy"}, 3, 0, 300, threads=1)
    assert np.any(a["winner"] != c["winner"]) or np.any(a["turns"] != c["turns"])


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_every_tunable_weight_reaches_the_engine(name):
    """No dead weight: moving any one weight of any side to one end of its range changes
    some of 300 games (any outcome column), so the tuner never searches a weight the heuristic
    ignores (e.g. a new weight declared in the table but not read by the kernel)."""
    g = api.get_game(name)
    t = g.policy_table
    comp = g.compile(g.load())
    base = {s: "greedy" for s in g.sides}
    a = g.simulate(comp, base, 3, 0, 300, threads=1)
    rows = t.rows("greedy")
    dead = []
    for side, w in t.slots(t.tuned_sides):
        changed = False
        for end in (w.lo, w.hi):     # either end: a weight may matter in one direction only
            moved = {s: r.copy() for s, r in rows.items()}
            moved[side][w.index] = end
            c = g.simulate(comp, dict(base, **{side: t.inline_name(moved)}), 3, 0, 300, threads=1)
            changed = changed or not all(np.array_equal(a[k], c[k]) for k in a if k != "game")
        if not changed:
            dead.append(f"{side}.{w.name}")
    assert not dead, f"{name}: these weights change none of 300 games: {dead}"


@pytest.mark.parametrize("name", GAMES)
def test_shipped_tuned_weights_load_and_name_the_default_rules(name):
    """``tuned`` is the shipped file; it names the rules it was tuned for. When this fails
    after a change of a default rule, re-tune: lotr-sim tune -g GAME, then copy its tuned.toml
    to configs/tuned/GAME.toml (README, 'Tuned players')."""
    g = api.get_game(name)
    tw = g.policy_table.read(shipped_path(name))
    assert tw.rules_hash == g.load().hash, f"configs/tuned/{name}.toml was tuned for other rules: re-tune"
    assert tw.provenance["games"] > 0 and tw.provenance["seed"] >= 0
    g.check_policies({s: "tuned" for s in g.sides})
    assert any(not np.array_equal(tw.rows[s], g.policy_table.rows("greedy")[s]) for s in g.sides)


def test_bad_weights_are_one_config_error(tmp_path):
    g = api.get_game("minas-tirith")
    k = len(g.policy_table.side_weights("good"))
    with pytest.raises(ConfigError, match=f"needs {k} weights"):
        g.check_policies({"good": "weights:good=0.5,1"})
    with pytest.raises(ConfigError, match="outside"):
        g.check_policies({"good": "weights:good=" + ",".join(["7"] + ["0.5"] * (k - 1))})
    with pytest.raises(ConfigError, match="no side 'frodo'"):
        g.check_policies({"good": "weights:frodo=" + ",".join(["0.5"] * k)})
    with pytest.raises(ConfigError, match="not found"):
        g.check_policies({"good": f"tuned:{tmp_path / 'none.toml'}"})
    f = tmp_path / "w.toml"
    f.write_text('game = "the-search"\n[weights.good]\nthr = 0.5\n')
    with pytest.raises(ConfigError, match="is for game 'the-search'"):
        g.check_policies({"good": f"tuned:{f}"})
    f.write_text('game = "minas-tirith"\n[weights.good]\nadv = 0.5\n')
    with pytest.raises(ConfigError, match="not a weight"):
        g.check_policies({"good": f"tuned:{f}"})
    code, _, err = _cli(["run", "-g", "minas-tirith", "-n", "10", "-q", "--good", f"tuned:{f}"])
    assert code != 0 and err.count("\n") == 1 and "adv is not a weight" in err


def test_tuned_file_round_trip_and_trace_header(tmp_path):
    g = api.get_game("minas-tirith")
    t = g.policy_table
    rows = t.rows("cautious")
    p = t.write(tmp_path / "w.toml", rows, "abc", {"seed": 4, "games": 10})
    tw = t.read(p)
    assert tw.rules_hash == "abc" and tw.provenance == {"seed": 4, "games": 10}
    for s in g.sides:
        for w in t.side_weights(s):
            assert tw.rows[s][w.index] == pytest.approx(rows[s][w.index])
    name = f"tuned:{p}"
    comp = g.compile(g.load())
    _, events = g.play(comp, {"good": name, "evil": "greedy"}, 2, 0)
    head = events[0]
    assert head["policies"]["good"] == name
    assert head["weights"][name]["good"] == pytest.approx(t.describe(name)["good"])


def _tune(tmp_path, sub, **kw):
    args = dict(generations=3, games=40, final_games=60, seed=5, popsize=4, out=tmp_path / sub)
    args.update(kw)
    return api.tune("minas-tirith", **args)


@pytest.mark.slow
def test_tune_is_reproducible_across_threads_and_writes_a_playable_file(tmp_path):
    a = _tune(tmp_path, "a", threads=1)
    b = _tune(tmp_path, "b", threads=2)
    assert a.name == b.name and a.history == b.history and a.final == b.final
    assert len(a.history) == 3 and (tmp_path / "a" / "history.jsonl").read_text().count("\n") == 3
    g = api.get_game("minas-tirith")
    tw = g.policy_table.read(a.path)
    assert tw.rules_hash == g.load().hash and tw.provenance["generations"] == 3
    assert g.policy_table.inline_name(tw.rows) == a.name
    # the file plays through the CLI like any player
    code, out, _ = _cli(["run", "-g", "minas-tirith", "-n", "50", "-q", "--json", "--good", f"tuned:{a.path}"])
    assert code == 0 and json.loads(out)["policies"]["good"] == f"tuned:{a.path}"


@pytest.mark.slow
def test_tune_resumes_after_an_interruption_to_the_same_weights(tmp_path, monkeypatch):
    full = _tune(tmp_path, "full")
    from lotr_sim.experiments import tune as T
    real = T._write_history
    calls = {"n": 0}

    def stop_after_first(outp, history):
        real(outp, history)
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(T, "_write_history", stop_after_first)
    with pytest.raises(LotrSimError, match="1 finished generations are saved"):
        _tune(tmp_path, "cut")
    monkeypatch.setattr(T, "_write_history", real)
    res = api.tune("minas-tirith", resume=tmp_path / "cut")
    assert res.name == full.name and res.history == full.history and res.final == full.final


def test_tune_bad_input_is_one_line(tmp_path):
    cases = [
        (["tune", "-g", "minas-tirith", "-G", "0"], "--generations"),
        (["tune", "-g", "minas-tirith", "--sigma", "2"], "--sigma"),
        (["tune", "-g", "minas-tirith", "--resume", str(tmp_path / "nothing")], "no tune run"),
        (["tune", "-g", "no-such-game"], "no-such-game"),
        (["tune", "-g", "minas-tirith", "--sides", "orcs"], "--sides: no side 'orcs'"),
        (["tune", "-g", "the-search", "--sides", "sam"], "--sides: "),
        (["tune", "-g", "minas-tirith", "--start", "search"], "--start"),
        (["tune", "-g", "minas-tirith", "--opponents", "best,greedy"], "--opponents"),
        (["tune", "-g", "minas-tirith", "--opponents", "greedy,nobody"], "--opponents: 'nobody'"),
    ]
    for args, what in cases:
        code, _, err = _cli(args)
        assert code != 0 and what in err and err.strip().count("\n") == 0, (args, err)


@pytest.mark.slow
def test_tune_on_a_dask_cluster_equals_local_threads(tmp_path):
    """The candidates are inline-weight players, so Dask workers play them like any other:
    the same weights, history and final check as on local threads."""
    a = _tune(tmp_path, "local", generations=2, threads=1)
    b = _tune(tmp_path, "dask", generations=2, cluster="local", workers=2)
    assert a.name == b.name and a.history == b.history and a.final == b.final


@pytest.mark.parametrize("name", GAMES)
def test_shipped_skill_figures_name_the_default_rules_and_players(name):
    """configs/skill/GAME.toml (when shipped) is for today's default rules and covers the
    default players, so the default verdict can say how exploitable they are; re-measure
    with lotr-sim skill after a rule change (README, 'Tuned players')."""
    from lotr_sim.experiments import skillfig
    g = api.get_game(name)
    fig = skillfig.read(skillfig.shipped_path(name))
    if fig is None:
        pytest.skip(f"no skill figures shipped for {name}")
    assert fig["rules_hash"] == g.load().hash, f"configs/skill/{name}.toml was measured for other rules"
    found = skillfig.lookup(name, g.load().hash, dict(g.default_policies))
    assert found["status"] == "measured", found
    for side, x in found["sides"].items():
        assert x["lo"] <= x["gain"] <= x["hi"] and x["games"] > 0


def test_tied_sides_are_tuned_on_every_side(tmp_path, monkeypatch):
    """The Search tunes one row for both hobbits (tie_sides), but each candidate still plays
    as Frodo and as Sam; the provenance counts the games actually played."""
    from lotr_sim.experiments import tune as T
    real, seen = T._score_games, []

    def spy(game, be, compiled, seed, first, n, players, opponents, sides, *rest):
        seen.append((len(players), len(opponents), tuple(sides), n))
        return real(game, be, compiled, seed, first, n, players, opponents, sides, *rest)

    monkeypatch.setattr(T, "_score_games", spy)
    res = api.tune("the-search", generations=2, games=20, popsize=2, final_games=20, out=tmp_path / "t")
    assert all(sides == ("frodo", "sam") for _, _, sides, _ in seen)
    played = sum(p * o * len(s) * n for p, o, s, n in seen)      # the final check included
    assert api.get_game("the-search").policy_table.read(res.path).provenance["games"] == played


def test_one_side_tuned_from_a_start_player_against_its_own_pool(tmp_path, monkeypatch):
    """--sides good --start tuned --opponents greedy: only Good's weights move, Evil keeps the
    start player's, every candidate plays Good only and meets greedy only; the file says so."""
    from lotr_sim.experiments import tune as T
    real, seen = T._score_games, []

    def spy(game, be, compiled, seed, first, n, players, opponents, sides, *rest):
        seen.append((tuple(opponents), tuple(sides), tuple(players)))
        return real(game, be, compiled, seed, first, n, players, opponents, sides, *rest)

    monkeypatch.setattr(T, "_score_games", spy)
    res = api.tune("minas-tirith", generations=2, games=20, popsize=2, final_games=20, out=tmp_path / "t",
                   sides=["good"], start="tuned", opponents=["greedy"])
    gen = seen[:-1]                          # the last call is the final check on every side
    assert len(gen) == 2 and all(o == ("greedy",) and s == ("good",) for o, s, _ in gen)
    t = api.get_game("minas-tirith").policy_table
    got, start = t.read(res.path), t.rows("tuned")
    assert np.array_equal(got.rows["evil"], start["evil"])
    # the candidates moved Good's weights only (whether 20 games a candidate find better ones
    # in two generations is luck)
    cands = [t.rows(p) for _, _, ps in gen for p in ps]
    assert all(np.array_equal(r["evil"], start["evil"]) for r in cands)
    assert any(not np.array_equal(r["good"], start["good"]) for r in cands)
    prov = got.provenance
    assert prov["tuned_sides"] == ["good"] and prov["start"] == "tuned" and prov["opponents"] == "greedy"
    # 4 players a generation; final: the tuned weights, greedy and the start player x 2 sides
    played = sum(1 for _ in gen) * (2 + 2) * 20 + 3 * 20 * 2
    assert prov["games"] == played


def _tuned_skill_figures(tmp_path, monkeypatch):
    """Skill figures of Minas Tirith's tuned players, measured for today's rules, weights and
    search player, standing in for the shipped file: (skillfig, game, rules hash, figures, path)."""
    from lotr_sim.experiments import skillfig
    g = api.get_game("minas-tirith")
    rules = g.load().hash
    x = dict(gain=0.1, lo=0.0, hi=0.2, games=100)
    fig = dict(game=g.name, rules_hash=rules, date="2026-12-03", strong="search", games_per_pairing=100,
               strong_settings=skillfig.strong_fingerprint(g.name, "search"),
               players={"tuned": {"good": x, "evil": x}}, weights={"tuned": skillfig.weights_of(g.name, "tuned")})
    path = tmp_path / "skill.toml"
    monkeypatch.setattr(skillfig, "shipped_path", lambda game: path)
    skillfig.write(path, fig)
    assert skillfig.lookup(g.name, rules, {"good": "tuned", "evil": "tuned"})["status"] == "measured"
    return skillfig, g, rules, fig, path


def test_skill_figures_of_other_weights_are_not_cited(tmp_path, monkeypatch):
    """Skill figures carry each player's weights fingerprint: after a re-tune, the figures
    measured for the old tuned weights are 'not measured for these tuned weights', not cited."""
    skillfig, g, rules, fig, path = _tuned_skill_figures(tmp_path, monkeypatch)
    fig["weights"] = {"tuned": skillfig.weights_of(g.name, "greedy")}    # measured for other weights
    skillfig.write(path, fig)
    found = skillfig.lookup(g.name, rules, {"good": "tuned", "evil": "tuned"})
    assert found["status"] == "not measured" and "tuned weights" in found["why"]
    assert skillfig.weights_of(g.name, "search") is None     # not a player the engine plays


def test_skill_figures_of_another_search_player_are_not_cited(tmp_path, monkeypatch):
    """Skill figures carry the fingerprint of the search player's settings for the game: a gain
    measured by a search player with another budget (or, in LOTR Risk, another playout horizon)
    is 'not measured for this search player'; a setting the game does not take (a horizon in
    Minas Tirith) does not change the fingerprint. The shipped figures name today's player."""
    from lotr_sim.experiments.skillfig import shipped_path
    from lotr_sim.games import players
    skillfig, g, rules, fig, path = _tuned_skill_figures(tmp_path, monkeypatch)
    assert skillfig.read(path)["strong_settings"] == fig["strong_settings"]
    entry = players.PLAYERS["search"]
    lr_before = skillfig.strong_fingerprint("lotr-risk", "search")
    monkeypatch.setitem(players.PLAYERS, "search", entry._replace(settings={**entry.settings, "horizon": 3}))
    assert skillfig.lookup(g.name, rules, {"good": "tuned", "evil": "tuned"})["status"] == "measured"
    assert skillfig.strong_fingerprint("lotr-risk", "search") != lr_before
    monkeypatch.setitem(players.PLAYERS, "search", entry._replace(settings={**entry.settings, "budget": 96}))
    found = skillfig.lookup(g.name, rules, {"good": "tuned", "evil": "tuned"})
    assert found["status"] == "not measured" and "this search player" in found["why"]
    monkeypatch.setitem(players.PLAYERS, "search", entry)
    for name in ("minas-tirith", "lotr-risk", "the-search"):
        shipped = skillfig.read(shipped_path(name))
        assert shipped["strong_settings"] == skillfig.strong_fingerprint(name, shipped["strong"]), name


def test_weighted_pool_scores_the_mixture_and_decides_the_best_by_it(tmp_path):
    """A pool of fixed opponents weighted 0 and 1 tunes exactly as the weighted one alone: its
    score and the choice of the best weights follow the weights, not the pool's first entry."""
    kw = dict(generations=2, games=20, popsize=2, final_games=20, sides=["evil"], start="tuned", seed=5)
    alone = api.tune("minas-tirith", out=tmp_path / "alone", opponents=["tuned"], **kw)
    mixed = api.tune("minas-tirith", out=tmp_path / "mixed", opponents=["greedy", "tuned"],
                     opponent_weights=[0.0, 1.0], **kw)
    assert mixed.name == alone.name
    assert mixed.history == alone.history
    # the weights are kept for a resumed run
    man = json.loads((tmp_path / "mixed" / "manifest.json").read_text())
    assert man["args"]["opponent_weights"] == [0.0, 1.0]


@pytest.mark.parametrize("pool, weights, what", [
    (["greedy", "tuned"], [1.0], "2 opponents"),
    (["greedy", "best"], [1.0, 1.0], "leave 'best' out"),
    (["greedy", "tuned"], [-1.0, 2.0], "non-negative"),
    (["greedy", "tuned"], [0.0, 0.0], "not all 0"),
])
def test_bad_opponent_weights_are_one_error(tmp_path, pool, weights, what):
    with pytest.raises(LotrSimError, match=what):
        api.tune("minas-tirith", generations=1, games=10, out=tmp_path / "t", opponents=pool,
                 opponent_weights=weights)
