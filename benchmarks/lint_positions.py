"""One lint with the positions of the whole module (``all_positions``, as before per-statement positions) and
one with positions per top-level statement (``NodePositions``, what the engine uses), in alternation in one
process, so that both see the same load: CPU time of this process (``time.process_time``) per lint, and the
LibCST parse of the file alone, the floor under any lint that reports something.

    python benchmarks/lint_positions.py FILE [FILE ...] [--pairs 21]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import libcst as cst  # noqa: E402

import trainlint.cli  # noqa: E402,F401 - sets the collector thresholds the server and the CLI run with
import trainlint.node_positions as node_positions  # noqa: E402
from trainlint.engine import RuleSettings, lint_source  # noqa: E402
from trainlint.registry import ALL_CODES  # noqa: E402

PER_STATEMENT = node_positions.NodePositions


def whole_module(module: cst.Module, text: str, parents: object) -> object:
    return node_positions.all_positions(module)


def cpu_ms(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return (time.process_time() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--pairs", type=int, default=21)
    args = parser.parse_args()
    settings = RuleSettings(ALL_CODES, describe_fixes=False)
    for path in args.files:
        text = path.read_text(encoding="utf-8")
        times: Dict[object, List[float]] = {whole_module: [], PER_STATEMENT: []}
        for _ in range(args.pairs + 1):  # the first pair warms up
            for way, spent in times.items():
                node_positions.NodePositions = way  # the engine imports it at each lint
                spent.append(cpu_ms(lambda: lint_source(text, path.name, settings)))
        node_positions.NodePositions = PER_STATEMENT
        found = len(lint_source(text, path.name, settings).diagnostics)
        parse = [cpu_ms(lambda: cst.parse_module(text)) for _ in range(args.pairs)]
        old, new = times[whole_module][1:], times[PER_STATEMENT][1:]
        saved = statistics.median(o - n for o, n in zip(old, new))
        print(
            f"{path.name}: {len(text.splitlines())} lines, {found} findings; lint CPU median: whole-module positions "
            f"{statistics.median(old):.0f} ms, per statement {statistics.median(new):.0f} ms "
            f"(paired difference median {saved:.0f} ms); LibCST parse alone {statistics.median(parse):.0f} ms"
        )


if __name__ == "__main__":
    main()
