"""Rule documentation for ``trainlint rule`` and ``trainlint rules``: the rule docstrings.

The same text ships as pages in ``trainlint/rule_docs/`` (written by scripts/generate_rule_docs.py
from :func:`rule_markdown` and :func:`rules_table`; tests/test_rule_docs.py keeps them equal).
``trainlint rule`` and ``trainlint rules`` print the pages: importing the rules to read their
docstrings would import LibCST and the analyses, ~0.4 s for a command that parses nothing.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Dict, List, Optional

from trainlint.diagnostics import Applicability, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME
from trainlint import registry

SYNTAX_ERROR_DOC = """## What it does
Reports a file that cannot be decoded (a wrong PEP 263 declaration, invalid
UTF-8, a binary file) or parsed. It is always on and cannot be suppressed.

## Why is this bad
No other rule can look at a file that does not parse; the finding says where
the parser stopped. The file is never fixed, and the run goes on with the other files.
"""

_FIX_AVAILABILITY = {
    Applicability.NONE: "Fix is not available.",
    Applicability.SAFE: "Fix is sometimes available (see Fix safety).",
    Applicability.UNSAFE: "Fix is sometimes available with `--unsafe-fixes` (see Fix safety).",
}


PAGES = Path(__file__).resolve().parent / "rule_docs"
_INDEX = "README.md"


def rule_page(code: str) -> str:
    """The documentation of the rule ``code`` (from :func:`find_code`): its shipped page, or, for a rule
    that has none (a registry other than the shipped one), the docstring itself."""
    try:
        return (PAGES / f"{code}.md").read_text(encoding="utf-8")
    except OSError:
        return rule_markdown(code) or ""


def rules_listing() -> str:
    """The table of ``trainlint rules``: the one in the shipped index page when it lists exactly the
    registry's rules, else :func:`rules_table` from the rules themselves."""
    try:
        index = (PAGES / _INDEX).read_text(encoding="utf-8")
    except OSError:
        return rules_table()
    table = index.partition("```\n")[2].partition("\n```")[0]
    codes = [line.split(" ", 1)[0] for line in table.splitlines()[1:]]
    return table if codes == all_codes() else rules_table()


def rule_markdown(code_or_name: str) -> Optional[str]:
    if code_or_name.upper() == SYNTAX_ERROR_CODE or code_or_name.lower() == SYNTAX_ERROR_NAME:
        return f"# {SYNTAX_ERROR_NAME} ({SYNTAX_ERROR_CODE})\n\n{SYNTAX_ERROR_DOC}"
    entry = registry.find_entry(code_or_name)
    if entry is None:
        return None
    cls = registry.load_rule(entry.code)
    body = _without_evidence(inspect.cleandoc(cls.__doc__ or ""))
    options = ""
    if cls.options:
        rows = "\n".join(f"- `{name}` (default `{o.default}`): {o.help}" for name, o in cls.options.items())
        options = f"\n\n## Options\nSet under `[tool.trainlint.options.{entry.code}]`:\n{rows}"
    return f"# {entry.name} ({entry.code})\n\n{_FIX_AVAILABILITY[cls.fix]}\n\n{body}{options}\n"


def _without_evidence(body: str) -> str:
    """The docstring without its "## Evidence" section, which names the repository's tests and
    fixtures: an installed trainlint has neither, and users read these pages there."""
    head, found, rest = body.partition("## Evidence")
    if not found:
        return body
    following = rest.find("\n## ")
    return head.rstrip() + ("\n\n" + rest[following + 1 :] if following >= 0 else "")


def find_code(code_or_name: str) -> Optional[str]:
    """The code of the rule named by its code or name (TL001 included), or None."""
    if code_or_name.upper() == SYNTAX_ERROR_CODE or code_or_name.lower() == SYNTAX_ERROR_NAME:
        return SYNTAX_ERROR_CODE
    entry = registry.find_entry(code_or_name)
    return entry.code if entry else None


def all_codes() -> List[str]:
    """Every code ``trainlint rule --all`` documents, TL001 first."""
    return [SYNTAX_ERROR_CODE] + [entry.code for entry in registry.RULES]


def rule_record(code: str) -> Dict[str, str]:
    """A rule as ``trainlint rule --output-format json`` gives it (after Ruff's fields)."""
    from trainlint.report import rule_url

    if code == SYNTAX_ERROR_CODE:
        name, fix, summary_text = SYNTAX_ERROR_NAME, Applicability.NONE, "The file cannot be decoded or parsed."
    else:
        name, fix, summary_text = registry.ENTRIES_BY_CODE[code].name, registry.load_rule(code).fix, summary(code)
    return {
        "code": code,
        "name": name,
        "summary": summary_text,
        "fix": _FIX_AVAILABILITY[fix],
        "explanation": rule_markdown(code) or "",
        "url": rule_url(code),
    }


def unknown_rule_message(code_or_name: str) -> str:
    return f"Unknown rule `{code_or_name}`{registry.did_you_mean(code_or_name)} (see `trainlint rules`)"


def summary(code: str) -> str:
    """One sentence for ``trainlint rules`` and SARIF's ``shortDescription``: the first
    paragraph under "What it does", cut to its headline by :func:`headline`."""
    doc = inspect.cleandoc(registry.load_rule(code).__doc__ or "")
    body = doc.split("## What it does", 1)[-1].strip()
    return headline(" ".join(body.split("\n\n", 1)[0].split()))


def headline(paragraph: str) -> str:
    """The paragraph's first sentence without its details: the text ends at the first full
    stop or colon, and parenthesised asides (lists of the forms a rule knows) are dropped;
    the rule's page keeps them all. Code in backticks is never cut or dropped, whatever
    punctuation it holds."""
    kept: List[str] = []
    depth = 0  # of parentheses outside code
    in_code = False
    for index, char in enumerate(paragraph):
        ends_word = index + 1 == len(paragraph) or paragraph[index + 1] == " "
        if char == "`":
            in_code = not in_code
        elif not in_code and char == "(":
            depth += 1
            if depth == 1:
                while kept and kept[-1] == " ":
                    kept.pop()
                continue
        elif not in_code and char == ")" and depth:
            depth -= 1
            continue
        elif not in_code and not depth and char in ".:" and ends_word and not _abbreviation("".join(kept)):
            break
        if not depth:
            kept.append(char)
    text = "".join(kept).rstrip()
    return text + "." if text else ""


def _abbreviation(text: str) -> bool:
    """Does the text end in a word whose full stop is not a sentence's ("e.g.", "i.e.")?"""
    return text.endswith(("e.g", "i.e", "etc"))


def rules_table() -> str:
    rows = [(SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, "none", "The file cannot be decoded or parsed.")]
    for entry in registry.RULES:
        rows.append((entry.code, entry.name, registry.load_rule(entry.code).fix.value, summary(entry.code)))
    name_width = max(len(name) for _, name, _, _ in rows)
    header = f"{'code':<6} {'name':<{name_width}} {'fix':<6} summary"
    lines = [header] + [f"{code:<6} {name:<{name_width}} {fix:<6} {text}" for code, name, fix, text in rows]
    return "\n".join(lines)
