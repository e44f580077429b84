"""The plain-data results of a lint run.

Everything here is immutable and picklable: diagnostics cross process
boundaries (the worker pool) and are stored in the cache, so they hold
positions and text edits, never CST nodes.
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Optional, Tuple


class Applicability(str, enum.Enum):
    """How much a fix can be trusted, following Ruff's definitions.

    SAFE keeps the meaning of every correct program; UNSAFE may change
    behaviour and is applied only with ``--unsafe-fixes``.
    """

    NONE = "none"
    SAFE = "safe"
    UNSAFE = "unsafe"


class Location(NamedTuple):
    """A 1-based row and 1-based column (end columns are exclusive)."""

    row: int
    column: int


class Edit(NamedTuple):
    """Replace the text between two locations with ``content``."""

    content: str
    location: Location
    end_location: Location


class FixSummary(NamedTuple):
    """What a fix would change, as text edits against the original source."""

    applicability: Applicability
    message: str
    edits: Tuple[Edit, ...]


class CellPosition(NamedTuple):
    """Where a finding in a Jupyter notebook is, as the notebook's reader sees it: the cell (1-based,
    counting every cell, markdown too, as Ruff does) and the location within that cell's source."""

    cell: int
    location: Location
    end_location: Location


class Diagnostic(NamedTuple):
    """One finding. In a notebook, ``location`` and ``end_location`` are rows of the notebook's code
    cells concatenated in order (as trainlint analyses and fixes them), and ``cell`` says where that is."""

    path: str
    code: str
    name: str
    message: str
    location: Location
    end_location: Location
    fix: Optional[FixSummary] = None
    cell: Optional[CellPosition] = None

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.location, self.code, self.message)

    @property
    def position(self) -> str:
        """``row:column``, or ``cell N:row:column`` in a notebook: what follows the path in a report."""
        if self.cell is None:
            return f"{self.location.row}:{self.location.column}"
        return f"cell {self.cell.cell}:{self.cell.location.row}:{self.cell.location.column}"

    def is_fixable(self, unsafe_fixes: bool) -> bool:
        if self.fix is None:
            return False
        return self.fix.applicability is Applicability.SAFE or unsafe_fixes


SYNTAX_ERROR_CODE = "TL001"
SYNTAX_ERROR_NAME = "syntax-error"


def syntax_error(path: str, row: int, column: int, message: str) -> Diagnostic:
    location = Location(row, column)
    return Diagnostic(path, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, message, location, location)
