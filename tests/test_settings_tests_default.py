"""Issue 14: how test code is treated by default.

Tests run training code for a handful of steps on tiny data, so a loss sum or
a history that "grows with the length of the run" (TL401, TL402), an
evaluation's graph (TL404) or a data set on the GPU (TL103) is true there by the
letter and worth nothing. By default the rules whose cost scales with the run
skip test files; setting ``per-file-ignores`` replaces the default, as Ruff's
list settings do.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from trainlint.config import Config
from trainlint.registry import ALL_CODES
from trainlint.settings import Overrides, build_settings


@pytest.mark.parametrize(
    "relative, skipped",
    [
        ("tests/test_callbacks.py", True),
        ("src/pkg/tests/helpers.py", True),
        ("test/test_loop.py", True),
        ("test_trainer.py", True),
        ("trainer_test.py", True),
        ("conftest.py", True),
        ("train.py", False),
        ("src/pkg/testing_utils.py", False),
        ("src/contest/train.py", False),
    ],
)
def test_memory_growth_rules_skip_test_files_by_default(tmp_path: Path, relative: str, skipped: bool) -> None:
    settings = build_settings(Config(), Overrides(), tmp_path)
    codes = settings.rule_settings_for(tmp_path / relative).codes
    scaling = {"TL103", "TL401", "TL402", "TL403", "TL404", "TL405"}
    assert (scaling & codes == set()) is skipped
    assert not skipped or scaling.isdisjoint(codes)
    assert {"TL101", "TL102", "TL104", "TL201", "TL202", "TL301", "TL302"} <= codes  # crashes and wrong results: still checked


def test_setting_per_file_ignores_replaces_the_default(tmp_path: Path) -> None:
    settings = build_settings(Config(per_file_ignores=()), Overrides(), tmp_path)
    assert settings.rule_settings_for(tmp_path / "tests" / "test_callbacks.py").codes == ALL_CODES
