"""Discovery of the rule fixtures in ``fixtures/`` and their ``# expect:`` markers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Set, Tuple

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_MARKER = re.compile(r"#\s*expect:\s*(?P<codes>TL\d{3}(?:\s*,\s*TL\d{3})*)")


def rule_dirs() -> List[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir() and re.match(r"TL\d{3}_", p.name))


def code_of(path: Path) -> str:
    directory = path if path.is_dir() else path.parent
    return directory.name.split("_", 1)[0]


def bad_cases(directory: Path = None) -> List[Path]:
    dirs = [directory] if directory else rule_dirs()
    return sorted(p for d in dirs for p in d.glob("bad_*.py") if not p.name.endswith(".fixed.py"))


def ok_cases(directory: Path = None) -> List[Path]:
    dirs = [directory] if directory else rule_dirs()
    return sorted(p for d in dirs for p in d.glob("ok_*.py"))


def snapshot_of(bad: Path) -> Path:
    return bad.with_name(bad.name[: -len(".py")] + ".fixed.py")


def expected_findings(text: str) -> Set[Tuple[int, str]]:
    found = set()
    for row, line in enumerate(text.splitlines(), start=1):
        match = _MARKER.search(line)
        if match:
            found.update((row, code.strip()) for code in match.group("codes").split(","))
    return found


def case_id(path: Path) -> str:
    return f"{path.parent.name.split('_', 1)[0]}/{path.name}"


# --- notebooks: fixtures/notebooks/bad_<CODE>_<case>.ipynb, their .fixed.ipynb snapshots, ok_*.ipynb ---

NOTEBOOKS = FIXTURES / "notebooks"


def notebook_bad_cases() -> List[Path]:
    return sorted(p for p in NOTEBOOKS.glob("bad_*.ipynb") if not p.name.endswith(".fixed.ipynb"))


def notebook_ok_cases() -> List[Path]:
    return sorted(NOTEBOOKS.glob("ok_*.ipynb"))


def notebook_code_of(path: Path) -> str:
    """``bad_TL401_running_loss.ipynb`` -> ``TL401``."""
    return path.name.split("_")[1]


def notebook_snapshot_of(bad: Path) -> Path:
    return bad.with_name(bad.name[: -len(".ipynb")] + ".fixed.ipynb")


def notebook_expected_findings(document: dict) -> Set[Tuple[int, int, str]]:
    """(cell number, row in cell, code) of every ``# expect:`` marker in a code cell; cells count from 1."""
    found = set()
    for number, cell in enumerate(document["cells"], start=1):
        if cell["cell_type"] != "code":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        found.update((number, row, code) for row, code in expected_findings(source))
    return found
