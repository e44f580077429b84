"""Every shell test runs with the demo rules in place of the real registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shell import demo_rules


@pytest.fixture(autouse=True)
def demo_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    demo_rules.install(monkeypatch)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder as the working directory, with the variables that change the output cleared."""
    monkeypatch.chdir(tmp_path)
    for variable in ("NO_COLOR", "FORCE_COLOR", "TRAINLINT_OUTPUT_FORMAT", "TRAINLINT_NO_CACHE", "TRAINLINT_CACHE_DIR", "TRAINLINT_OUTPUT_FILE"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path
