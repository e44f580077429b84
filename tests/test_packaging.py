"""What an installed trainlint and its metadata promise: `python -m trainlint` from a checkout,
rule pages that ship with the package, and Python versions, licence and README that agree."""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from trainlint.config import tomllib_module
from trainlint.docs import rule_markdown
from trainlint.registry import RULES
from trainlint.report import rule_url

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib_module().loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
CODES = ["TL001"] + [entry.code for entry in RULES]


def test_python_dash_m_from_the_checkout_without_the_editable_finder() -> None:
    """As with a non-editable install: ./trainlint shadows the installed package, and rules/ is
    not inside it. `-S` keeps the editable install's finder (a .pth file) out; the dependencies
    come from site-packages on PYTHONPATH."""
    site_packages = sysconfig.get_paths()["purelib"]
    env = {"PYTHONPATH": site_packages, "PATH": "/usr/bin:/bin"}
    process = subprocess.run([sys.executable, "-S", "-m", "trainlint", "rules"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    assert [line.split()[0] for line in process.stdout.splitlines()[1:]] == CODES


@pytest.mark.parametrize("code", CODES)
def test_rule_pages_ship_inside_the_package(code: str) -> None:
    """The `url` of a JSON finding (and a SARIF rule's helpUri) opens the page an installed trainlint has."""
    url = urlparse(rule_url(code))
    assert url.scheme == "file"
    page = Path(unquote(url.path))
    assert page.parent == REPO / "trainlint" / "rule_docs"
    assert page.read_text(encoding="utf-8") == rule_markdown(code)
    assert PYPROJECT["tool"]["setuptools"]["package-data"]["trainlint.rule_docs"] == ["*.md"]


@pytest.mark.parametrize("code", CODES)
def test_rule_documentation_names_no_path_of_the_repository(code: str) -> None:
    """The rule docstrings' Evidence sections point at tests/ and fixtures/, which users do not have."""
    text = rule_markdown(code)
    assert not re.search(r"\b(tests|fixtures)/", text), code
    assert "## What it does" in text


def test_python_versions_agree() -> None:
    requires = PYPROJECT["project"]["requires-python"]
    lowest = re.fullmatch(r">=3\.(\d+)", requires)
    assert lowest, requires
    minors = sorted(
        int(c.rsplit(".", 1)[1]) for c in PYPROJECT["project"]["classifiers"] if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    assert minors == list(range(int(lowest.group(1)), minors[-1] + 1))
    assert f"Python 3.{lowest.group(1)} or newer" in (REPO / "README.md").read_text(encoding="utf-8")
    assert sys.version_info >= (3, int(lowest.group(1)))


def test_the_declared_licence_is_the_licence_file() -> None:
    assert PYPROJECT["project"]["license"] == "MIT" and PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert not any(c.startswith("License ::") for c in PYPROJECT["project"]["classifiers"])  # PEP 639: the expression only
