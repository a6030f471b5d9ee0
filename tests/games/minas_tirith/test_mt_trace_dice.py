"""a trace can be checked on its own. It opens with a header (game, version,
config hash, parameters that differ from the defaults, policies, seed, index), and every
assault and bombardment carries its dice faces, so that each result can be re-derived from
the trace alone by the rules (MT-7.2, MT-7.4, MT-7.5, MT-8.2)."""
import json

import numpy as np
import pytest

VARIANTS = [
    [],
    ["retreat_trigger=modified6"],
    ["leader_bonus=3", "banner_defence_bonus=2", "siege_tower_bonus=3"],
    ["leave_one_behind=true", "evil_banner_divisor=1", "mission_card_base=4"],
]


def derive_losses(e):
    """MT-7.4 from the logged faces and modifiers: highest v highest with the bonuses on the
    highest die only, then second v second when both rolled two or more; ties to the defender."""
    a = sorted(e["att_faces"], reverse=True)
    d = sorted(e["def_faces"], reverse=True)
    la = ld = 0
    if a[0] + e["att_bonus"] > d[0] + e["def_bonus"]:
        ld += 1
    else:
        la += 1
    if len(a) >= 2 and len(d) >= 2:
        if a[1] > d[1]:
            ld += 1
        else:
            la += 1
    return la, ld


def derive_sixes(faces, bonus, trigger):
    """MT-7.5 / MT-8.2: natural sixes; under modified6 also a highest die that the bonus lifts to 6."""
    n = sum(1 for f in faces if f == 6)
    if trigger == "modified6" and max(faces) < 6 and max(faces) + bonus >= 6:
        n += 1
    return n


@pytest.mark.slow
@pytest.mark.parametrize("sets", VARIANTS, ids=lambda s: ",".join(s) or "defaults")
def test_assault_and_bombard_results_follow_from_the_logged_dice(game, sets):
    comp = game.compile(game.load(None, sets))
    trigger = "modified6" if "retreat_trigger=modified6" in sets else "natural6"
    n_assault = n_bombard = n_two_pairs = n_bonus = n_six = 0
    for pol in (("random", "random"), ("greedy", "aggressive")):
        for i in range(25):
            _, events = game.play(comp, {"good": pol[0], "evil": pol[1]}, 77, i)
            for e in events:
                if e["event"] == "assault":
                    assert len(e["att_faces"]) == e["att_dice"] and len(e["def_faces"]) == e["def_dice"]
                    assert all(1 <= f <= 6 for f in e["att_faces"] + e["def_faces"])
                    assert derive_losses(e) == (e["att_losses"], e["def_losses"]), e
                    assert e["att_sixes"] == derive_sixes(e["att_faces"], e["att_bonus"], trigger), e
                    assert e["def_sixes"] == derive_sixes(e["def_faces"], e["def_bonus"], trigger), e
                    n_assault += 1
                    n_two_pairs += len(e["att_faces"]) >= 2 and len(e["def_faces"]) >= 2
                    n_bonus += e["att_bonus"] > 0 or e["def_bonus"] > 0
                    n_six += e["att_sixes"] + e["def_sixes"] > 0
                elif e["event"] == "bombard":
                    assert len(e["faces"]) == e["dice"]
                    assert e["hits"] == sum(1 for f in e["faces"] if f == 6), e
                    n_bombard += 1
    # not vacuous: many rolls of every shape were checked
    assert n_assault > 300 and n_bombard > 100 and n_two_pairs > 100 and n_bonus > 50 and n_six > 50


@pytest.mark.slow
def test_faces_are_uniform(game, comp):
    """The logged faces are the dice rolled: fair d6 (MT-3.3), |z| < 4 per face."""
    counts = np.zeros(7)
    for i in range(120):
        _, events = game.play(comp, {"good": "random", "evil": "random"}, 5, i)
        for e in events:
            for f in e.get("att_faces", []) + e.get("def_faces", []) + e.get("faces", []):
                counts[f] += 1
    n = counts.sum()
    assert n > 2000
    p = 1 / 6
    z = (counts[1:] - n * p) / np.sqrt(n * p * (1 - p))
    assert np.all(np.abs(z) < 4), z


@pytest.mark.slow
def test_logging_the_dice_does_not_change_the_game(game, comp):
    """Replaying the faces from a saved stream leaves the game's own draws untouched: traced
    games end exactly as the untraced simulation of the same (seed, index)."""
    for pol in (("random", "random"), ("greedy", "greedy")):
        pols = {"good": pol[0], "evil": pol[1]}
        sim = game.simulate(comp, pols, seed=12, first=0, n=40, threads=1)
        for i in range(40):
            row, _ = game.play(comp, pols, 12, i)
            for k in ("winner", "reason", "turns", "points_good", "points_evil"):
                assert row[k][0] == sim[k][i], (pol, i, k)


def test_header_first_and_enough_to_rerun(game, tmp_path):
    """The header names the game, version, config hash, the parameters that differ from the
    defaults, the policies, the seed and the index; re-running from it gives the same trace."""
    sets = ["mission_card_base=4", "leader_bonus=2"]
    cfg = game.load(None, sets)
    comp = game.compile(cfg)
    _, events = game.play(comp, {"good": "random", "evil": "greedy"}, 213, 132)
    h = events[0]
    assert h["event"] == "header" and events[1]["event"] == "setup"
    assert sum(1 for e in events if e["event"] == "header") == 1
    assert h["game_name"] == "minas-tirith" and h["config_hash"] == cfg.hash
    assert h["params"] == {"mission_card_base": 4, "leader_bonus": 2}
    assert h["policies"] == {"good": "random", "evil": "greedy"}
    assert (h["seed"], h["game_index"], h["game"]) == (213, 132, 132)
    from lotr_sim import __version__
    assert h["lotr_sim_version"] == __version__
    json.dumps(events)
    # re-run from the header alone
    comp2 = game.compile(game.load(None, {k: v for k, v in h["params"].items()}))
    _, again = game.play(comp2, h["policies"], h["seed"], h["game_index"])
    assert again == events


def test_default_header_has_no_changed_params(game, comp):
    _, events = game.play(comp, {"good": "greedy", "evil": "greedy"}, 1, 0)
    assert events[0]["params"] == {}


def test_cli_trace_starts_with_header(tmp_path):
    from typer.testing import CliRunner

    from lotr_sim.cli.main import app
    f = tmp_path / "t.jsonl"
    r = CliRunner().invoke(app, ["play", "-q", "--seed", "101", "--index", "3", "--good", "random",
                                 "--evil", "random", "--set", "leader_bonus=2", "--trace", str(f)])
    assert r.exit_code == 0, r.output
    first = json.loads(f.read_text().splitlines()[0])
    assert first["event"] == "header" and first["seed"] == 101 and first["game_index"] == 3
    assert first["params"] == {"leader_bonus": 2}
