"""Put on PYTHONPATH by subprocess tests: every Python process started then uses the demo rules.

This lets a test run the real console script (``trainlint``, or pre-commit's
hooks calling it) against ``tests/shell/demo_rules.py`` instead of the real registry.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.shell.demo_rules import install_for_process  # noqa: E402

install_for_process()
