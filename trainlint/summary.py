"""The closing lines of a human-readable report, worded as Ruff's are."""

from __future__ import annotations

import json
from collections import Counter
from typing import List, Mapping, Sequence

from trainlint.diagnostics import Applicability, Diagnostic

ALL_PASSED = "All checks passed!"


def _plural(count: int, word: str) -> str:
    """``1 finding``, ``2 findings``, ``2 unsafe fixes``."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word}{'es' if word.endswith(('x', 's')) else 's'}"


def _hidden_unsafe(diagnostics: Sequence[Diagnostic], unsafe: bool) -> int:
    if unsafe:
        return 0
    return sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability is Applicability.UNSAFE)


def summary_lines(
    mode: str, diagnostics: Sequence[Diagnostic], applied: Counter, has_diff: bool, unsafe: bool, errors: int = 0
) -> List[str]:
    """The closing lines; never "All checks passed!" when an error (a file that could not be read,
    a rule that crashed) kept part of the code from being checked: the exit code is then 2."""
    lines = _outcome_lines(mode, diagnostics, applied, has_diff, unsafe)
    if not errors:
        return lines
    incomplete = f"{_plural(errors, 'error')} kept trainlint from checking everything (see stderr)."
    return [incomplete] if lines == [ALL_PASSED] else lines + [incomplete]


def _outcome_lines(mode: str, diagnostics: Sequence[Diagnostic], applied: Counter, has_diff: bool, unsafe: bool) -> List[str]:
    hidden = _hidden_unsafe(diagnostics, unsafe)
    hint = f"{_plural(hidden, 'unsafe fix')} available with `--unsafe-fixes`." if hidden else None
    fixed = sum(applied.values())
    if mode == "fix-only":  # what was fixed, not what is left (Ruff's --fix-only)
        return [f"Fixed {_plural(fixed, 'finding')}." if fixed else "No findings fixed."] + ([hint] if hint else [])
    if mode == "diff":
        line = f"Would fix {_plural(fixed, 'finding')}." if has_diff else "No fixes available."
        return [line] + ([hint] if hint else [])
    if mode == "write":
        if not diagnostics:
            return [f"Fixed {_plural(fixed, 'finding')}." if fixed else ALL_PASSED]
        lines = [f"Found {_plural(fixed + len(diagnostics), 'finding')} ({fixed} fixed, {len(diagnostics)} remaining)."]
        return lines + ([hint] if hint else [])
    if not diagnostics:
        return [ALL_PASSED]
    fixable = sum(1 for d in diagnostics if d.is_fixable(unsafe))
    lines = [f"Found {_plural(len(diagnostics), 'finding')}" + (f" ({fixable} fixable with `trainlint fix --write`)." if fixable else ".")]
    return lines + ([hint] if hint else [])


def fixes_listing(fixed_by_file: Mapping[str, Counter]) -> str:
    """--show-fixes: what was fixed, per file and rule, as Ruff lists it; a blank line before the summary."""
    from trainlint.registry import ENTRIES_BY_CODE

    total = sum(sum(counts.values()) for counts in fixed_by_file.values())
    if not total:
        return ""
    lines = [f"Fixed {_plural(total, 'finding')}:"]
    for path in sorted(fixed_by_file):
        lines.append(f"- {path}:")
        for code, count in sorted(fixed_by_file[path].items()):
            entry = ENTRIES_BY_CODE.get(code)
            lines.append(f"    {count} \u00d7 {code}" + (f" ({entry.name})" if entry else ""))
    return "\n".join(lines) + "\n\n"


def statistics_table(diagnostics: Sequence[Diagnostic], unsafe: bool, output_format: str) -> str:
    counts = Counter((d.code, d.name) for d in diagnostics)
    fixable = Counter((d.code, d.name) for d in diagnostics if d.is_fixable(unsafe))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if output_format == "json":
        data = [
            {"code": code, "name": name, "count": count, "fixable": fixable[(code, name)] > 0, "fixable_count": fixable[(code, name)]}
            for (code, name), count in rows
        ]
        return json.dumps(data, indent=2) + "\n"
    width = max((len(str(count)) for _, count in rows), default=1)
    return "".join(
        f"{count:>{width}}\t{code}\t{'[*]' if fixable[(code, name)] else '[ ]'} {name}\n" for (code, name), count in rows
    )
