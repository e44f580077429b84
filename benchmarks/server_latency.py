"""Time from a ``didChange`` to the ``publishDiagnostics`` of that version, on a ~500-line training script.

The script is built from files in this repository: the TL201 seed fixture (two
findings, so diagnostics carry something) followed by the reference trainer's
loop, metrics and models modules. The server is started as an editor starts
it (``python -m trainlint server``, stdio) with the tests' LSP client; after
warm-up edits, each measured edit changes one literal in the middle of the
file and sends the whole text, as an editor with full sync does. With
``--burst N`` each measured round is N such edits ``--interval-ms`` apart (typing),
and the time is from the last edit to its diagnostics: the lints of the
earlier edits are under way when it arrives. Each edit's
text is then linted in this process too (``lint_source`` with a document
parser of its own, as the server's engine thread runs it), alternated so that
both see the same load: the difference is the server's own share (debounce,
JSON-RPC, threads).

    python benchmarks/server_latency.py [--edits 20] [--warmup 5] [--burst 1] [--interval-ms 100] [--write-script PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import trainlint.cli  # noqa: E402,F401 - sets the collector thresholds the server process runs with
from tests.server.client import LspClient  # noqa: E402
from trainlint.engine import RuleSettings, lint_source  # noqa: E402
from trainlint.incremental_parse import IncrementalParser  # noqa: E402
from trainlint.registry import ALL_CODES  # noqa: E402

PARTS = (
    "fixtures/TL201_cuda_amp_on_other_device/bad_seed_training_loop.py",
    "reference_trainer/loop.py",
    "reference_trainer/metrics.py",
    "reference_trainer/models.py",
)
FUTURE = "from __future__ import annotations\n"


def training_script() -> str:
    """The parts one after the other, with the one ``from __future__`` import they share at the top."""
    bodies = [(REPO / part).read_text(encoding="utf-8").replace(FUTURE, "") for part in PARTS]
    return FUTURE + "\n\n".join(bodies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--burst", type=int, default=1, help="edits per measured round; the last one is timed")
    parser.add_argument("--interval-ms", type=float, default=100.0, help="between the edits of a burst")
    parser.add_argument("--write-script", type=Path, help="also write the script here, to time `trainlint check` on it")
    args = parser.parse_args()
    text = training_script()
    if args.write_script:
        args.write_script.write_text(text, encoding="utf-8")
    marker = "lr: float = 0.005"
    assert marker in text
    settings = RuleSettings(ALL_CODES, describe_fixes=False)
    server_times, engine_times = [], []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        uri = (root / "train.py").as_uri()
        client = LspClient(root)
        try:
            client.initialize(root)
            client.open(uri, text)
            findings = client.diagnostics(uri, version=1)
            document_parser = IncrementalParser()  # this process's, fed the same versions as the server's
            lint_source(text, "train.py", settings, parser=document_parser)
            version = 1
            for _ in range(args.warmup + args.edits):
                for typed in range(args.burst):  # as typed: the lint of each edit starts before the next arrives
                    if typed:
                        time.sleep(args.interval_ms / 1000)
                    version += 1
                    edited = text.replace(marker, f"lr: float = 0.00{version}")
                    started = time.perf_counter()
                    client.change(uri, edited, version)
                client.diagnostics(uri, version=version)
                server_times.append(time.perf_counter() - started)
                # The same text linted in this process right after, under the same load: the engine's share.
                started = time.perf_counter()
                lint_source(edited, "train.py", settings, parser=document_parser)
                engine_times.append(time.perf_counter() - started)
            client.close()
        finally:
            client.kill()
    print(f"script: {len(text.splitlines())} lines, {len(findings)} findings")
    _print("didChange -> publishDiagnostics", server_times[args.warmup :], args.warmup)
    _print("the engine alone (lint_source, alternated)", engine_times[args.warmup :], args.warmup)
    shares = [s - e for s, e in zip(server_times[args.warmup :], engine_times[args.warmup :])]
    print(f"the server's share (per edit: server - engine): median {statistics.median(shares) * 1000:.1f} ms")


def _print(what: str, times: List[float], warmup: int) -> None:
    milliseconds = sorted(t * 1000 for t in times)
    print(
        f"{what} over {len(milliseconds)} edits after {warmup} warm-up: "
        f"median {statistics.median(milliseconds):.1f} ms, min {milliseconds[0]:.1f} ms, max {milliseconds[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
