"""The torch a project targets (``target-torch``), as Ruff has ``target-version`` for Python.

Fixes must only write APIs that exist in the torch the project runs. The
version is read from ``[tool.trainlint] target-torch`` when given (or a rule's
own ``options.<rule>.target-torch``); otherwise from the project's own
dependency on torch, the lowest version it allows: ``[project] dependencies``
of the ``pyproject.toml`` and the ``requirements*.txt`` files in the
configuration's folder (the working directory without a configuration). When
nothing says, :data:`ASSUMED_TORCH` is assumed: the oldest torch whose APIs
the fixes may write (``torch.autocast`` arrived in 1.10), so that a fix never
writes something the project's torch lacks.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from trainlint.rule_option import Option

Version = Tuple[int, int]
ASSUMED_TORCH: Version = (1, 10)
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)(?:\.\d+)*\s*$")
# `torch>=2.1,<3`, `torch[opt-einsum]==2.0.1 ; python_version >= "3.9"`, `torch ~= 2.2`: not torchvision, torch-geometric.
_TORCH_REQUIREMENT = re.compile(r"^\s*torch(?![\w.-])\s*(?:\[[^\]]*\])?\s*(?P<specifiers>[^;#@]*)", re.IGNORECASE)
_LOWER_BOUND = re.compile(r"(?:>=|==|~=|===|>)\s*(\d+)\.(\d+)")


def parse_torch_version(text: str) -> Optional[Version]:
    """``"2.3"`` or ``"2.3.1"`` as ``(2, 3)``; None for anything else (the empty string: not given)."""
    match = _VERSION.match(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


TARGET_TORCH_OPTION = Option(
    "",
    "The torch version fixes may rely on (\"2.3\"); empty: read from the project's dependency on torch, "
    f"else {ASSUMED_TORCH[0]}.{ASSUMED_TORCH[1]}",
    kind=str,
    check=lambda value: value == "" or parse_torch_version(value) is not None,
    requirement='a torch version such as "2.3"',
)


def declared_torch(folder: Path) -> Optional[str]:
    """The lowest torch version the project in ``folder`` allows, as ``"2.1"``; None when nothing bounds it."""
    bounds = [bound for line in _requirement_lines(folder) for bound in _lower_bounds(line)]
    return f"{min(bounds)[0]}.{min(bounds)[1]}" if bounds else None


def _lower_bounds(requirement: str) -> List[Version]:
    match = _TORCH_REQUIREMENT.match(requirement)
    if match is None:
        return []
    return [(int(a), int(b)) for a, b in _LOWER_BOUND.findall(match.group("specifiers"))]


def _requirement_lines(folder: Path) -> Iterator[str]:
    """``[project] dependencies`` of ``folder/pyproject.toml``, then the lines of ``folder/requirements*.txt``.
    Unreadable files count as saying nothing: the project's configuration errors are reported elsewhere."""
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        from trainlint.config import tomllib_module

        tomllib = tomllib_module()
        try:
            document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            document = {}
        project = document.get("project")
        dependencies = project.get("dependencies") if isinstance(project, dict) else None
        if isinstance(dependencies, list):
            yield from (d for d in dependencies if isinstance(d, str))
    for requirements in sorted(folder.glob("requirements*.txt")):
        try:
            yield from requirements.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
