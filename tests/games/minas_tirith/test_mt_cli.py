"""CLI: lotr-sim play / params for Minas Tirith, including bad input."""
import json

from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()


def test_params_table_and_json():
    r = runner.invoke(app, ["params", "--game", "minas-tirith"])
    assert r.exit_code == 0, r.output
    assert "retreat_trigger" in r.output and "MT-7.5" in r.output
    r = runner.invoke(app, ["params", "-g", "minas-tirith", "--json"])
    assert r.exit_code == 0
    rows = json.loads(r.output)
    names = {x["name"] for x in rows}
    assert {"creature_hits", "end_on_last_card", "leave_one_behind", "points_gate"} <= names
    row = [x for x in rows if x["name"] == "bombard_loss_choice"][0]
    assert row["default"] == "owner" and row["allowed"] == "owner|shooter" and row["rule"] == "MT-7.2"


def test_params_unknown_game():
    r = runner.invoke(app, ["params", "--game", "minas-tirit"])
    assert r.exit_code == 2
    assert "did you mean 'minas-tirith'" in r.output


def test_play_account_and_trace(tmp_path):
    f = tmp_path / "t.jsonl"
    r = runner.invoke(app, ["play", "--game", "minas-tirith", "--seed", "7", "--good", "greedy",
                            "--evil", "greedy", "--trace", str(f)])
    assert r.exit_code == 0, r.output
    assert "(round 1)" in r.output and "Game over" in r.output
    lines = f.read_text().splitlines()
    events = [json.loads(x) for x in lines]
    assert events[0]["event"] == "header" and events[1]["event"] == "setup" and events[-1]["event"] == "game_end"
    assert f"wrote {len(events)} events" in r.output
    r2 = runner.invoke(app, ["play", "-s", "7", "-q", "--good", "greedy", "--evil", "greedy"])
    assert r2.exit_code == 0
    assert r2.output.strip().splitlines()[0] in r.output


def test_play_set_and_index():
    r = runner.invoke(app, ["play", "-s", "3", "--index", "4", "--set", "retreat_trigger=off", "-q"])
    assert r.exit_code == 0, r.output
    assert "Game over" in r.output


def test_play_bad_input(tmp_path):
    r = runner.invoke(app, ["play", "--set", "hand_limt=5"])
    assert r.exit_code == 2 and "did you mean 'hand_limit'" in r.output
    assert "Traceback" not in r.output
    r = runner.invoke(app, ["play", "--set", "hand_limit=lots"])
    assert r.exit_code == 2 and "expected int" in r.output
    r = runner.invoke(app, ["play", "--set", "hand_limit"])
    assert r.exit_code == 2 and "name=value" in r.output
    r = runner.invoke(app, ["play", "--good", "genius"])
    assert r.exit_code == 2 and "unknown policy 'genius'" in r.output
    bad = tmp_path / "bad.toml"
    bad.write_text('[board]\ngrond_territory = "Nowhere"\n')
    r = runner.invoke(app, ["play", "--config", str(bad)])
    assert r.exit_code == 2 and "unknown territory 'Nowhere'" in r.output
    r = runner.invoke(app, ["play", "--seed", "-1"])
    assert r.exit_code == 2 and "seed" in r.output
