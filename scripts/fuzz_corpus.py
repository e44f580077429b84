"""Check and fix every .py file of a tree in memory and report anything that would lose a user's trust.

Each file is read, put through the same bytes-in/bytes-out path as
`trainlint fix --write --unsafe-fixes` (decode, lint, fix loop with its
verification, encode), and never written back. The problems counted:

- crash: an exception escaped, or a rule or LibCST crashed (an internal error);
- fix rejected: the engine's verification refused a rule's fix (it did not
  parse, kept its finding, or did not converge): the file was protected, but
  a rule has a bug;
- unparsable: the fixed code does not parse (LibCST, and CPython where the
  original compiled);
- not idempotent: fixing the fixed code changes it again;
- fixed finding remains: after the fixes, some rule has more findings than it
  had before minus the fixes applied for it (each applied fix must remove one
  finding of its rule; a fix may reveal another finding, which a later pass
  fixes, so a rule may have more fixes applied than it had findings);
- changed without finding: a file with no finding came out different;
- changed outside its fixes: in some pass of the fix loop, a line changed that
  holds no node a fix of that pass replaced (and no import a fix may have made
  unused);
- lossy: a file does not round-trip byte for byte through decode/encode;
- screened out a finding: the structural pre-screen (trainlint/prescreen/)
  kept a rule from running on a file where it has a finding.

    python scripts/fuzz_corpus.py PATH [PATH ...] [--safe-only] [--show N] [-j N]

Counts are printed per category; the exit status is 1 if any problem was found.

Results
-------

Run 2026-11-23 on trainlint at commit 90d5990 (all six rules,
``--unsafe-fixes`` on, ``-j 2`` on a 2-core machine). The repositories' code
is never committed here.

| repository | commit | .py files | with findings | findings | fixes applied | problems | wall |
|---|---|---|---|---|---|---|---|
| karpathy/nanoGPT | 3adf61e154c3fe3fca428ad6bc3818b27a3b8291 | 15 | 1 | 2 (TL201 2) | 2 | 0 | 0.8 s |
| pytorch/examples | 77f55b912142e11fcfdf5b530231fb9c52f181e8 | 93 | 0 | 0 | 0 | 0 | 2.3 s |
| huggingface/pytorch-image-models | aa4b5850c1543fa488abf260f18390eda46cf85d | 315 | 0 | 0 | 0 | 0 | 9.1 s |
| ultralytics/yolov5 | 5081342f04fb287fc2e5f2b5a4e06752b7937b1c | 52 | 1 | 1 (TL201 1) | 1 | 0 | 3.1 s |
| huggingface/accelerate | 16cb6eb80dd9aa8b4df1a63ef57863e455d53b83 | 197 | 2 | 8 (TL401 4, TL402 4) | 8 | 0 | 11.9 s |
| Lightning-AI/pytorch-lightning | 7f0c3436cd3f6ad3753125672024fc415cbcb414 | 646 | 8 | 8 (TL402 8) | 8 | 0 | 32.2 s |
| huggingface/diffusers | 58eb52c0803ea9af3abec60841c2a093bdf1f951 | 2089 | 20 | 25 (TL201 25) | 25 | 0 | 140 s |

"problems" is the sum of every category above: 0 crashes, 0 rejected fixes,
0 unparsable outputs, 0 non-idempotent fixes, 0 remaining fixed findings,
0 files changed without a finding or outside their fixes, 0 lossy round
trips, over 3,407 files. What the findings are, judged by reading them:
nanoGPT's are its `'cuda' if 'cuda' in device` device-type sniffing (MPS
becomes cpu) and `torch.cuda.amp.GradScaler`; yolov5's is
`amp.GradScaler(enabled=cuda)` where `cuda = device.type != "cpu"` is also
true on MPS; accelerate's are `model_outputs.append(outputs.logits.to("cpu"))`
in fp8 benchmark training loops (a graph kept per step); 24 of diffusers'
25 are validation code in training examples that mention MPS and wrap
inference in `torch.autocast("cuda")` or `torch.cuda.amp.autocast()`, the
25th an ONNX export script that picks cuda or cpu; Lightning's are
test doubles recording every batch (true by the rule's definition, harmless
in a short test). Runs of the same corpora earlier the same day found the
false positives fixed since (TensorRT pipelines, `@RunIf(min_cuda_gpus=1)`
tests, Lightning's LR finder, a capped comet image logger) and have
regression tests.

A second run the same day, on trainlint after commit c272c2a, over 13 more
repositories (2,150 files): 0 problems in every category. Findings, judged
by reading them:

| repository | commit | .py files | findings |
|---|---|---|---|
| karpathy/minGPT | 37baab71b9abea1b76ab957409a1cc2fbfba8a26 | 9 | 0 |
| lucidrains/denoising-diffusion-pytorch | faed4db28e724735323fa91c70aa9b28a6e1cbac | 19 | 0 |
| facebookresearch/detr | 29901c51d7fe8712168b8d0d64351170bc0f83e0 | 28 | 0 |
| huggingface/trl | f2cd57710ae345ea6428ae95363267fcf38a3dc8 | 358 | 2 -> 0 (false positives of TL402, fixed) |
| huggingface/peft | 5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40 | 443 | 0 |
| pytorch/torchtune | bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1 | 498 | 0 |
| Lightning-AI/litgpt | 26857050fe3ff627cd714fe92f5838f51a3d5efa | 137 | 0 |
| facebookresearch/dino | 7c446df5b9f45747937fb0d72314eb9f7b66930a | 12 | 0 |
| facebookresearch/mae | efb2a8062c206524e35e47d04501ed4f544c0ae8 | 17 | 3 -> 0 (false positives of TL201, fixed) |
| openai/improved-diffusion | 1bc7bbbdc414d83d4abf2ad8cc1446dc36c4e4d5 | 21 | 0 |
| kuangliu/pytorch-cifar | 49b7aa97b0c12fe0d4054e670403a16b6b834ddd | 21 | 0 |
| huggingface/nanotron | 2411b022a75fb7f7561a1bb4166706da5e1b76de | 195 | 0 |
| mosaicml/composer | 6405188805a0054b4551ec49e4919c54c971d0e8 | 392 | 3 (TL201) |

trl's were subclasses filling `self.stats` that their base class, in
another module, logs and resets (TL402 now leaves an attribute alone when
the module only appends to it and its class inherits code it cannot see);
mae's were `torch.cuda.amp.autocast()` in loops that also call
`torch.cuda.synchronize()` unconditionally, which raises on a build without
CUDA (TL201 now reads unconditional CUDA runtime calls as CUDA-only).
composer's are `GradScaler()` defaulting to CUDA in a trainer that filters
the resulting warning on purpose and refuses fp16 without a working scaler:
true by the rule's definition, deliberate there. With the TL402 change,
three of Lightning's eight test doubles (lists only appended to in a
`BoringModel` subclass) are no longer reported; accelerate is unchanged.

A third run, later the same day, over 13 more repositories (4,972 files):

| repository | commit | .py files | findings (before -> after this session's fixes) |
|---|---|---|---|
| jik876/hifi-gan | 4769534d45265d52a904b850da5a622601885777 | 7 | 0 |
| openai/guided-diffusion | 22e0df8183507e13a7813f8d38d51b072ca1e67c | 23 | 0 |
| CompVis/stable-diffusion | 21f890f9da3cfbeaba8e2ac3c425ee9e998d5229 | 43 | 0 |
| lucidrains/vit-pytorch | 69d24fe9e3024c0d4b02761123b8583a24ebed1e | 79 | 0 |
| lucidrains/x-transformers | 9252ed7838021ee61e6c5be0930b3a9a88efdf06 | 36 | 0 |
| rwightman/efficientdet-pytorch | c6dff775a36cea0bf9b76c58e59f936411c5ce01 | 51 | 0 |
| huggingface/optimum | 83c88b8fc51e791f263a954e3568e1d2a02aa003 | 74 | 0 |
| facebookresearch/detectron2 | 02b5c4e295e990042a714712c21dc79b731e8833 | 497 | 0 |
| open-mmlab/mmpretrain | ee7f2e88501f61aa95c742dd5f429f039935ee90 | 1551 | 0 |
| EleutherAI/gpt-neox | ea7aefd8f8e183256992d9fede4d7c71a46d67a5 | 111 | 0 |
| microsoft/DeepSpeedExamples | 83757d9c937daabd1089a08051061706cb73900d | 390 | TL401 4 -> 0 |
| facebookresearch/fairseq | 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99 | 1021 | TL401 2 and a crash -> 0 |
| NVIDIA/DeepLearningExamples (PyTorch/, DGLPyTorch/) | 729963dd47e7c8bd462ad10bfac7a7b0b604e6dd | 1089 | 18 -> 14 (TL201 11, TL402 1, TL001 2) |

It found the one crash of the day: TL401 recursed without end on fairseq's
`train_step`, which returns `self.train_step(...)` on its out-of-memory
retry (fixed: callee returns are followed through the cycle-guarded path;
the summary of a run with errors no longer says "All checks passed!").
False positives fixed at their root, each with a regression test:
DeepSpeed's `model.backward(loss)` read as a tensor given a gradient; a
closure local of a per-step `train_step` and a pipeline schedule's queue of
outputs (TL401); `torch.cuda.synchronize()` or `.cuda()` before autocast,
and a `--dali_device` option, in CUDA-only NVIDIA scripts (TL201); a
logger's `step()` getter and four classes' `self.data` merged into one
history (TL402). What remains: NVIDIA's 11 TL201 findings are in scripts
that choose `cuda` or `cpu` (never MPS) with a `--cuda`/`--no_cuda` switch
or a CPU fallback: true by the rule's definition (on the CPU, AMP turns
itself off with a warning), harmless in practice; one (FastPitch's
`GradScaler`, created before the function's `synchronize()`) is in code
that dies off CUDA a few lines later at Apex's `FusedAdam`. The TL402 one
is nnUNet's latency logger, filled only during epoch 1 (an epoch gate in
the caller the rule does not follow): borderline. The two TL001 are files
that do not parse. After the fixes, `fuzz_corpus.py` on fairseq,
DeepSpeedExamples and NVIDIA's tree: 0 problems.

Run 2026-11-22 (previous session, commit 1b095ba): the same zero problems on
nanoGPT, pytorch/examples, pytorch-image-models and torch 2.13.0's own 2,285
Python sources. The problems found while building this fuzzer (by targeted
inputs, not by these corpora) and their regression tests are listed in
docs/architecture.md ("Reliability") and live in tests/reliability/.

Run of 2026-11-23 (second session), after the semantic-core work began
(effect-based step loops, TL403, the structural pre-screen), ``-j 2``, all
rules, ``--unsafe-fixes``, with the pre-screen compared against a run
without it on every file:

| repository | commit | .py files |
|---|---|---|
| Lightning-AI/pytorch-lightning | 7f0c3436cd3f6ad3753125672024fc415cbcb414 | 646 |
| huggingface/pytorch-image-models | aa4b5850c1543fa488abf260f18390eda46cf85d | 315 |
| pytorch/examples | 77f55b912142e11fcfdf5b530231fb9c52f181e8 | 93 |
| huggingface/accelerate | 16cb6eb80dd9aa8b4df1a63ef57863e455d53b83 | 197 |
| rasbt/LLMs-from-scratch | 28c65cdfbc3338e2e040016eea4b7fdf556e4d57 | 135 |
| karpathy/nanoGPT | 3adf61e154c3fe3fca428ad6bc3818b27a3b8291 | 15 |

1,401 files, 13 findings (TL201 2, TL401 4, TL402 7). Problems: 0 in every
category, "screened out a finding" included, but one: "fix rejected" for
TL402 on accelerate's ``benchmarks/fp8/transformer_engine/distrib_deepspeed.py``
(two local ``data = []`` histories in one module; the file is left unchanged).
The same rejection happens at commit c0b64de, before this session; it is
left for the next one. Before the step-loop work, TL401 crashed on
``while`` loops (nanoGPT's ``train.py``, torchattacks' FAB) and reported
four false positives in LLMs-from-scratch (an imported ``evaluate_model``
read as a model); both are fixed, with regression tests.

Run again at the end of the stop that finished the semantic core (trainlint at
1719d19, all thirteen rules, ``-j 1``) over the seven repositories of the first
table, 3,407 files: 0 problems in every category. Findings (fixes applied):
nanoGPT 6 (3), pytorch/examples 8 (8), pytorch-image-models 0, yolov5 1 (1),
accelerate 7 (9), Lightning 5 (5), diffusers 40 (40). The fp8 deepspeed
rejection above is gone: the verification now follows each fixed finding, so
the TL402 histories that TL401's fixes reveal are fixed on a second pass (the
two extra fixes of accelerate).
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
import traceback
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Set, Tuple

from trainlint.diagnostics import Diagnostic
from trainlint.engine import FixResult, LintResult, RuleSettings, fix_source, lint_source
from trainlint.registry import ALL_CODES
from trainlint.source import DecodeError, decode

PROBLEMS = (
    "crash",
    "fix rejected",
    "unparsable",
    "not idempotent",
    "fixed finding remains",
    "changed without finding",
    "changed outside its fixes",
    "lossy",
    "screened out a finding",
)
_REJECTED = "This is a bug in trainlint"  # the end of every error of the verified fix loop


@dataclass
class FileReport:
    path: str
    problems: List[str] = field(default_factory=list)
    findings: Counter = field(default_factory=Counter)  # by rule code
    applied: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    details: List[str] = field(default_factory=list)  # the messages behind the problems


def fix_problems(text: str, name: str, settings: RuleSettings, unsafe_fixes: bool) -> Tuple[List[str], FixResult, List[str]]:
    """The problems of checking and fixing ``text``, the fix result, and the messages behind the problems.

    Shared with tests/reliability/test_fuzz_fixes.py, which generates the texts.
    """
    settings = replace(settings, describe_fixes=False)
    checked = lint_source(text, name, settings)
    fixed = fix_source(text, name, settings, unsafe_fixes)
    problems, details = [], list(checked.errors) + list(fixed.errors)
    unscreened = lint_source(text, name, settings, screen=False).diagnostics
    if unscreened != checked.diagnostics:
        problems.append("screened out a finding")
        details.append(f"the structural pre-screen dropped: {sorted(set(unscreened) - set(checked.diagnostics))[:3]}")
    if checked.errors or any(_REJECTED not in error for error in fixed.errors):
        problems.append("crash")
    if any(_REJECTED in error for error in fixed.errors):
        problems.append("fix rejected")
    if fixed.text == text:
        return problems, fixed, details
    if not checked.diagnostics:
        problems.append("changed without finding")
    if not _parses(fixed.text, compiles=_compiles(text)):
        return problems + ["unparsable"], fixed, details
    if fix_source(fixed.text, name, settings, unsafe_fixes).text != fixed.text:
        problems.append("not idempotent")
    kept = _findings_kept(checked.diagnostics, lint_source(fixed.text, name, settings).diagnostics, fixed.applied)
    if kept:
        problems.append("fixed finding remains")
        details.append(f"findings not removed: {kept}")
    outside = [
        line
        for before, after in zip(fixed.texts, fixed.texts[1:])
        for line in lines_changed_outside_fixes(before, after, lint_source(before, name, settings))
    ]
    if outside:
        problems.append("changed outside its fixes")
        details.append(f"lines changed outside every fix: {outside[:5]}")
    return problems, fixed, details


def _compiles(text: str) -> bool:
    try:
        compile(text, "<fuzz>", "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parses(text: str, compiles: bool) -> bool:
    """LibCST parses it, and so does CPython if it parsed the original (newer syntax aside)."""
    import libcst

    try:
        libcst.parse_module(text)
    except Exception:  # noqa: BLE001 - any failure is the finding
        return False
    return _compiles(text) or not compiles


def _findings_kept(before: Sequence[Diagnostic], after: Sequence[Diagnostic], applied: Counter) -> Dict[str, Tuple[int, int, int]]:
    """Rules with more findings after fixing than before minus their applied fixes: code -> (before, fixed, after)."""
    count_before = Counter(d.code for d in before)
    count_after = Counter(d.code for d in after)
    return {
        code: (count_before[code], applied[code], count_after[code])
        for code in applied
        if count_after[code] > max(count_before[code] - applied[code], 0)
    }


def lines_changed_outside_fixes(before: str, after: str, checked: LintResult) -> List[int]:
    """1-based lines of ``before`` that changed although no fix replaced a node on them.

    Independent of how fixes describe themselves: the allowed lines are those of
    the nodes each fix replaces, and import lines (a fix may drop an import it
    made unused). New lines (imports, helpers) may be inserted anywhere.
    """
    covered: Set[int] = set()
    for span in checked.spans:
        for (first, _), (last, _) in span:
            covered.update(range(first, last + 1))
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    outside = []
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            outside.extend(row for row in range(i1 + 1, i2 + 1) if row not in covered and not _is_import(old[row - 1]))
    return outside


def _is_import(line: str) -> bool:
    return line.lstrip().startswith(("import ", "from "))


def fuzz_file(path: Path, unsafe_fixes: bool) -> FileReport:
    """Check and fix one file's bytes in memory."""
    report = FileReport(str(path))
    started = time.perf_counter()
    try:
        _fuzz_bytes(path.read_bytes(), report, unsafe_fixes)
    except Exception:  # noqa: BLE001 - the point is to count these
        report.problems.append("crash")
        report.details.append(traceback.format_exc())
    report.seconds = time.perf_counter() - started
    return report


