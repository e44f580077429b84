"""Put on PYTHONPATH by the server tests: in every Python process started then, TL401 misbehaves on
each file it runs on, in one of two ways chosen by the environment variable TRAINLINT_TEST_TL401.

``crash`` (the default): its visit of each call raises, so that a test can see one rule's crash
reported as a log message while the server and the other rules carry on. Each crash is numbered
(a rule that crashes is switched off for the rest of its lint: one crash per lint), so the log
also counts the lints the server ran.

``slow``: its visit of each call sleeps SLOW_VISIT_SECONDS and then writes ``slow TL401 visit:
lint N`` to stderr (N numbers the lints), so that a test can edit a document while its lint runs
and count how far each lint got.
"""

import itertools
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from trainlint import registry  # noqa: E402

SLOW_VISIT_SECONDS = 0.2
_load_rule = registry.load_rule
_crashes = itertools.count(1)
_lints = itertools.count(1)


def _load_with_misbehaving_tl401(code: str):
    cls = _load_rule(code)
    if code != "TL401":
        return cls
    if os.environ.get("TRAINLINT_TEST_TL401") == "slow":
        lint = next(_lints)  # rules are loaded once per lint

        class Slow(cls):
            def visit_Call(self, node) -> None:
                time.sleep(SLOW_VISIT_SECONDS)
                print(f"slow TL401 visit: lint {lint}", file=sys.stderr, flush=True)

        return Slow

    class Crashing(cls):
        def visit_Call(self, node) -> None:
            raise RuntimeError(f"deliberate crash {next(_crashes)} for the server tests")

    return Crashing


registry.load_rule = _load_with_misbehaving_tl401
