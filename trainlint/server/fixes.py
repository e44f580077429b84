"""The new text of a document after a code action, verified as ``trainlint fix --write`` verifies a file.

A fix is offered only when its result parses and its finding is gone (the
engine's own check of a fix pass); an ignore comment only when the result
parses and the comment suppresses the finding. Anything else is refused with
the reason, never sent to the editor. Runs on the engine thread (see findings.py).
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from trainlint.engine import verified_fix_pass, fix_source, python_verdict
from trainlint.server.findings import Findings
from trainlint.suppression import is_suppressed, line_suppressions

_IGNORE_BRACKET = re.compile(r"(#\s*trainlint:\s*ignore\[)([^\]]*)(\])", re.IGNORECASE)
_LINE_END = re.compile(r"\r\n|\r|\n")


class FixedText(NamedTuple):
    """The document's new text, or None with the reason it is refused."""

    text: Optional[str]
    problem: str = ""


def fix_finding(findings: Findings, index: int) -> FixedText:
    """Apply the fix of one finding alone, and check it as one pass of ``fix --write`` is checked."""
    result, text = findings.result, findings.text
    diagnostic, fix = result.diagnostics[index], result.fixes[index]
    if fix is None:
        return FixedText(None, f"{diagnostic.code} has no fix here")
    if result.module is None or result.module.code != text:
        return FixedText(None, f"LibCST would not write {findings.path} back byte for byte, so no fix is applied")
    candidate, _, problem = verified_fix_pass(result, text, [(diagnostic, fix)], findings.path, findings.settings)
    return FixedText(None, problem) if problem else FixedText(candidate)


def fix_all(findings: Findings) -> FixedText:
    """What ``trainlint fix --write`` would write: every fix at the configured safety level, to a fixed point."""
    fixed = fix_source(findings.text, findings.path, findings.settings, findings.unsafe_fixes)
    if fixed.text != findings.text:
        return FixedText(fixed.text)
    return FixedText(None, fixed.errors[0] if fixed.errors else "nothing to fix")


def ignore_comment(findings: Findings, index: int) -> FixedText:
    """Add ``# trainlint: ignore[CODE]`` where it suppresses the finding: at the end of the finding's first
    line, else of its last (the first may end inside a multi-line string); an existing
    ``ignore[...]`` on that line gets the code added to its list."""
    diagnostic = findings.result.diagnostics[index]
    start, end = diagnostic.location.row, diagnostic.end_location.row
    for row in dict.fromkeys((start, end)):
        candidate = _with_ignore(findings.text, row, diagnostic.code)
        if candidate is None or python_verdict(candidate, findings.path)[0] is not None:
            continue
        if is_suppressed(line_suppressions(candidate), diagnostic.code, start, end):
            return FixedText(candidate)
    return FixedText(None, f"no place found for a `# trainlint: ignore[{diagnostic.code}]` comment that suppresses it")


def _with_ignore(text: str, row: int, code: str) -> Optional[str]:
    """The text with the code added to an ignore comment on ``row`` (1-based), or None if there is no such line."""
    starts = [0] + [match.end() for match in _LINE_END.finditer(text)]
    if row > len(starts):
        return None
    line_start = starts[row - 1]
    line_end = starts[row] if row < len(starts) else len(text)
    line = text[line_start:line_end]
    content = line.rstrip("\r\n")
    ending = line[len(content) :]
    existing = _IGNORE_BRACKET.search(content)
    if existing:
        codes = existing.group(2).strip()
        joined = f"{codes}, {code}" if codes else code
        content = content[: existing.start(2)] + joined + content[existing.end(2) :]
    else:
        content = f"{content.rstrip()}  # trainlint: ignore[{code}]"
    return text[:line_start] + content + ending + text[line_end:]
