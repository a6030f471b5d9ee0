"""``tune --rounds`` (``experiments.population``): fictitious play in the weight family, the
payoff matrix of every member against every other and each side's least exploitable member."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.errors import LotrSimError
from lotr_sim.experiments import learn as LN
from lotr_sim.experiments.population import MATRIX_FIRST, maximin, zero_sum

runner = CliRunner()


def _cli(args):
    r = runner.invoke(app, args, catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def test_zero_sum_value_and_mixtures_of_known_games():
    # matching pennies: value 1/2, both mix evenly
    v, x, y = zero_sum(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert v == pytest.approx(0.5) and x == pytest.approx([0.5, 0.5]) and y == pytest.approx([0.5, 0.5])
    # a saddle point at (1, 0): row 1 guarantees 0.6, column 0 holds the rows to 0.6
    m = np.array([[0.4, 0.9], [0.6, 0.7]])
    v, x, y = zero_sum(m)
    assert v == pytest.approx(0.6) and x == pytest.approx([0, 1]) and y == pytest.approx([1, 0])
    assert maximin(m) == (1, 0)
    # a 2x3 game solved by hand: the rows mix 2/3, 1/3 against columns 0 and 1, value 2/3
    m = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 1.0]])
    v, x, y = zero_sum(m)
    assert v == pytest.approx(2 / 3) and x == pytest.approx([2 / 3, 1 / 3])
    assert y @ m.T @ x == pytest.approx(v) and (x @ m >= v - 1e-9).all() and (m @ y <= v + 1e-9).all()


def test_maximin_prefers_the_later_member_on_ties():
    m = np.array([[0.5, 0.5], [0.5, 0.5]])
    assert maximin(m) == (1, 1)
    m = np.array([[0.2, 0.8, 0.5], [0.4, 0.45, 0.6]])
    # rows' worst: 0.2, 0.4 -> row 1; columns' best for the rows: 0.4, 0.8, 0.6 -> column 0
    assert maximin(m) == (1, 0)


def _fp(tmp_path, sub, **kw):
    args = dict(rounds=1, generations=2, games=20, matrix_games=60, seed=3, popsize=4, start="tuned",
                out=tmp_path / sub)
    args.update(kw)
    return api.fictitious_play("minas-tirith", **args)


@pytest.mark.slow
def test_fictitious_play_matrix_picks_and_file(tmp_path):
    """The matrix holds what each pair plays on the matrix's games; the picks are its maximin
    members and the written file plays them."""
    res = _fp(tmp_path, "a", threads=2)
    g = api.get_game("minas-tirith")
    t = g.policy_table
    assert [len(res.members[s]) for s in g.sides] == [2, 2] and res.matrix.shape == (2, 2)
    start = t.rows("tuned")
    assert all(np.array_equal(res.members[s][0], start[s]) for s in g.sides)
    # the evil tuned in round 1 met the good of round 1: it is tuned against that good's weights
    comp = g.compile(g.load())
    for i in range(2):
        for j in range(2):
            name = t.inline_name({"good": res.members["good"][i], "evil": res.members["evil"][j]})
            r = g.simulate(comp, {s: name for s in g.sides}, 3, MATRIX_FIRST, 60, threads=1)
            assert res.matrix[i, j] == pytest.approx(float(LN.side_scores(g, r, "good").mean()))
    assert (res.pick["good"], res.pick["evil"]) == maximin(res.matrix)
    tw = t.read(res.path)
    assert t.inline_name(tw.rows) == res.name
    assert tw.provenance["rounds"] == 1 and tw.provenance["matrix_games"] == 60
    assert tw.provenance["games"] > 4 * 60
    i, j = res.pick["good"], res.pick["evil"]
    assert res.exploit["good"] == pytest.approx(100 * (res.matrix[:, j].max() - res.matrix[i, j]))
    assert res.exploit["evil"] == pytest.approx(100 * (res.matrix[i, j] - res.matrix[i].min()))
    man = json.loads((tmp_path / "a" / "population.json").read_text())
    assert man["status"] == "finished" and man["pick"] == {"good": i, "evil": j}
    # the same run on one thread is the same run
    b = _fp(tmp_path, "b", threads=1)
    assert np.array_equal(b.matrix, res.matrix) and b.name == res.name


@pytest.mark.slow
@pytest.mark.parametrize("against", ["all", "nash"])
def test_fictitious_play_resumes_to_the_same_end(tmp_path, against):
    full = _fp(tmp_path, "full", rounds=2, against=against)
    # a run killed after round 1's Good: its folder as it was then
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copytree(tmp_path / "full" / "round1-good", cut / "round1-good")
    man = json.loads((tmp_path / "full" / "population.json").read_text())
    man = {k: man[k] for k in ("format", "kind", "game", "package_version", "rules_hash", "params", "started",
                               "args")}
    man["status"] = "running"
    (cut / "population.json").write_text(json.dumps(man))
    code, out, err = _cli(["tune", "-g", "minas-tirith", "--resume", str(cut), "-q"])
    assert code == 0, err
    assert "least exploitable" in out
    res = json.loads((cut / "population.json").read_text())
    assert np.array_equal(np.array(res["matrix"]), full.matrix) and res["pick"] == json.loads(
        (tmp_path / "full" / "population.json").read_text())["pick"]


def test_fictitious_play_bad_input_is_one_line(tmp_path):
    cases = [
        (["tune", "-g", "the-search", "--rounds", "2"], "two sides"),
        (["tune", "-g", "minas-tirith", "--rounds", "0"], "--rounds"),
        (["tune", "-g", "minas-tirith", "--rounds", "2", "--sides", "good"], "--sides"),
        (["tune", "-g", "minas-tirith", "--rounds", "2", "--start", "nobody"], "--start"),
        (["tune", "-g", "minas-tirith", "--rounds", "2", "--final-games", "3"], "--final-games"),
    ]
    for args, what in cases:
        code, _, err = _cli(args)
        assert code != 0 and what in err and err.strip().count("\n") == 0, (args, err)
    (tmp_path / "pop").mkdir()
    (tmp_path / "pop" / "population.json").write_text("{broken")
    code, _, err = _cli(["tune", "-g", "minas-tirith", "--resume", str(tmp_path / "pop")])
    assert code != 0 and "population.json" in err and err.strip().count("\n") == 0, err
    with pytest.raises(LotrSimError, match="already holds"):
        _fp(tmp_path, "pop")


@pytest.mark.slow
def test_double_oracle_tunes_against_the_populations_equilibrium(tmp_path):
    """--against nash: round 2's tunes meet the other side's optimal mixture of the matrix so far
    (its support, weighted), and the final matrix is what each pair plays on the matrix's games."""
    res = _fp(tmp_path, "o", rounds=2, against="nash", threads=2)
    g = api.get_game("minas-tirith")
    t = g.policy_table
    assert res.matrix.shape == (3, 3)
    # Good's round-2 tune met Evil's mixture of the 2x2 matrix after round 1
    _, x, y = zero_sum(res.matrix[:2, :2])
    man = json.loads((tmp_path / "o" / "round2-good" / "manifest.json").read_text())["args"]
    keep = [j for j in range(2) if y[j] >= 1e-3]
    assert man["opponent_weights"] == pytest.approx([y[j] for j in keep])
    assert [t.rows(o)["evil"].tolist() for o in man["opponents"]] == [res.members["evil"][j].tolist() for j in keep]
    # Evil's round-2 tune met Good's mixture of the 3x2 matrix (Good's round 2 included)
    _, x, _ = zero_sum(res.matrix[:3, :2])
    man = json.loads((tmp_path / "o" / "round2-evil" / "manifest.json").read_text())["args"]
    assert man["opponent_weights"] == pytest.approx([v for v in x if v >= 1e-3])
    comp = g.compile(g.load())
    name = t.inline_name({"good": res.members["good"][2], "evil": res.members["evil"][1]})
    r = g.simulate(comp, {s: name for s in g.sides}, 3, MATRIX_FIRST, 60, threads=1)
    assert res.matrix[2, 1] == pytest.approx(float(LN.side_scores(g, r, "good").mean()))
    assert t.read(res.path).provenance["against"] == "nash"
    code, out, err = _cli(["tune", "-g", "minas-tirith", "--against", "nash"])
    assert code != 0 and "--rounds" in err
    code, out, err = _cli(["tune", "-g", "minas-tirith", "--rounds", "1", "--against", "best"])
    assert code != 0 and "--against: 'best'" in err and err.strip().count("\n") == 0
