"""GitLab's Code Quality report: a JSON list of issues for the merge request widget.

Fields as GitLab documents them: ``description``, ``check_name``, ``fingerprint``
(unique per issue, and stable when lines move, so GitLab can tell new issues from
old), ``severity`` and ``location.path`` relative to the project (``$CI_PROJECT_DIR``
in a pipeline, else the working directory) with ``location.lines.begin``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Any, Dict, Sequence

from trainlint.diagnostics import Diagnostic
from trainlint.report import ReportContext


def _relative(path: str, context: ReportContext) -> str:
    absolute = os.path.abspath(os.path.join(context.cwd, path))
    project = os.environ.get("CI_PROJECT_DIR") or context.cwd
    relative = os.path.relpath(absolute, project)
    return absolute if relative.startswith(os.pardir) else relative.replace(os.sep, "/")


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    seen: Counter = Counter()
    issues = []
    for d in diagnostics:
        path = _relative(d.path, context)
        identity = (path, d.code, d.message)
        seen[identity] += 1  # the same message twice in a file gets two fingerprints
        fingerprint = hashlib.blake2b(repr((*identity, seen[identity])).encode(), digest_size=8).hexdigest()
        issue: Dict[str, Any] = {
            "description": f"{d.code}: {d.message}" + ("" if d.cell is None else f" ({d.position})"),
            "check_name": d.code,
            "fingerprint": fingerprint,
            "severity": "major",
            "location": {"path": path, "lines": {"begin": d.location.row, "end": d.end_location.row}},
        }
        issues.append(issue)
    return json.dumps(issues, indent=2) + "\n"
