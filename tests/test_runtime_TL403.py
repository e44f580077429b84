"""Runtime proof for TL403 oom-handler-keeps-step.

The model of each fixture raises ``torch.OutOfMemoryError`` in the middle of
the backward of one chosen step, after the gradients of its later layers are
already in ``.grad`` (a real OOM in backward leaves exactly that). Two
symptoms of the bad handlers are observed on the CPU:

* when they clear memory (``torch.cuda.empty_cache``, recorded here), the
  failed step's output tensor is still alive: the cache cannot give back
  what is still referenced;
* the partial gradient survives into the next step, which then trains on
  the sum of two steps' gradients: the per-step losses part from
  ``reference_trainer``'s loop, which skips the same batch after freeing it.

The auto-fixed snapshots free the step before the cache is emptied and
train exactly like ``reference_trainer`` with the same batch skipped.
"""

from __future__ import annotations

import sys
import weakref
from pathlib import Path
from typing import Any, List, Optional

import pytest

torch = pytest.importorskip("torch")

import reference_trainer.models  # noqa: E402
from reference_trainer.loop import train_epoch  # noqa: E402
from reference_trainer.tasks import TASKS, build  # noqa: E402
from tests.runtime_harness import run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "TL403_oom_handler_keeps_step"
BAD = sorted(p for p in FIXTURES.glob("bad_*.py") if not p.name.endswith(".fixed.py"))
FAILING_CALL = 2  # the second forward pass runs out of memory in its backward
STEPS = 5


class _OutOfMemoryInBackward(torch.autograd.Function):
    """Identity forward; a backward that fails like CUDA does when an allocation cannot be served."""

    @staticmethod
    def forward(ctx: Any, anchor: "torch.Tensor") -> "torch.Tensor":
        return anchor.clone()

    @staticmethod
    def backward(ctx: Any, grad: "torch.Tensor") -> "torch.Tensor":
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")


class FailsOnce(torch.nn.Module):
    """Wraps a model; its ``FAILING_CALL``-th forward builds a graph whose backward fails after the
    wrapped model's own gradients are accumulated (the failing node is the last one the engine reaches)."""

    def __init__(self, inner: "torch.nn.Module") -> None:
        super().__init__()
        self.inner = inner
        self.calls = 0
        self.failed_output: Optional[weakref.ref] = None

    def forward(self, x: "torch.Tensor") -> "torch.Tensor":
        self.calls += 1
        if self.calls != FAILING_CALL:
            return self.inner(x)
        failing = _OutOfMemoryInBackward.apply(torch.zeros((), requires_grad=True))
        output = self.inner(x) + failing * 0
        self.failed_output = weakref.ref(output)
        return output


@pytest.fixture
def failing_models(monkeypatch: pytest.MonkeyPatch) -> List[FailsOnce]:
    made: List[FailsOnce] = []
    original = reference_trainer.models.make_lstm_model

    def make(seed: int = 0) -> FailsOnce:
        made.append(FailsOnce(original(seed)))
        return made[-1]

    monkeypatch.setattr(reference_trainer.models, "make_lstm_model", make)
    return made


@pytest.fixture
def cache_clears(monkeypatch: pytest.MonkeyPatch, failing_models: List[FailsOnce]) -> List[bool]:
    """For each ``torch.cuda.empty_cache()`` after the failure: is the failed step's output still alive?

    The fixtures train on the CPU; only the cache calls see a GPU."""
    alive: List[bool] = []

    def empty_cache() -> None:
        model = failing_models[-1] if failing_models else None
        if model is not None and model.failed_output is not None:
            alive.append(model.failed_output() is not None)

    real_is_available = torch.cuda.is_available

    def is_available() -> bool:
        """True to the fixtures, so their clean-up guarded by it runs as on a GPU; torch's own callers (the
        optimizers' capture check) get the real answer, which a CUDA build without a driver must keep False."""
        return Path(sys._getframe(1).f_code.co_filename).parent == FIXTURES or real_is_available()

    monkeypatch.setattr(torch.cuda, "empty_cache", empty_cache)
    monkeypatch.setattr(torch.cuda, "is_available", is_available)
    return alive


def reference_with_the_same_failure(seed: int = 0) -> List[float]:
    """``reference_trainer``'s loop over the lstm task with the same failing step (skipped, gradients freed)."""
    spec = TASKS["lstm"]
    task = build("lstm", seed)
    model = FailsOnce(task.model)
    loader = torch.utils.data.DataLoader(task.dataset, batch_size=spec.batch_size, shuffle=False)
    return train_epoch(model, loader, spec.make_optimizer(model.parameters()), "cpu", loss_fn=task.loss_fn, max_steps=STEPS)


def test_the_failure_leaves_a_partial_gradient() -> None:
    """The injected failure behaves like a real OOM in backward: some gradients are already accumulated."""
    model = FailsOnce(reference_trainer.models.make_lstm_model(0))
    model(torch.zeros(2, 10, 8)).sum().backward()
    with pytest.raises(torch.OutOfMemoryError):
        model(torch.zeros(2, 10, 8)).sum().backward()
    assert any(p.grad is not None for p in model.inner.parameters())


@pytest.mark.parametrize("bad", BAD, ids=lambda p: p.stem)
def test_bad_handler_clears_memory_while_the_step_is_alive_and_keeps_its_gradient(
    bad: Path, failing_models: List[FailsOnce], cache_clears: List[bool]
) -> None:
    run = run_fixture(bad, seed=0, max_steps=STEPS)
    assert failing_models[-1].calls == STEPS
    assert True in cache_clears, "the handler emptied the cache while the failed step's output was alive"
    expected = reference_with_the_same_failure()
    assert len(run.losses) == len(expected) == STEPS - 1
    assert run.losses[: FAILING_CALL - 1] == pytest.approx(expected[: FAILING_CALL - 1], rel=1e-6)
    assert run.losses[FAILING_CALL:] != pytest.approx(expected[FAILING_CALL:], rel=1e-6), "the stale gradient changed nothing"


@pytest.mark.parametrize("bad", BAD, ids=lambda p: p.stem)
def test_fixed_handler_frees_the_step_first_and_trains_like_reference(
    bad: Path, failing_models: List[FailsOnce], cache_clears: List[bool]
) -> None:
    fixed = bad.with_name(bad.stem + ".fixed.py")
    run = run_fixture(fixed, seed=0, max_steps=STEPS)
    assert cache_clears and not any(cache_clears), "the cache was emptied while the failed step was alive"
    expected = reference_with_the_same_failure()
    assert run.losses == pytest.approx(expected, rel=1e-6, abs=1e-7)
