"""Run check and fix over every .py file of a tree and report anything that would lose a user's trust.

For each file (read from the tree, never written back) it checks:

- crash: an exception escaped, or a rule crashed (an internal error);
- unparsable: a fix produced code that does not parse;
- not idempotent: fixing the fixed code changes it again;
- fixed finding remains: the fixed code still has a finding of a rule that was fixed;
- changed without finding: a file with no finding came out different;
- lossy: a file without fixes does not round-trip byte for byte through decode/encode.

    python scripts/fuzz_corpus.py PATH [PATH ...] [--unsafe-fixes] [--show N]

Counts are printed per category; the exit status is 1 if any problem was found.
Results on public repositories are recorded in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

from trainlint.engine import RuleSettings, fix_source, lint_source
from trainlint.registry import ALL_CODES
from trainlint.source import DecodeError, decode

PROBLEMS = ("crash", "unparsable", "not idempotent", "fixed finding remains", "changed without finding", "lossy")


def fuzz_file(path: Path, settings: RuleSettings, unsafe_fixes: bool) -> Tuple[List[str], int]:
    """The problems found in one file (empty when all is well) and its number of findings."""
    data = path.read_bytes()
    try:
        source = decode(data)
    except DecodeError:
        return [], 0  # reported as TL001; nothing to fix
    if source.encode(source.text) != data:
        return ["lossy"], 0
    name = str(path)
    checked = lint_source(source.text, name, settings)
    problems = ["crash"] if checked.errors else []
    fixed = fix_source(source.text, name, settings, unsafe_fixes)
    if any("does not parse" in error for error in fixed.errors):
        problems.append("unparsable")
    elif fixed.errors:
        problems.append("crash")
    if fixed.text == source.text:
        return problems, len(checked.diagnostics)
    if not checked.diagnostics:
        problems.append("changed without finding")
    again = fix_source(fixed.text, name, settings, unsafe_fixes)
    if again.text != fixed.text:
        problems.append("not idempotent")
    remaining = {d.code for d in lint_source(fixed.text, name, settings).diagnostics}
    if remaining & set(fixed.applied):
        problems.append("fixed finding remains")
    return problems, len(checked.diagnostics)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--safe-only", action="store_true", help="apply safe fixes only (default: unsafe too)")
    parser.add_argument("--show", type=int, default=10, help="files to list per problem")
    args = parser.parse_args(argv)
    settings = RuleSettings(codes=ALL_CODES)
    counts: Counter = Counter()
    examples: Dict[str, List[str]] = defaultdict(list)
    files = findings = files_with_findings = 0
    for root in args.paths:
        for path in sorted(root.rglob("*.py")):
            if not path.is_file():
                continue
            files += 1
            try:
                problems, found = fuzz_file(path, settings, not args.safe_only)
                findings += found
                files_with_findings += bool(found)
            except Exception:  # noqa: BLE001 - the point is to count these
                problems = ["crash"]
                traceback.print_exc()
            for problem in problems:
                counts[problem] += 1
                examples[problem].append(str(path))
    print(f"files: {files}; files with findings: {files_with_findings}; findings: {findings}")
    for problem in PROBLEMS:
        print(f"{problem}: {counts[problem]}")
        for example in examples[problem][: args.show]:
            print(f"    {example}")
    return 1 if sum(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
