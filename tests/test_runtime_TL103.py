"""TL103 at run time: each bad fixture moves its whole data set in one transfer before the first batch;
each fixed snapshot moves one batch per transfer and trains like the reference's lstm task.
On a GPU (``cuda`` mark) the same runs go to ``cuda``: the bad fixture's whole data set sits in
GPU memory at once, the fixed one's never more than a batch of it per transfer.

On the CPU a transfer to the device is a no-op, but the call is still made: every ``Tensor.to`` on a
data tensor (model parameters aside) is recorded with the bytes it would copy to the accelerator.
The whole lstm data set is 512 windows; a batch is 32 of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

torch = pytest.importorskip("torch")

from reference_trainer.data import lstm_arrays  # noqa: E402
from tests.fixture_cases import FIXTURES, bad_cases, snapshot_of  # noqa: E402
from tests.runtime_harness import assert_trains_like_reference, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

DIRECTORY = FIXTURES / "TL103_dataset_on_accelerator"
BAD = [p for p in bad_cases(DIRECTORY) if not p.name.startswith("bad_tf_")]  # TensorFlow: test_runtime_TL103_tf.py
STEPS = 4
WINDOWS, _ = lstm_arrays(0)
WHOLE = WINDOWS.nbytes  # the windows of the whole data set
ONE_BATCH = WINDOWS[:32].nbytes


@pytest.fixture
def transfers(monkeypatch: pytest.MonkeyPatch) -> List[int]:
    """Bytes of each ``Tensor.to`` call on a tensor that is not a model parameter, in call order."""
    moved: List[int] = []
    original = torch.Tensor.to

    def to(self: "torch.Tensor", *args, **kwargs):
        if not isinstance(self, torch.nn.Parameter):
            moved.append(self.element_size() * self.nelement())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.Tensor, "to", to)
    return moved


def test_there_are_bad_fixtures() -> None:
    assert len(BAD) >= 4


@pytest.mark.parametrize("bad", BAD, ids=lambda p: p.stem)
def test_bad_fixture_moves_the_whole_data_set_at_once(bad: Path, tmp_path: Path, transfers: List[int]) -> None:
    run = run_fixture(bad, seed=0, max_steps=STEPS, data_dir=str(tmp_path))
    assert len(run.losses) == STEPS
    assert max(transfers) >= WHOLE, "no transfer carried the whole data set"


@pytest.mark.parametrize("bad", BAD, ids=lambda p: p.stem)
def test_fixed_fixture_moves_one_batch_at_a_time_and_trains_like_reference(bad: Path, tmp_path: Path, transfers: List[int]) -> None:
    fixed = run_fixture(snapshot_of(bad), seed=0, max_steps=STEPS, data_dir=str(tmp_path))
    assert max(transfers) <= ONE_BATCH, f"a transfer of {max(transfers)} bytes is more than one batch"
    assert len(transfers) >= 2 * STEPS  # windows and labels, every step
    assert_trains_like_reference(fixed.losses, "lstm", seed=0, max_steps=STEPS)


@pytest.mark.cuda
@pytest.mark.parametrize("bad", BAD, ids=lambda p: p.stem)
def test_on_cuda_the_bad_fixture_holds_the_whole_data_set_and_the_fixed_one_a_batch(bad: Path, tmp_path: Path, transfers: List[int]) -> None:
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    run = run_fixture(bad, seed=0, max_steps=STEPS, data_dir=str(tmp_path), device="cuda")
    assert len(run.losses) == STEPS
    assert max(transfers) >= WHOLE and torch.cuda.max_memory_allocated() - before >= WHOLE
    transfers.clear()
    fixed = run_fixture(snapshot_of(bad), seed=0, max_steps=STEPS, data_dir=str(tmp_path), device="cuda")
    assert len(fixed.losses) == STEPS and all(loss == loss for loss in fixed.losses)  # trained, no NaN
    assert max(transfers) <= ONE_BATCH, f"a transfer of {max(transfers)} bytes is more than one batch"
