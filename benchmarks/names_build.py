"""Time building the names model of a module against parsing it, file by file.

The names model (``trainlint/analysis/names.py``) must cost a small part of
the parse, where LibCST's ScopeProvider costs several times the parse. Each
figure is the best of several runs (the least disturbed on a shared machine);
compare the ratio column, not the milliseconds.

    python benchmarks/names_build.py [FILE ...] [--synthetic-lines 2000] [--scope-provider]

Columns: the parse; the parent map (``facts.parents``, built once per file
for every analysis); the names model on top of it; its ratio to the parse;
the lazy queries asking ``reaching`` for every read name of the file; with
``--scope-provider``, LibCST's ScopeProvider over the same tree for comparison.
"""

from __future__ import annotations

import argparse
import textwrap
import time
from pathlib import Path
from typing import Callable, List, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, ScopeProvider

from trainlint.analysis import ModuleFacts, walk
from trainlint.analysis.names import Names

UNIT = textwrap.dedent(
    '''
    class Trainer{i}(Base):
        def __init__(self, model, device="cuda"):
            self.model = model
            self.device = device if device else "cpu"

        def step(self, batch, optimizer):
            x, (y, *rest) = batch
            total = 0
            for i, item in enumerate(rest):
                if i % 2:
                    total += item
                else:
                    total = total - item
            with ctx() as c:
                loss = self.model(x.to(self.device), y)
            out = [v * 2 for v in rest if v]
            loss.backward()
            optimizer.step()
            return loss, total, out, c
    '''
)


def synthetic(lines: int) -> str:
    """A module of ``lines`` lines or a little more, made of training-step classes."""
    parts: List[str] = []
    while sum(part.count("\n") for part in parts) < lines:
        parts.append(UNIT.format(i=len(parts)))
    return "".join(parts)


def best(run: Callable[[], float], rounds: int) -> float:
    return min(run() for _ in range(rounds))


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def measure(source: str, rounds: int, scope_provider: bool) -> Tuple[float, ...]:
    parse = best(lambda: timed(lambda: cst.parse_module(source)), rounds)
    module = cst.parse_module(source)

    def parents() -> float:
        walk.forget()
        return timed(lambda: ModuleFacts(module, source).parents)

    def names() -> float:
        facts = ModuleFacts(module, source)
        facts.parents  # noqa: B018 - built outside the timed part
        return timed(lambda: facts.fact(Names))

    def queries() -> float:
        model = ModuleFacts(module, source).fact(Names)
        reads = [use for name in list(model._loads) for use in model.loads(name)]
        return timed(lambda: [model.reaching(use) for use in reads])

    scopes = best(lambda: timed(lambda: MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)), 1) if scope_provider else 0.0
    return parse, best(parents, rounds), best(names, rounds), best(queries, rounds), scopes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--synthetic-lines", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scope-provider", action="store_true", help="also time LibCST's ScopeProvider (slow)")
    options = parser.parse_args()
    sources = [(str(path), path.read_text(encoding="utf-8")) for path in options.files]
    sources.append((f"synthetic ({options.synthetic_lines} lines)", synthetic(options.synthetic_lines)))
    print(f"{'file':48} {'lines':>6} {'parse ms':>9} {'parents':>8} {'names':>7} {'names/parse':>11} {'all reads':>9} {'scopes/parse':>12}")
    for name, source in sources:
        parse, parents, names, queries, scopes = measure(source, options.rounds, options.scope_provider)
        scope_ratio = f"{scopes / parse:12.1f}" if options.scope_provider else f"{'-':>12}"
        print(
            f"{name[-48:]:48} {source.count(chr(10)):6d} {parse * 1e3:9.1f} {parents * 1e3:8.1f} "
            f"{names * 1e3:7.1f} {names / parse:11.2f} {queries * 1e3:9.1f} {scope_ratio}"
        )


if __name__ == "__main__":
    main()
