"""One JSON object a line (Ruff's ``json-lines``): the objects of the ``json`` format, compact."""

from __future__ import annotations

import json
from typing import Sequence

from trainlint.diagnostics import Diagnostic
from trainlint.report import ReportContext
from trainlint.report.json_format import as_dict


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    return "".join(json.dumps(as_dict(d, context), sort_keys=True, separators=(",", ":")) + "\n" for d in diagnostics)
