"""`python fake_cli.py ARGS` == `lotr-sim ARGS` with the fake game registered (subprocess tests)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lotr_sim.games import registry  # noqa: E402

registry.register("fake", "fakegame:FakeGame")

from lotr_sim.cli.main import main  # noqa: E402

if __name__ == "__main__":
    sys.argv[0] = "lotr-sim"
    main()