def _fuzz_bytes(data: bytes, report: FileReport, unsafe_fixes: bool) -> None:
    try:
        source = decode(data)
    except DecodeError:
        return  # reported as TL001; nothing to fix
    if source.encode(source.text) != data:
        report.problems.append("lossy")
        return
    problems, fixed, details = fix_problems(source.text, report.path, RuleSettings(codes=ALL_CODES), unsafe_fixes)
    report.problems.extend(problems)
    report.details.extend(details)
    report.findings.update(d.code for d in fixed.found)
    report.applied.update(fixed.applied)
    try:
        source.encode(fixed.text)
    except UnicodeEncodeError:
        report.problems.append("lossy")


def python_files(roots: Iterable[Path]) -> List[Path]:
    return [path for root in roots for path in sorted(root.rglob("*.py")) if path.is_file()]


def summarise(reports: Sequence[FileReport], show: int) -> List[str]:
    findings: Counter = sum((r.findings for r in reports), Counter())
    applied: Counter = sum((r.applied for r in reports), Counter())
    counts = Counter(problem for r in reports for problem in r.problems)
    slowest = sorted(reports, key=lambda r: -r.seconds)[:3]
    lines = [
        f"files: {len(reports)}; files with findings: {sum(1 for r in reports if r.findings)}; "
        f"findings: {sum(findings.values())}; fixes applied: {sum(applied.values())}",
        "findings by rule: " + (", ".join(f"{code} {n}" for code, n in sorted(findings.items())) or "none"),
        "fixes by rule: " + (", ".join(f"{code} {n}" for code, n in sorted(applied.items())) or "none"),
        f"time: {sum(r.seconds for r in reports):.1f} s; slowest: " + ", ".join(f"{r.path} {r.seconds:.1f} s" for r in slowest),
    ]
    examples: Dict[str, List[FileReport]] = defaultdict(list)
    for report in reports:
        for problem in report.problems:
            examples[problem].append(report)
    for problem in PROBLEMS:
        lines.append(f"{problem}: {counts[problem]}")
        for report in examples[problem][:show]:
            lines.append(f"    {report.path}")
            lines.extend(f"        {detail.strip().splitlines()[-1]}" for detail in report.details[:2])
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--safe-only", action="store_true", help="apply safe fixes only (default: unsafe too)")
    parser.add_argument("--show", type=int, default=10, help="files to list per problem")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    files = python_files(args.paths)
    work = partial(fuzz_file, unsafe_fixes=not args.safe_only)
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            reports = list(pool.map(work, files, chunksize=4))
    else:
        reports = [work(path) for path in files]
    print("\n".join(summarise(reports, args.show)))
    return 1 if any(r.problems for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
