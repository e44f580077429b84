"""Where the CPU time of one lint of the server benchmark's script goes, stage by stage.

``server_latency.py`` times an edit end to end; this splits the engine's share on
the same script (``training_script()`` there), in one process after warm-up lints:
CPython's compile (the syntax verdict), the trigger prefilter and structural
pre-screen, LibCST's parse, the parent index (built as the rules' traversal
starts), each analysis the rules ask for
(its own time, without the analyses it asks for in turn), the rules' own visits,
and what is left (positions, suppressions, building the diagnostics). Then the
server's conversion of the result to LSP diagnostics and their JSON. CPU time
(``time.process_time``), median over the lints, so that other processes on a
loaded machine count less than in wall time. Each lint is of an edit of the
script (one literal changed, as ``server_latency.py`` edits it), parsed as the
server parses it: by the document's ``IncrementalParser``, which parses again
only the statement the edit changed; ``--full-parse`` parses the whole text
with ``libcst.parse_module`` at each lint, as ``trainlint check`` does.

    python benchmarks/server_stages.py [--lints 20] [--full-parse]
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.server_latency import training_script  # noqa: E402
from trainlint import engine, prescreen  # noqa: E402
from trainlint.analysis import ModuleFacts  # noqa: E402
from trainlint.registry import ALL_CODES  # noqa: E402

Stages = Dict[str, float]
MARKER = "lr: float = 0.005"  # the literal each lint's edit changes, as in server_latency.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lints", type=int, default=20)
    parser.add_argument("--full-parse", action="store_true", help="parse each text whole, without the incremental parser")
    args = parser.parse_args()
    import libcst as cst
    from lsprotocol import converters, types

    from trainlint.incremental_parse import IncrementalParser
    from trainlint.server.convert import lsp_diagnostic
    from trainlint.server.positions import UTF16, LineIndex

    original = training_script()
    assert MARKER in original
    settings = engine.RuleSettings(ALL_CODES, describe_fixes=False)
    stages: Stages = defaultdict(float)
    open_facts: List[float] = []  # CPU time spent in analyses nested in the one being built, per level

    def timed(name: str, function: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                stages[name] += time.process_time() - started

        return wrapper

    original_fact = ModuleFacts.fact

    def fact(self: ModuleFacts, kind):
        if kind in self._facts:
            return self._facts[kind]
        open_facts.append(0.0)
        started = time.process_time()
        try:
            return original_fact(self, kind)
        finally:
            spent = time.process_time() - started
            nested = open_facts.pop()
            stages[f"analysis {kind.__name__}"] += spent - nested
            if open_facts:
                open_facts[-1] += spent
            else:
                stages["(all analyses)"] += spent

    ModuleFacts.fact = fact  # type: ignore[method-assign]
    engine.python_tree = timed("CPython compile", engine.python_tree)
    engine.triggered_codes = timed("prefilter + pre-screen", engine.triggered_codes)
    prescreen.screened_codes = timed("prefilter + pre-screen", prescreen.screened_codes)
    if args.full_parse:
        cst.parse_module = timed("LibCST parse", cst.parse_module)
        document_parser = None
    else:
        IncrementalParser.parse = timed("LibCST parse", IncrementalParser.parse)  # type: ignore[method-assign]
        document_parser = IncrementalParser()
        engine.lint_source(original, "train.py", settings, parser=document_parser)  # the document as opened
    index_parents = timed("parent index", ModuleFacts.parents.func)

    def build_parents(self: ModuleFacts):  # built by the first analysis that asks, if before the rules' visits
        started = time.process_time()
        try:
            return index_parents(self)
        finally:
            if open_facts:  # neither that analysis's own time nor the analyses' in all
                spent = time.process_time() - started
                open_facts[-1] += spent
                stages["(parent index within an analysis)"] += spent

    parents = functools.cached_property(build_parents)
    parents.__set_name__(ModuleFacts, "parents")
    ModuleFacts.parents = parents  # type: ignore[assignment]
    engine._Dispatcher.run = timed("(dispatch)", engine._Dispatcher.run)  # type: ignore[method-assign]

    converter = converters.get_converter()
    samples: Dict[str, List[float]] = defaultdict(list)
    for round_number in range(args.lints + 3):  # three warm-up lints
        stages.clear()
        text = original.replace(MARKER, f"lr: float = 0.00{round_number + 2}")
        started = time.process_time()
        result = engine.lint_source(text, "train.py", settings, parser=document_parser)
        stages["whole lint"] = time.process_time() - started
        started = time.process_time()
        index = LineIndex(text, UTF16)
        params = types.PublishDiagnosticsParams("file:///train.py", [lsp_diagnostic(d, index) for d in result.diagnostics], 2)
        json.dumps(converter.unstructure(params))
        stages["server: LSP diagnostics + JSON"] = time.process_time() - started
        if round_number >= 3:
            for name, spent in stages.items():
                samples[name].append(spent)
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    # the dispatch builds the parent index (its pre-order) before the first visit
    analyses = medians.get("(all analyses)", 0.0) - medians.pop("(parent index within an analysis)", 0.0)
    medians["(all analyses)"] = analyses
    medians["rules' own visits"] = medians["(dispatch)"] - analyses - medians["parent index"]
    accounted = ("CPython compile", "prefilter + pre-screen", "LibCST parse", "(dispatch)")
    medians["positions, suppressions, diagnostics (rest)"] = medians["whole lint"] - sum(medians.get(n, 0.0) for n in accounted)
    parsed = "whole, at each lint" if args.full_parse else "incrementally, as the server parses it"
    print(f"script: {len(original.splitlines())} lines, parsed {parsed}; CPU ms per lint, median of {args.lints}")
    for name, value in sorted(medians.items(), key=lambda item: -item[1]):
        print(f"{value:8.1f}  {name}")


if __name__ == "__main__":
    main()
