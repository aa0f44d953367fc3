"""model/compile (compiled_model / torch.compile of the textbook formula) of benchmark tables side by side:
PYTHONPATH=src python notes/2026-12-07f/compare_model.py BASE.md [BASE2.md ...] -- NEW.md [NEW2.md ...]
(the median of each side's runs per row): notes/2026-12-07g/compare_column.py for that column."""

import runpy
import sys
from pathlib import Path

sys.argv = [sys.argv[0], "--column", "model/compile", *sys.argv[1:]]
runpy.run_path(str(Path(__file__).parents[1] / "2026-12-07g" / "compare_column.py"), run_name="__main__")
