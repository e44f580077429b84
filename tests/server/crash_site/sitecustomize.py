"""Put on PYTHONPATH by the server tests: in every Python process started then, TL401 crashes on
each file it runs on (its visit of each call raises), so that a test can see one rule's crash
reported as a log message while the server and the other rules carry on. Each crash is numbered
(a rule that crashes is switched off for the rest of its lint: one crash per lint), so the log
also counts the lints the server ran."""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from trainlint import registry  # noqa: E402

_load_rule = registry.load_rule
_crashes = itertools.count(1)


def _load_with_crashing_tl401(code: str):
    cls = _load_rule(code)
    if code != "TL401":
        return cls

    class Crashing(cls):
        def visit_Call(self, node) -> None:
            raise RuntimeError(f"deliberate crash {next(_crashes)} for the server tests")

    return Crashing


registry.load_rule = _load_with_crashing_tl401
