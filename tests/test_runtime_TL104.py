"""TL104 pin-memory-without-cuda at run time, on this machine without CUDA.

Each bad fixture shows its symptom here: the tensor-pinning ones raise the
pin error at their first batch, the DataLoader one warns that pinning is on
with no accelerator to pin for. Each fixed fixture raises nothing, emits no
pinning warning, and trains exactly like ``reference_trainer.run("lstm")``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tests.fixture_cases import FIXTURES, bad_cases, case_id, snapshot_of  # noqa: E402
from tests.runtime_harness import assert_trains_like_reference, run_fixture  # noqa: E402

pytestmark = [
    pytest.mark.runtime,
    pytest.mark.skipif(torch.cuda.is_available(), reason="the symptoms are those of a machine without CUDA"),
]

CASES = bad_cases(FIXTURES / "TL104_pin_memory_without_cuda")
STEPS = 6
# What each bad fixture does here: raise on its first pin, or warn from the DataLoader.
RAISES = {
    "bad_chat_trainer_get_batch.py", "bad_pinned_staging_buffer.py", "bad_collate_pins_batch.py", "bad_batchify_pins_under_cuda_switch.py"
}
WARNS = {"bad_loader_kwargs_on_mps_or_cpu.py", "bad_loader_on_accelerator_or_cpu.py", "bad_wrapper_forwards_loader_kwargs.py"}
# The CPU build of torch says one of the first two; a CUDA build on a machine without a GPU driver the third.
PIN_ERRORS = r"pin_memory=True requires a CUDA or other accelerator backend|Cannot access accelerator device|Found no NVIDIA driver"
PIN_WARNING = "'pin_memory' argument is set as true but no accelerator is found"


def _pin_warnings(run) -> list:
    return [message for message in run.warnings_of(UserWarning) if "pin_memory" in message]


def test_every_bad_fixture_declares_its_symptom() -> None:
    assert sorted(path.name for path in CASES) == sorted(RAISES | WARNS)


@pytest.mark.parametrize("bad", [c for c in CASES if c.name in RAISES], ids=case_id)
def test_bad_tensor_pinning_raises_without_cuda(bad: Path) -> None:
    with pytest.raises(RuntimeError, match=PIN_ERRORS):
        run_fixture(bad, seed=0, max_steps=STEPS)


@pytest.mark.parametrize("bad", [c for c in CASES if c.name in WARNS], ids=case_id)
def test_bad_loader_warns_and_pins_nothing(bad: Path) -> None:
    run = run_fixture(bad, seed=0, max_steps=STEPS)
    assert any(PIN_WARNING in message for message in _pin_warnings(run)), run.warnings_of()


@pytest.mark.parametrize("bad", CASES, ids=case_id)
def test_fixed_fixture_runs_without_pinning_and_trains_like_reference(bad: Path) -> None:
    run = run_fixture(snapshot_of(bad), seed=0, max_steps=STEPS)
    assert _pin_warnings(run) == []
    assert_trains_like_reference(run.losses, "lstm", seed=0, max_steps=STEPS)
