"""Runtime proof for TL404 eval-without-no-grad.

Each bad fixture trains a few steps the reference way, then evaluates. What
its evaluation loop computes (read from the evaluating function's locals as
it returns) carries a ``grad_fn``: every forward pass recorded a graph. The
auto-fixed snapshot's outputs carry none, and its metric is the bad one's,
equal to ``reference_trainer``'s evaluation of the same trained model
(``run(..., evaluate=True)``); its training losses equal the reference's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

torch = pytest.importorskip("torch")

from reference_trainer import run  # noqa: E402
from tests.runtime_harness import assert_trains_like_reference, locals_on_return, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "TL404_eval_without_no_grad"
STEPS = 4

# fixture -> (reference task, the function that evaluates, what its forward passes produced, from its locals)
OUTPUTS: Dict[str, Tuple[str, str, Callable[[Dict[str, Any]], List[Any]]]] = {
    "bad_validate_function": ("lstm", "validate", lambda scope: [scope["logits"], scope["loss"]]),
    "bad_epoch_with_validation": ("regression", "main", lambda scope: [scope["prediction"], scope["val_loss"]]),
    "bad_collected_outputs": ("lstm", "predict", lambda scope: scope["all_logits"]),
    "bad_trainer_evaluate_method": ("text", "_eval_step", lambda scope: [scope["output"].logits, scope["output"].loss]),
    "bad_fit_loop_validation_step": ("lstm", "validation_step", lambda scope: [scope["y_pred"], scope["loss"]]),
    "bad_test_loop_of_module_instance": ("lstm", "main", lambda scope: [scope["logits"], scope["loss"]]),
    "bad_model_put_in_eval_by_caller": ("lstm", "evaluate_all", lambda scope: [scope["logits"], scope["loss"]]),
}


def test_every_bad_fixture_is_measured() -> None:
    assert sorted(OUTPUTS) == sorted(p.stem for p in FIXTURES.glob("bad_*.py") if not p.stem.endswith(".fixed"))


def evaluated(path: Path) -> Tuple[List[Any], Dict[str, Any], List[float]]:
    _, function, outputs = OUTPUTS[path.name.split(".")[0]]
    with locals_on_return(function) as scope:
        result = run_fixture(path, seed=0, max_steps=STEPS)
    return outputs(scope), result.result, result.losses


@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_bad_evaluation_records_a_graph_and_the_fix_records_none_with_equal_metrics(case: str) -> None:
    bad_outputs, bad, _ = evaluated(FIXTURES / f"{case}.py")
    fixed_outputs, fixed, fixed_losses = evaluated(FIXTURES / f"{case}.fixed.py")
    assert bad_outputs and all(o.grad_fn is not None for o in bad_outputs)
    assert fixed_outputs and all(o.grad_fn is None and not o.requires_grad for o in fixed_outputs)
    assert {k: v for k, v in fixed.items() if k != "losses"} == {k: v for k, v in bad.items() if k != "losses"}
    task = OUTPUTS[case][0]
    reference = run(task, seed=0, max_steps=STEPS, evaluate=True)
    assert fixed["eval_loss"] == pytest.approx(reference.eval_loss, rel=1e-6)
    assert_trains_like_reference(fixed_losses, task, seed=0, max_steps=STEPS)
