"""Runtime proof for TL401 undetached-loss-accumulation.

Each bad fixture is run for 2 and then 4 steps, and what it kept beyond the
step (declared below, read from ``main``'s locals when it returns) is
measured as the number of autograd nodes still reachable from it: for the
bad script that number is positive and grows with the number of steps (every
step's graph stays alive). The auto-fixed snapshot keeps no graph at all and
trains exactly like ``reference_trainer`` (same per-step losses).
"""

from __future__ import annotations

import collections
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, Tuple

import pytest

torch = pytest.importorskip("torch")

from tests.runtime_harness import assert_trains_like_reference, graph_size, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "TL401_undetached_loss_accumulation"

# fixture -> (reference task, what it keeps across steps, taken from main's locals)
KEPT: Dict[str, Tuple[str, Callable[[Dict[str, Any]], Any]]] = {
    "bad_epoch_running_loss": ("lstm", lambda scope: (scope["running_loss"], scope["batch_losses"])),
    "bad_tensor_accumulators": ("regression", lambda scope: (scope["loss_accum"], scope["totals"])),
    "bad_metrics_update": ("lstm", lambda scope: scope["meter"].train_losses),
    "bad_step_log_dicts": ("text", lambda scope: scope["trainer"].log_history),
    "bad_lightning_step_outputs": ("lstm", lambda scope: scope["epoch_mean"]),  # built from the kept outputs
    "bad_hf_outputs_loss": ("text", lambda scope: scope["mean_loss"]),
    "bad_trainer_attribute_sums": ("lstm", lambda scope: (scope["trainer"].epoch_loss, scope["trainer"].smoothed_loss)),
    "bad_step_function_returns_loss": ("lstm", lambda scope: (scope["total"], scope["log"])),
    "bad_range_step_loop": ("lstm", lambda scope: scope["total_loss"]),
    "bad_while_next_batch": ("lstm", lambda scope: scope["window"]),
    "bad_tqdm_bar_in_with": ("lstm", lambda scope: scope["recent"]),
    "bad_loss_dict_totals": ("lstm", lambda scope: scope["totals"]),
    "bad_weighted_task_losses": ("lstm", lambda scope: scope["task_totals"]),
    "bad_meter_update": ("lstm", lambda scope: scope["trainer"].meter.total),
    "bad_step_closure_losses": ("lstm", lambda scope: scope["step_losses"]),
}


def test_every_bad_fixture_is_measured() -> None:
    assert sorted(KEPT) == sorted(p.stem for p in FIXTURES.glob("bad_*.py") if not p.stem.endswith(".fixed"))


@contextmanager
def main_locals() -> Iterator[Dict[str, Any]]:
    """Capture the local variables of a fixture's ``main`` as it returns."""
    captured: Dict[str, Any] = {}
    previous = sys.getprofile()

    def profile(frame, event, arg) -> None:
        if event == "return" and frame.f_code.co_name == "main" and frame.f_globals["__name__"].startswith("_trainlint_fixture_"):
            captured.update(frame.f_locals)

    sys.setprofile(profile)
    try:
        yield captured
    finally:
        sys.setprofile(previous)


def retained_graph(value: Any) -> int:
    """Autograd nodes reachable from every tensor inside ``value`` (tuples, lists, dicts, deques, objects' dicts)."""
    if isinstance(value, torch.Tensor):
        return graph_size(value)
    if isinstance(value, dict):
        return sum(retained_graph(v) for v in value.values())
    if isinstance(value, (list, tuple, collections.deque)):
        return sum(retained_graph(v) for v in value)
    return 0


def kept_after(path: Path, steps: int) -> Tuple[Any, list]:
    task, kept = KEPT[path.name.split(".")[0]]
    with main_locals() as scope:
        run = run_fixture(path, seed=0, max_steps=steps)
    return kept(scope), run.losses


@pytest.mark.parametrize("case", sorted(KEPT))
def test_bad_fixture_keeps_a_growing_graph(case: str) -> None:
    early, _ = kept_after(FIXTURES / f"{case}.py", 2)
    late, _ = kept_after(FIXTURES / f"{case}.py", 4)
    assert 0 < retained_graph(early) < retained_graph(late)


@pytest.mark.parametrize("case", sorted(KEPT))
def test_fixed_fixture_keeps_no_graph_and_trains_like_reference(case: str) -> None:
    kept, losses = kept_after(FIXTURES / f"{case}.fixed.py", 4)
    assert retained_graph(kept) == 0
    assert_trains_like_reference(losses, KEPT[case][0], seed=0, max_steps=4)
