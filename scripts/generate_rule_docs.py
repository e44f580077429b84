"""Write trainlint/rule_docs/<CODE>.md from the rule docstrings (the single source of the rule docs).

The pages ship inside the package, so the `url` of a JSON finding and the `helpUri` of a SARIF
rule point at a file an installed trainlint has.

    python scripts/generate_rule_docs.py          # rewrite the pages
    python scripts/generate_rule_docs.py --check  # exit 1 if a page is out of date

tests/test_rule_docs.py runs the check, so the pages cannot drift from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict

from trainlint.diagnostics import SYNTAX_ERROR_CODE
from trainlint.docs import rule_markdown, rules_table
from trainlint.registry import RULES

DOCS = Path(__file__).resolve().parent.parent / "trainlint" / "rule_docs"


def pages() -> Dict[Path, str]:
    codes = [SYNTAX_ERROR_CODE] + [entry.code for entry in RULES]
    result = {DOCS / f"{code}.md": rule_markdown(code) for code in codes}
    index = "# Rules\n\n```\n" + rules_table() + "\n```\n\n" + "".join(f"- [{code}]({code}.md)\n" for code in codes)
    result[DOCS / "README.md"] = index
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    stale = [path for path, text in pages().items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"out of date: {path.relative_to(DOCS.parent.parent)}")
        return 1 if stale else 0
    DOCS.mkdir(parents=True, exist_ok=True)
    for path in stale:
        path.write_text(pages()[path], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
