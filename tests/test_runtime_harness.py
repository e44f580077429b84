"""The runtime harness: the README's fixture skeletons reproduce the reference, and the comparison can fail."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from reference_trainer import TASKS  # noqa: E402
from tests.runtime_harness import (  # noqa: E402
    assert_trains_like_reference,
    graph_size,
    reference_losses,
    run_fixture,
)

pytestmark = pytest.mark.runtime

README = Path(__file__).resolve().parent.parent / "reference_trainer" / "README.md"
TASK_NAMES = sorted(TASKS)


def skeleton(task: str) -> str:
    """The fixture skeleton documented for ``task`` in reference_trainer/README.md."""
    found = re.search(rf"<!-- skeleton: {task} -->\n```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert found, f"README.md has no skeleton for {task!r}"
    return found.group(1)


def write(tmp_path: Path, source: str, name: str = "bad_case.fixed.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


@pytest.mark.parametrize("max_steps", [None, 5])
@pytest.mark.parametrize("task", TASK_NAMES)
def test_skeleton_matches_the_reference_exactly(task: str, max_steps, tmp_path: Path) -> None:
    source = skeleton(task)
    assert 15 <= len(source.splitlines()) <= 25
    options = {} if max_steps is None else {"max_steps": max_steps}
    fixed = run_fixture(write(tmp_path, source), seed=0, **options)
    assert fixed.warnings == []
    assert len(fixed.losses) == (max_steps or 16)
    assert_trains_like_reference(fixed.losses, task, seed=0, **options)
    assert fixed.losses == reference_losses(task, seed=0, **options)  # bit for bit on the CPU


@pytest.mark.parametrize("task", TASK_NAMES)
def test_skeleton_follows_the_seed(task: str, tmp_path: Path) -> None:
    fixed = run_fixture(write(tmp_path, skeleton(task)), seed=3, max_steps=3)
    assert_trains_like_reference(fixed.losses, task, seed=3, max_steps=3)
    with pytest.raises(AssertionError):
        assert_trains_like_reference(fixed.losses, task, seed=0, max_steps=3)


@pytest.mark.parametrize("task", TASK_NAMES)
@pytest.mark.parametrize("hyper_parameter", ["lr", "batch_size"])
def test_a_different_hyper_parameter_fails_the_comparison(task: str, hyper_parameter: str, tmp_path: Path) -> None:
    value = getattr(TASKS[task], hyper_parameter)
    literal = f"{hyper_parameter}={value!r}"
    source = skeleton(task)
    assert source.count(literal) == 1, f"the {task} skeleton must spell {literal} (TASKS[{task!r}])"
    changed = source.replace(literal, f"{hyper_parameter}={value * 2!r}")
    fixed = run_fixture(write(tmp_path, changed), max_steps=4)
    assert len(fixed.losses) == 4
    first_difference = 1 if hyper_parameter == "lr" else 0  # a new lr shows after the first update
    with pytest.raises(AssertionError, match=f"step {first_difference} differs"):
        assert_trains_like_reference(fixed.losses, task, max_steps=4)


def test_a_different_step_count_fails_with_a_readable_message() -> None:
    losses = reference_losses("regression", max_steps=4)
    with pytest.raises(AssertionError, match="3 steps, reference has 4"):
        assert_trains_like_reference(losses[:3], "regression", max_steps=4)
    tampered = [*losses[:2], losses[2] * (1 + 1e-5), *losses[3:]]
    with pytest.raises(AssertionError, match=r"step 2 differs.*1 of 4 steps differ"):
        assert_trains_like_reference(tampered, "regression", max_steps=4)
    within_tolerance = [loss * (1 + 1e-7) for loss in losses]
    assert_trains_like_reference(within_tolerance, "regression", max_steps=4)


def test_reference_losses_are_cached_and_safe_to_mutate() -> None:
    first = reference_losses("text", max_steps=2)
    first.append(0.0)
    assert reference_losses("text", max_steps=2) == first[:2]


def test_run_fixture_records_warnings_and_seeds_the_global_rng(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        import warnings
        import torch

        warnings.warn("at import", DeprecationWarning)

        def main(device="cpu", seed=0, max_steps=None, **kwargs):
            warnings.warn("in main", UserWarning)
            warnings.warn("in main", UserWarning)  # recorded every time, not once
            return {"losses": [torch.rand(()).item()], "seed": seed, "kwargs": kwargs}
        """,
    )
    first = run_fixture(path, seed=7, extra=1)
    assert first.result["seed"] == 7 and first.result["kwargs"] == {"extra": 1}
    assert first.warnings_of(DeprecationWarning) == ["at import"]
    assert first.warnings_of(UserWarning) == ["in main", "in main"]
    assert run_fixture(path, seed=7).losses == first.losses
    assert run_fixture(path, seed=8).losses != first.losses


def test_run_fixture_isolates_module_state(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        from dataclasses import dataclass

        @dataclass
        class Counter:  # a dataclass needs its module in sys.modules
            calls: int = 0

        COUNTER = Counter()

        def main(seed=0, **kwargs):
            COUNTER.calls += 1
            return {"losses": [float(COUNTER.calls)]}
        """,
    )
    first, second = run_fixture(path), run_fixture(path)
    assert first.losses == second.losses == [1.0]
    assert first.module is not second.module


def test_run_fixture_propagates_exceptions_and_checks_the_contract(tmp_path: Path) -> None:
    failing = write(tmp_path, "def main(**kwargs):\n    raise TypeError(\"unexpected keyword argument 'idx'\")\n")
    with pytest.raises(TypeError, match="idx"):
        run_fixture(failing)
    no_losses = write(tmp_path, "def main(**kwargs):\n    return {}\n", name="no_losses.py")
    with pytest.raises(AssertionError, match="'losses'"):
        run_fixture(no_losses)


def test_bad_fixture_losses_keep_tensors_and_graph_size_sees_them_grow(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        import torch
        from reference_trainer.models import make_regression_model

        def main(seed=0, max_steps=3, **kwargs):
            model = make_regression_model(seed)
            x = torch.ones(4, 8)
            total_loss, total_float = 0, 0.0
            for _ in range(max_steps):
                loss = model(x).pow(2).mean()
                total_loss += loss  # keeps every step's graph alive
                total_float += loss.item()
            return {"losses": [total_loss], "total": total_loss, "total_float": total_float}
        """,
    )
    short, long = run_fixture(path, max_steps=2), run_fixture(path, max_steps=6)
    assert short.result["losses"][0].grad_fn is not None  # FixtureRun.result keeps the raw tensors
    assert isinstance(short.losses[0], float)
    assert graph_size(long.result["total"]) > graph_size(short.result["total"]) > 0
    assert graph_size(short.result["total_float"]) == 0
    assert graph_size(torch.ones(1)) == 0


@pytest.mark.cuda
@pytest.mark.parametrize("task", TASK_NAMES)
def test_skeleton_on_cuda_matches_the_cuda_reference(task: str, tmp_path: Path) -> None:
    fixed = run_fixture(write(tmp_path, skeleton(task)), device="cuda", max_steps=5)
    assert fixed.warnings == []
    assert_trains_like_reference(fixed.losses, task, max_steps=5, device="cuda", rtol=1e-5, atol=1e-6)
