"""Time trainlint against Ruff, TorchFix and Fixit on the same files, side by side.

Each round runs every tool once, in alternation, so that a noisy shared
machine slows all of them alike; the report gives medians and ratios, which
are what can be compared across machines. Peers are installed into their own
virtual environment (never project dependencies).

    python benchmarks/run.py --corpus PATH [--corpus PATH ...] [--torch-sources] [--synthetic 1000] [--rounds 3]

``--torch-sources`` adds the installed torch's own ``nn``, ``optim``, ``utils``, ``amp`` and
``cuda`` packages, copied into a temporary directory (issue 19's fourth corpus).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import generate  # noqa: E402

PEERS = ("ruff==0.17.6", "torchfix==0.7.0", "fixit==2.2.1")
TORCH_PACKAGES = ("nn", "optim", "utils", "amp", "cuda")
HERE = Path(__file__).resolve().parent


def ensure_peers(directory: Path) -> Path:
    bin_dir = directory / "bin"
    if not (bin_dir / "torchfix").exists():
        venv.create(directory, with_pip=True)
        subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", *PEERS], check=True)
    return bin_dir


def timed(command: Sequence[str], cwd: Path) -> Tuple[float, int, float]:
    """Wall seconds, peak resident memory (MiB) and CPU seconds (user + system) of one command,
    start-up included. On a loaded machine CPU time varies less than wall time."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    return elapsed, usage.ru_maxrss // 1024, usage.ru_utime + usage.ru_stime


def trainlint_command() -> str:
    """The console script of the interpreter running this script (its venv need not be activated)."""
    return shutil.which("trainlint", path=str(Path(sys.executable).parent)) or shutil.which("trainlint") or "trainlint"


def tools(peers: Path, corpus: Path, cache_dir: Path) -> Dict[str, List[str]]:
    trainlint = trainlint_command()
    return {
        "trainlint cold": [trainlint, "check", "--no-cache", "--exit-zero", "-q", str(corpus)],
        "trainlint cold -j1": [trainlint, "check", "--no-cache", "--exit-zero", "-q", "-j", "1", str(corpus)],
        "trainlint warm": [trainlint, "check", "--cache-dir", str(cache_dir), "--exit-zero", "-q", str(corpus)],
        "ruff --select ALL": [str(peers / "ruff"), "check", "--isolated", "--select", "ALL", "--no-cache", "--exit-zero", "-q", str(corpus)],
        "torchfix --select ALL": [str(peers / "torchfix"), "--select", "ALL", str(corpus)],
        "fixit lint": [str(peers / "fixit"), "lint", str(corpus)],
    }


