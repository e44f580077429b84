"""SARIF 2.1.0, for code-scanning dashboards.

In a notebook the region's lines are those of its code cells concatenated in
order (as trainlint analyses them), and the result's ``properties`` carry
``cell`` (1-based) with ``cellStartLine``/``cellStartColumn``, the position within that cell.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from trainlint import __version__
from trainlint.diagnostics import SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, Diagnostic
from trainlint.report import ReportContext, rule_url

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rules():
    from trainlint.docs import summary
    from trainlint.registry import RULES

    described = [(SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, "The file cannot be decoded or parsed.")]
    for entry in RULES:
        described.append((entry.code, entry.name, summary(entry.code)))
    return [
        {
            "id": code,
            "name": name,
            "shortDescription": {"text": summary},
            "help": {"text": f"See `trainlint rule {code}` or {rule_url(code)}"},
            "helpUri": rule_url(code),
            "defaultConfiguration": {"level": "error"},
        }
        for code, name, summary in described
    ]


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for d in diagnostics:
        uri = Path(os.path.abspath(os.path.join(context.cwd, d.path))).as_uri()
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": "error",
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {
                            "startLine": d.location.row,
                            "startColumn": d.location.column,
                            "endLine": d.end_location.row,
                            "endColumn": d.end_location.column,
                        },
                    }
                }
            ],
        }
        if d.cell is not None:
            result["properties"] = {
                "cell": d.cell.cell,
                "cellStartLine": d.cell.location.row,
                "cellStartColumn": d.cell.location.column,
                "cellEndLine": d.cell.end_location.row,
                "cellEndColumn": d.cell.end_location.column,
            }
        results.append(result)
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "trainlint",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"
