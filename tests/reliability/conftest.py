"""Fixtures of the reliability tests: a working directory, and the demo or broken rules for mechanics tests.

Tests of the shell's mechanics (writes, encodings, signals) use the demo rules
of ``tests/shell/demo_rules.py`` so that they do not depend on the real rules'
precision; the fuzz tests use the real registry.
"""

from __future__ import annotations

import pytest

from tests.reliability import broken_rules
from tests.shell import demo_rules
from tests.shell.conftest import project  # noqa: F401 - the same working-directory fixture as the shell tests


@pytest.fixture
def demo_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    demo_rules.install(monkeypatch)


@pytest.fixture
def broken_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo rules plus rules whose fixes are deliberately wrong."""
    broken_rules.install(monkeypatch)
