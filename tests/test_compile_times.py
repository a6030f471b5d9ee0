"""benchmarks/compile_times.py: its compile-event profile and tables, on two tiny
kernels compiled here (no game is compiled: the real measurements take minutes)."""
import importlib.util
from pathlib import Path

from numba import njit

ROOT = Path(__file__).resolve().parent.parent


def _module():
    spec = importlib.util.spec_from_file_location("compile_times", ROOT / "benchmarks" / "compile_times.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_profile_splits_a_kernel_and_its_callee():
    ct = _module()
    prof = ct.CompileProfile()
    prof.install()

    @njit
    def callee(x):
        return x * 2 + 1

    @njit
    def entry(n):
        s = 0
        for i in range(n):
            s += callee(i)
        return s

    prof.step = "entry"
    try:
        assert entry(4) == 16
    finally:
        prof.uninstall()
    rows = {r["kernel"].rsplit(".", 1)[-1]: r for r in prof.rows()}
    e, c = rows["entry"], rows["callee"]
    assert e["top"] and not c["top"] and c["parent_uid"] == e["uid"]
    assert e["incl"] >= e["excl"] + c["incl"] * 0.99 and c["excl"] > 0
    assert e["llvm_module_passes"] > 0 and e["llvm_machine_code"] > 0 and e["front_end"] > 0
    assert len(e["linked"]) >= 1     # the callee's library is linked into the entry's
    res = dict(game="tiny", steps=[dict(step="entry", wall=0.1, cpu=0.1)], kernels=prof.rows())
    text = ct.kernel_tables(res)
    assert "| entry |" in text and "Critical path" in text
    assert ct.critical_path(res["kernels"]) >= e["excl"]
    from numba.core import codegen
    assert "timed_llvm" not in codegen.CPUCodeLibrary._optimize_final_module.__qualname__
