"""TL201 at run time: the bad fixtures show the defect on this CPU, their fixes remove it and train exactly right.

On a machine without CUDA, ``torch.cuda.amp`` (and AMP hard-wired to "cuda")
warns "CUDA is not available" and switches itself off. Each bad fixture must
show that warning; its ``.fixed.py`` snapshot must emit no AMP warning at all
and produce, step for step, the losses of ``reference_trainer.run`` with AMP
off (the fix keeps AMP off on the CPU, where the original was a no-op too).
On a CUDA machine the fix must not change what the original computed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict

import pytest

torch = pytest.importorskip("torch")

from tests.fixture_cases import FIXTURES, bad_cases  # noqa: E402
from tests.runtime_harness import assert_trains_like_reference, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

DIRECTORY = FIXTURES / "TL201_cuda_amp_on_other_device"
STEPS = 4
AMP_OFF = "CUDA is not available"
AMP_WARNING = re.compile(r"CUDA is not available|torch\.cuda\.amp|autocast|GradScaler", re.IGNORECASE)


@dataclass(frozen=True)
class Case:
    """A bad fixture, the reference task it reproduces, and the options its loop uses."""

    name: str
    task: str
    reference: Dict[str, Any] = field(default_factory=dict)
    honours_device: bool = True  # main(device=...) decides where it runs
    given: Dict[str, Any] = field(default_factory=dict)  # what the caller passes main() besides seed and max_steps
    needs: str = ""  # a package the fixture imports, skipped where it is not installed
    keeps_api: bool = False  # the fix gates a call through a name: torch.cuda.amp's deprecation notice stays

    def path(self, fixed: bool = False) -> Path:
        return DIRECTORY / f"{self.name}{'.fixed' if fixed else ''}.py"


CASES = [
    Case("bad_seed_training_loop", "lstm", {"accumulation_steps": 2, "clip_norm": 1.0}),
    Case("bad_aliased_imports", "lstm"),
    Case("bad_autocast_cuda_in_mps_class", "text", honours_device=False),
    Case("bad_gpu_type_mps_experiment", "regression"),
    Case("bad_inference_helper", "lstm"),
    # Its autocast was device-aware already (bfloat16 on the CPU); only the scaler changes.
    Case("bad_scaler_beside_device_aware_autocast", "regression", {"amp": True}),
    Case("bad_string_sniffed_device_type", "regression"),
    Case("bad_autocast_decorated_forward", "regression"),
    # The loop variable shadows the module's torch.device: the fix must not call `.type` on a string.
    Case("bad_device_names_loop_variable", "regression"),
    # A CUDA guard that does not cover the AMP code: a warning only, MPS only.
    Case("bad_cpu_check_only_warns", "regression"),
    Case("bad_mps_rejected_cpu_allowed", "regression"),
    # A statement that raises without CUDA guards only where it surely runs first: not under `if args.cuda:`,
    # not in a `try` that swallows the error.
    Case("bad_synchronize_under_cuda_flag", "regression"),
    Case("bad_synchronize_allowed_to_fail", "lstm"),
    # `from torch.cuda.amp import *`: the fix spells out `torch.amp` and adds `import torch`.
    Case("bad_star_import", "lstm"),
    # Issue 13's blind spots: where the device comes from decides that another accelerator is reachable.
    Case("bad_detection_helper_can_return_mps", "regression", honours_device=False),
    Case("bad_accelerator_device", "regression", honours_device=False, needs="accelerate"),
    Case("bad_config_dataclass_device", "regression", given={"device": "cpu"}),
    Case("bad_self_device_in_base_class", "regression", honours_device=False),
    # The CUDA-only API held by a name and called through it: the fix gates the call, keeping the name.
    Case("bad_autocast_through_a_name", "regression", honours_device=False, keeps_api=True),
]
RUNNABLE_OK_CASES = [
    "ok_device_aware_amp",
    "ok_amp_enabled_by_device_check_helper",
    "ok_amp_enabled_on_cuda_only",
    "ok_cuda_branch_guards",
    "ok_version_gated_fallback",
    "ok_cuda_flag_switch",
    "ok_detection_helper_cuda_or_cpu",
    "ok_config_dataclass_cuda_only",
    "ok_self_device_in_base_class_cuda_or_cpu",
    "ok_cuda_or_cpu_check_in_another_function",
]
# Silent by design although they warn on the CPU: CUDA-or-CPU code, where torch.cuda.amp's fp32 fallback is intended.
CUDA_OR_CPU_OK_CASES = frozenset(RUNNABLE_OK_CASES[-4:])
RUNNABLE_OK_CASES += [
    "ok_autocast_in_gpu_branch", "ok_device_choices_cuda_or_cpu_sniff", "ok_mps_only_compared_against",
    "ok_autocast_name_chosen_by_device",
]


def _amp_warnings(run) -> list:
    return [message for message in run.warnings_of() if AMP_WARNING.search(message)]


def test_every_bad_fixture_has_a_runtime_case() -> None:
    assert {c.path() for c in CASES} == set(bad_cases(DIRECTORY))


def _run(case: Case, fixed: bool = False, **options: Any):
    if case.needs:
        pytest.importorskip(case.needs)
    return run_fixture(case.path(fixed), seed=0, max_steps=STEPS, **{**case.given, **options})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_bad_fixture_turns_amp_off_with_a_warning_on_the_cpu(case: Case) -> None:
    bad = _run(case)
    assert any(AMP_OFF in message for message in bad.warnings_of(UserWarning)), bad.warnings_of()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fixed_fixture_has_no_amp_warning_and_trains_like_the_reference(case: Case) -> None:
    fixed = _run(case, fixed=True)
    warnings = _amp_warnings(fixed)
    if case.keeps_api:
        warnings = [w for w in warnings if "is deprecated" not in w]
    assert warnings == []
    assert_trains_like_reference(fixed.losses, case.task, seed=0, max_steps=STEPS, **case.reference)


@pytest.mark.parametrize("name", RUNNABLE_OK_CASES)
def test_ok_trap_keeps_amp_consistent_on_the_cpu(name: str) -> None:
    """The traps are silent for a reason: on the CPU none of them hits CUDA-only AMP, except the CUDA-or-CPU
    ones, whose fp32 fallback on the CPU is the point (and which must still train like the reference)."""
    run = run_fixture(DIRECTORY / f"{name}.py", seed=0, max_steps=2)
    warned = any(AMP_OFF in message for message in run.warnings_of(UserWarning))
    assert warned is (name in CUDA_OR_CPU_OK_CASES)


@pytest.mark.cuda
@pytest.mark.parametrize("case", [c for c in CASES if c.honours_device], ids=lambda c: c.name)
def test_fix_changes_nothing_on_cuda(case: Case) -> None:
    """On CUDA the original AMP was live; the fixed code must compute the same losses."""
    bad = _run(case, device="cuda")
    fixed = _run(case, fixed=True, device="cuda")
    assert fixed.losses == pytest.approx(bad.losses, rel=1e-5)
    assert not any(AMP_OFF in message for message in fixed.warnings_of())