def benchmark(corpus: Path, peers: Path, rounds: int, skip: Sequence[str]) -> Dict[str, Tuple[float, int]]:
    files = sum(1 for _ in corpus.rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in corpus.rglob("*.py"))
    print(f"\n## {corpus} ({files} files, {lines} lines), {rounds} rounds\n", flush=True)
    with tempfile.TemporaryDirectory() as cache_dir:
        commands = {name: command for name, command in tools(peers, corpus, Path(cache_dir)).items() if name not in skip}
        if "trainlint warm" in commands:
            subprocess.run(commands["trainlint warm"], cwd=corpus, stdout=subprocess.DEVNULL)  # fill the cache
        samples: Dict[str, List[Tuple[float, int]]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                samples[name].append(timed(command, corpus)[:2])
    results = {
        name: (statistics.median(s for s, _ in runs), max(m for _, m in runs)) for name, runs in samples.items()
    }
    base = results["trainlint cold"][0]
    print("| tool | median wall (s) | peak RSS (MiB) | time / trainlint cold |")
    print("|---|---|---|---|")
    for name, (seconds, memory) in results.items():
        print(f"| {name} | {seconds:.2f} | {memory} | {seconds / base:.2f}x |")
    tree = tree_peak_rss(commands["trainlint cold"], corpus)
    print(f"\ntrainlint cold, whole process tree (main process and workers, sampled every 20 ms): peak {tree} MiB")
    checked, parsed, parsed_quiet = parse_counts(corpus, commands["trainlint cold"])
    print(f"\nPython files checked: {checked}; parsed by LibCST: {len(parsed)}; parsed with no finding: {len(parsed_quiet)}")
    return results


def parse_counts(corpus: Path, check: Sequence[str]) -> Tuple[int, List[Path], List[Path]]:
    """The Python files a default ``trainlint check`` of ``corpus`` looks at, those it hands to LibCST, and those
    of the latter that end with no finding (issue 19: LibCST's time is wasted on them).

    Which files are parsed is asked of the engine's own ``plan_parse`` with each file's configured selection, so the
    count cannot drift from what the command does; findings come from running ``check`` with JSON output.
    Notebooks are left out: their cells are linted as one text each, not as files.
    """
    from trainlint.discovery import discover
    from trainlint.engine import plan_parse
    from trainlint.settings import Overrides, SettingsResolver
    from trainlint.source import DecodeError, decode
    from trainlint.suppression import skips_file

    resolver = SettingsResolver(Overrides(), cwd=corpus)
    files = [path for path in discover([corpus], resolver).files if path.suffix == ".py"]
    parsed = []
    for path in files:
        try:
            text = decode(path.read_bytes()).text
        except (OSError, DecodeError):
            continue
        codes = resolver.for_path(path).rule_settings_for(path).codes
        if not skips_file(text) and plan_parse(text, str(path), codes).needs_libcst:
            parsed.append(path)
    report = subprocess.run([*check[:-1], "--output-format", "json", check[-1]], cwd=corpus, capture_output=True, text=True)
    found = {Path(finding["filename"]).resolve() for finding in json.loads(report.stdout or "[]")}
    return len(files), parsed, [path for path in parsed if path.resolve() not in found]


def tree_peak_rss(command: Sequence[str], cwd: Path) -> int:
    """Peak of the summed resident memory of a command and its descendants (Linux /proc), in MiB.

    ``ru_maxrss`` gives only the largest single process; the memory target is for the
    whole run. Pages shared by forked workers are counted in each, so this is an upper bound.
    """
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while process.poll() is None:
        pids = [process.pid]
        for pid in pids:  # grows while iterating: breadth-first over the tree
            pids.extend(_children(pid))
        peak = max(peak, sum(_resident_kib(pid) for pid in pids))
        time.sleep(0.02)
    return peak // 1024


def _children(pid: int) -> List[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _resident_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def copy_torch_sources(directory: Path) -> Path:
    """The installed torch's training-facing packages as a corpus of their own (Python files only)."""
    # Found, not imported: a child's peak RSS starts from this process's size (Linux carries the high-water mark
    # across fork and exec), and torch would add ~250 MiB to every figure of the tables.
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("--torch-sources needs torch installed")
    root = Path(spec.submodule_search_locations[0])
    target = directory / "torch-sources"
    for package in TORCH_PACKAGES:
        shutil.copytree(root / package, target / package, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
    return target


def byte_compile_trainlint() -> None:
    """Time trainlint as installed: pip byte-compiles a wheel's modules, but an editable
    checkout run with PYTHONDONTWRITEBYTECODE=1 (as on these machines) would compile
    its ~40 modules from source in every process, ~90 ms each time."""
    import trainlint
    import trainlint.rules

    for package in (trainlint, trainlint.rules):
        compileall.compile_dir(str(Path(package.__file__).parent), quiet=1)


def single_file(scripts: Sequence[Path], rounds: int, others: Sequence[Path] = ()) -> None:
    """Files as pre-commit runs them, each beside the floor any LibCST-based tool pays for it:
    the interpreter's start-up, LibCST's import and LibCST's parse of that file. What
    trainlint adds is the difference; the floors are timed in the same rounds.

    ``others`` are more trainlint console scripts (another commit installed in its own
    virtual environment) timed on the same files in the same rounds: an A/B comparison.
    ``python -c 'import click'`` is timed too: the command line's budget is the argparse
    CLI's time plus click's import (issue 18).
    """
    trainlints = [Path(trainlint_command()), *others]
    quiet_file = Path(tempfile.mkdtemp()) / "plain.py"
    quiet_file.write_text("import os\n\nprint(os.getcwd())\n", encoding="utf-8")
    commands: Dict[str, Tuple[List[str], Path]] = {
        "floor: python -c pass": ([sys.executable, "-c", "pass"], quiet_file.parent),
        "floor: python -c 'import click'": ([sys.executable, "-c", "import click"], quiet_file.parent),
        "floor: python -c 'import libcst'": ([sys.executable, "-c", "import libcst"], quiet_file.parent),
    }

    def check(trainlint: Path, script: Path) -> List[str]:
        return [str(trainlint), "check", "--no-cache", "--exit-zero", "-q", str(script)]

    for trainlint in trainlints:
        commands[f"{_label(trainlint)}, a file without triggers ({quiet_file.name})"] = (check(trainlint, quiet_file), quiet_file.parent)
    for script in scripts:
        lines = script.read_text(encoding="utf-8").count("\n")
        parse = f"import libcst; libcst.parse_module(open({str(script)!r}, 'rb').read())"
        name = f"{script.parent.name}/{script.name}"  # several repositories have a train.py: one label each
        commands[f"floor: import libcst + parse {name} ({lines} lines)"] = ([sys.executable, "-c", parse], script.parent)
        for trainlint in trainlints:
            commands[f"{_label(trainlint)} {name}"] = (check(trainlint, script), script.parent)
    runs: Dict[str, List[Tuple[float, float]]] = {label: [] for label in commands}
    for _ in range(rounds):
        for label, (command, cwd) in commands.items():
            wall, _, cpu = timed(command, cwd)
            runs[label].append((wall, cpu))
    print(f"Files as pre-commit runs them (process start included), {rounds} alternated runs:")
    print("| command | wall median | wall min | CPU median | CPU min |")
    print("|---|---|---|---|---|")
    for label, samples in runs.items():
        walls, cpus = [w * 1000 for w, _ in samples], [c * 1000 for _, c in samples]
        print(f"| {label} | {statistics.median(walls):.0f} ms | {min(walls):.0f} ms | {statistics.median(cpus):.0f} ms | {min(cpus):.0f} ms |")


def _label(trainlint: Path) -> str:
    """``trainlint`` for this environment's console script, else the script's virtual environment."""
    if trainlint == Path(trainlint_command()):
        return "trainlint"
    return f"trainlint ({trainlint.parent.parent.name})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="a checkout to lint (repeatable)")
    parser.add_argument("--torch-sources", action="store_true", help="also lint the installed torch's nn/optim/utils/amp/cuda")
    parser.add_argument("--synthetic", type=int, default=0, help="also generate and lint a synthetic corpus of N files")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peers-venv", type=Path, default=HERE / ".peers")
    parser.add_argument("--skip", action="append", default=[], help="a tool name to leave out (e.g. 'fixit lint')")
    parser.add_argument("--single-file", type=Path, action="append", default=[], help="a training script to time as pre-commit would (repeatable)")
    parser.add_argument(
        "--compare-trainlint", type=Path, action="append", default=[],
        help="with --single-file: another trainlint console script (say, an older commit's venv) timed in the same rounds (repeatable)",
    )
    args = parser.parse_args()
    byte_compile_trainlint()
    corpora = list(args.corpus)
    temporary = tempfile.mkdtemp(prefix="trainlint-corpus-") if args.synthetic or args.torch_sources else None
    if args.torch_sources:
        corpora.append(copy_torch_sources(Path(temporary)))  # type: ignore[arg-type]
    if args.synthetic:
        corpora.append(generate(Path(temporary) / f"synthetic-{args.synthetic}", args.synthetic))  # type: ignore[arg-type]
    try:
        if corpora:  # the peers run with the corpus as working directory: resolve their venv first
            peers = ensure_peers(args.peers_venv.resolve())
            for corpus in corpora:
                benchmark(corpus.resolve(), peers, args.rounds, args.skip)
        if args.single_file:
            print()
            single_file([path.resolve() for path in args.single_file], max(11, args.rounds), [p.absolute() for p in args.compare_trainlint])
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    main()
