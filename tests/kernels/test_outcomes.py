"""Named outcome columns (kernels/outcomes.py)."""
import numpy as np
import pytest

from lotr_sim.kernels.outcomes import COMMON_COLUMNS, Column, OutcomeColumns, game_column, required_columns

SIDES = ("good", "evil")


def _cols(extra=()):
    return [game_column(),
            Column("winner", np.int8, 0), Column("reason", np.int8, 1),
            Column("rounds", np.int32, 2), Column("turns", np.int32, 3),
            Column("points_good", np.int32, 4), Column("points_evil", np.int32, 5), *extra]


def test_to_dict_names_dtypes_and_values():
    oc = OutcomeColumns(SIDES, _cols([Column("lost_total", np.int32, lambda out, first: out[:, 6] + out[:, 7]),
                                      ("invariant_broken", np.int8, 8)]))
    out = np.arange(4 * 9, dtype=np.int64).reshape(4, 9)
    d = oc.to_dict(out, first=100)
    assert list(d) == list(oc.names)
    assert d["game"].tolist() == [100, 101, 102, 103] and d["game"].dtype == np.int64
    assert d["winner"].dtype == np.int8 and d["winner"].tolist() == out[:, 0].tolist()
    assert d["points_evil"].dtype == np.int32 and d["points_evil"].tolist() == out[:, 5].tolist()
    assert d["lost_total"].tolist() == (out[:, 6] + out[:, 7]).tolist()
    assert d["invariant_broken"].dtype == np.int8
    d["winner"][0] = 99                           # a copy, not a view of the kernel's matrix
    assert out[0, 0] == 0
    assert oc.width == 9
    empty = oc.to_dict(np.zeros((0, 9), dtype=np.int64), first=5)
    assert all(v.shape == (0,) for v in empty.values())


def test_common_columns_required():
    assert required_columns(SIDES) == (*COMMON_COLUMNS, "points_good", "points_evil")
    with pytest.raises(ValueError, match="points_evil"):
        OutcomeColumns(SIDES, _cols()[:-1])
    with pytest.raises(ValueError, match="game"):
        OutcomeColumns(SIDES, _cols()[1:])
    with pytest.raises(ValueError, match="points_free"):
        OutcomeColumns(("good", "evil", "free"), _cols())


def test_bad_declarations_and_matrices():
    with pytest.raises(ValueError, match="twice: winner"):
        OutcomeColumns(SIDES, _cols([Column("winner", np.int8, 0)]))
    for bad in (-1, "3", True, 1.5):
        with pytest.raises(ValueError, match="source"):
            OutcomeColumns(SIDES, _cols([Column("x", np.int8, bad)]))
    oc = OutcomeColumns(SIDES, _cols())
    with pytest.raises(ValueError, match="columns"):
        oc.to_dict(np.zeros((3, 5), dtype=np.int64))
    with pytest.raises(ValueError, match="2-D"):
        oc.to_dict(np.zeros(6, dtype=np.int64))
    short = OutcomeColumns(SIDES, _cols([Column("x", np.int8, lambda out, first: out[:1, 0])]))
    with pytest.raises(ValueError, match="'x'"):
        short.to_dict(np.zeros((3, 6), dtype=np.int64))
