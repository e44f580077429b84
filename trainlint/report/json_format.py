"""A JSON list shaped like Ruff's: code, name, message, filename, location, end_location, fix, url, cell.

In a notebook, ``cell`` is the 1-based cell number (null elsewhere) and
``cell_location``/``cell_end_location`` the position within that cell;
``location``, ``end_location``, ``noqa_row`` and the fix edits are rows of the
notebook's code cells concatenated in order, as trainlint analyses them.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Sequence

from trainlint.diagnostics import Diagnostic, Location
from trainlint.report import ReportContext, rule_url


def _location(location: Location) -> Dict[str, int]:
    return {"column": location.column, "row": location.row}


def as_dict(diagnostic: Diagnostic, context: ReportContext) -> Dict[str, Any]:
    fix = None
    if diagnostic.fix is not None:
        fix = {
            "applicability": diagnostic.fix.applicability.value,
            "message": diagnostic.fix.message,
            "edits": [
                {"content": e.content, "location": _location(e.location), "end_location": _location(e.end_location)}
                for e in diagnostic.fix.edits
            ],
        }
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "filename": os.path.abspath(os.path.join(context.cwd, diagnostic.path)),
        "location": _location(diagnostic.location),
        "end_location": _location(diagnostic.end_location),
        "fix": fix,
        "noqa_row": diagnostic.location.row,
        "url": rule_url(diagnostic.code),
        "cell": None if diagnostic.cell is None else diagnostic.cell.cell,
        **_cell_locations(diagnostic),
    }


def _cell_locations(diagnostic: Diagnostic) -> Dict[str, Any]:
    if diagnostic.cell is None:
        return {}
    return {"cell_location": _location(diagnostic.cell.location), "cell_end_location": _location(diagnostic.cell.end_location)}


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    return json.dumps([as_dict(d, context) for d in diagnostics], indent=2, sort_keys=True) + "\n"
