"""Runtime proof for TL405 missing-zero-grad.

Every optimizer step of a fixture is observed through torch's global
optimizer step pre-hook: the gradient the step applies, and, from gradient
hooks on the parameters, what each step's own ``backward()`` contributed.
In a bad fixture the gradient applied at step k of the optimizer the finding
names is the sum of the k steps' own gradients: it carries every earlier
step's, so it grows with every step. In the auto-fixed snapshot every
optimizer applies its own step's gradient only, and the fixed script trains
exactly like ``reference_trainer`` (same per-step losses).

The Accelerate fixture accumulates gradients over two batches per step (a
step's own gradient is then its window's) and runs against
``tests/accelerate_stand_in.py``, Accelerate not being installed here; its
fixed script trains like ``reference_trainer`` with the same accumulation.
"""

from __future__ import annotations

import contextlib
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest

torch = pytest.importorskip("torch")

from torch.optim.optimizer import register_optimizer_step_pre_hook  # noqa: E402

from tests.accelerate_stand_in import accelerate_stand_in  # noqa: E402
from tests.runtime_harness import assert_trains_like_reference, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "TL405_missing_zero_grad"
STEPS = 6

# fixture -> reference task its losses are compared with
TASKS: Dict[str, str] = {
    "bad_epoch_loop": "lstm",
    "bad_while_next_batch": "regression",
    "bad_trainer_step_method": "text",
    "bad_scaler_step": "lstm",
    "bad_probe_never_cleared": "lstm",
    "bad_accelerate_accumulate": "lstm",
}
# fixture -> batches whose gradients one optimizer step applies (1 where not listed)
ACCUMULATION: Dict[str, int] = {"bad_accelerate_accumulate": 2}

Step = Tuple[torch.Tensor, torch.Tensor]  # (gradient applied by the step, the step's own backward contribution)


def test_every_bad_fixture_is_measured() -> None:
    assert sorted(TASKS) == sorted(p.stem for p in FIXTURES.glob("bad_*.py") if not p.stem.endswith(".fixed"))


@contextmanager
def optimizer_steps() -> Iterator[Dict[int, List[Step]]]:
    """Record, per optimizer, each step's applied gradient and its own contribution (all parameters flattened)."""
    steps: Dict[int, List[Step]] = {}
    pending: Dict[torch.Tensor, torch.Tensor] = {}
    hooked: Dict[int, bool] = {}

    def collect(parameter: torch.Tensor):
        def hook(gradient: torch.Tensor) -> None:
            pending[parameter] = pending.get(parameter, torch.zeros_like(gradient)) + gradient.detach()

        return hook

    def before_step(optimizer, args, kwargs) -> None:
        parameters = [p for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        applied = torch.cat([p.grad.detach().flatten() for p in parameters]).double()
        if not hooked.get(id(optimizer)):  # first step: nothing came before its backward
            own = applied.clone()
            for p in parameters:
                p.register_hook(collect(p))
            hooked[id(optimizer)] = True
        else:
            own = torch.cat([pending.get(p, torch.zeros_like(p)).flatten() for p in parameters]).double()
        for p in parameters:
            pending.pop(p, None)
        steps.setdefault(id(optimizer), []).append((applied.clone(), own))

    handle = register_optimizer_step_pre_hook(before_step)
    try:
        yield steps
    finally:
        handle.remove()


def batches(case: str) -> Dict[str, int]:
    """The run's length in batches for ``STEPS`` optimizer steps, and its accumulation where it has one."""
    accumulation = ACCUMULATION.get(case)
    return {"max_steps": STEPS * accumulation, "accumulation_steps": accumulation} if accumulation else {"max_steps": STEPS}


def run_observed(case: str, path: Path) -> Tuple[List[List[Step]], List[float]]:
    libraries = accelerate_stand_in() if case in ACCUMULATION else contextlib.nullcontext()
    with libraries, optimizer_steps() as steps:
        run = run_fixture(path, seed=0, **batches(case))
    return list(steps.values()), run.losses


def carries_earlier_steps(steps: List[Step]) -> bool:
    """Each applied gradient is the running sum of the steps' own gradients, and not just the step's own."""
    running = torch.zeros_like(steps[0][1])
    for index, (applied, own) in enumerate(steps):
        running = running + own
        if not torch.allclose(applied, running, rtol=1e-5, atol=1e-7):
            return False
        if index > 0 and torch.allclose(applied, own, rtol=1e-5, atol=1e-7):
            return False
    return True


@pytest.mark.parametrize("case", sorted(TASKS))
def test_bad_fixture_applies_gradients_summed_over_every_step(case: str) -> None:
    per_optimizer, _ = run_observed(case, FIXTURES / f"{case}.py")
    assert all(len(steps) == STEPS for steps in per_optimizer)
    accumulating = [steps for steps in per_optimizer if carries_earlier_steps(steps)]
    assert len(accumulating) == 1  # the optimizer the finding names; a cleared one (the probe's model) does not
    carried = [float((applied - own).norm()) for applied, own in accumulating[0]]
    assert carried[0] == 0 and all(c > 0 for c in carried[1:])


@pytest.mark.parametrize("case", sorted(TASKS))
def test_fixed_fixture_applies_each_steps_own_gradient_and_trains_like_reference(case: str) -> None:
    per_optimizer, losses = run_observed(case, FIXTURES / f"{case}.fixed.py")
    for steps in per_optimizer:
        assert len(steps) == STEPS
        assert all(torch.equal(applied, own) for applied, own in steps)
    assert_trains_like_reference(losses, TASKS[case], seed=0, **batches(case))
