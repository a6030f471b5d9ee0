import sys
from pathlib import Path

# the hand-made results frames live beside the experiment tests
EXP = Path(__file__).resolve().parents[1] / "experiments"
if str(EXP) not in sys.path:
    sys.path.insert(0, str(EXP))
