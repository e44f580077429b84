"""Runtime proof for TL402 unbounded-step-history.

With the history bound set to ``N`` through the rule option
``history-maxlen`` (the way a user's config passes it), each bad fixture run
for ``N + 1`` steps holds ``N + 1`` entries in its history while its fixed
version (the checked-in snapshot with ``N`` for 4096) holds ``N`` and trains
exactly like ``reference_trainer``. The fixed scripts still write valid JSON:
the seed's ``GradientTracker`` report has the same summary statistics as the
unfixed one and the last ``N`` norms. A fix bounds only the history it
reports: another class's trimmed list of the same attribute name stays a list.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, Tuple

import pytest

pytest.importorskip("torch")

from tests.runtime_harness import FixtureRun, assert_trains_like_reference, run_fixture  # noqa: E402
from trainlint.engine import RuleSettings, fix_source  # noqa: E402
from trainlint.registry import ALL_CODES  # noqa: E402

pytestmark = pytest.mark.runtime

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "TL402_unbounded_step_history"
BOUND = 3

# fixture -> (reference task, the length of its per-step history once main returns)
HISTORY: Dict[str, Tuple[str, Callable[[FixtureRun], int]]] = {
    "bad_gradient_tracker": ("lstm", lambda run: len(run.result["tracker"].global_norms)),
    "bad_param_history": ("regression", lambda run: len(run.result["trainer"].param_history)),
    "bad_grad_norm_profiler": ("lstm", lambda run: len(run.result["profiler"].grad_norms)),
    "bad_dashboard": ("regression", lambda run: len(run.result["dashboard"].losses)),
    "bad_metric_series": ("text", lambda run: len(run.result["trainer"].history["loss"])),
    "bad_run_records": ("lstm", lambda run: run.result["records"]),
    "bad_history_copies": ("regression", lambda run: len(run.result["logger"].losses)),
    "bad_same_attribute_two_classes": ("regression", lambda run: len(run.result["log"].values)),
    "bad_step_count_loop_recorder": ("lstm", lambda run: len(run.result["recorder"].rates)),
    "bad_unpacked_histories": ("lstm", lambda run: len(run.result["batches_seen"])),
    "bad_single_step_loop": ("lstm", lambda run: len(run.result["grad_norms"])),
    "bad_module_level_history": ("lstm", lambda run: len(run.result["grad_norms"])),
}


def test_every_bad_fixture_is_measured() -> None:
    assert sorted(HISTORY) == sorted(p.stem for p in FIXTURES.glob("bad_*.py") if not p.stem.endswith(".fixed"))


def fixed_with_bound(bad: Path, bound: int, directory: Path) -> Path:
    """Fix ``bad`` as ``trainlint fix --unsafe-fixes`` does with ``history-maxlen = bound`` configured.

    The result is the checked-in snapshot with its bound replaced: what runs
    here is what users get.
    """
    settings = RuleSettings(ALL_CODES, {"TL402": {"history-maxlen": bound}})
    fixed = fix_source(bad.read_text(encoding="utf-8"), str(bad), settings, unsafe_fixes=True)
    assert not fixed.errors
    snapshot = bad.with_name(bad.stem + ".fixed.py").read_text(encoding="utf-8")
    assert "maxlen=4096)" in snapshot
    assert fixed.text == snapshot.replace("maxlen=4096)", f"maxlen={bound})")
    path = directory / bad.name
    path.write_text(fixed.text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fixed_paths(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    directory = tmp_path_factory.mktemp("tl402")
    return {case: fixed_with_bound(FIXTURES / f"{case}.py", BOUND, directory) for case in HISTORY}


@pytest.mark.parametrize("case", sorted(HISTORY))
def test_fixed_history_stays_at_its_bound_and_trains_like_reference(case: str, fixed_paths: Dict[str, Path]) -> None:
    task, length = HISTORY[case]
    bad = run_fixture(FIXTURES / f"{case}.py", max_steps=BOUND + 1)
    fixed = run_fixture(fixed_paths[case], max_steps=BOUND + 1)
    assert length(bad) == BOUND + 1
    assert length(fixed) == BOUND
    assert_trains_like_reference(fixed.losses, task, seed=0, max_steps=BOUND + 1)


def _json_output(path: Path, option: str, directory: Path) -> Any:
    """Run the fixture with its output-file option pointing into ``directory`` and parse it as strict JSON."""
    directory.mkdir(parents=True, exist_ok=True)
    output = directory / f"{path.stem}.json"
    run_fixture(path, max_steps=BOUND + 1, **{option: str(output)})
    return json.loads(output.read_text(encoding="utf-8"), parse_constant=pytest.fail)  # NaN/Infinity fail


def test_fixed_tracker_report_is_valid_json_with_the_same_statistics(fixed_paths: Dict[str, Path], tmp_path: Path) -> None:
    before = _json_output(FIXTURES / "bad_gradient_tracker.py", "report_path", tmp_path / "before")
    after = _json_output(fixed_paths["bad_gradient_tracker"], "report_path", tmp_path / "after")
    for statistic in ("steps", "mean", "std", "vanishing_steps"):
        assert after[statistic] == before[statistic]
    assert after["global_norms"] == before["global_norms"][-BOUND:]
    assert after["last"] == before["last"][-BOUND:]


def test_fixed_records_are_valid_json(fixed_paths: Dict[str, Path], tmp_path: Path) -> None:
    before = _json_output(FIXTURES / "bad_run_records.py", "records_path", tmp_path / "before")
    after = _json_output(fixed_paths["bad_run_records"], "records_path", tmp_path / "after")
    assert after == before[-BOUND:]


def test_fixed_summary_hands_out_lists_and_stays_valid_json(fixed_paths: Dict[str, Path], tmp_path: Path) -> None:
    """``self.losses.copy()`` and a sliced series read lists again: same values over the last BOUND steps."""
    before = _json_output(FIXTURES / "bad_history_copies.py", "summary_path", tmp_path / "before")
    after = _json_output(fixed_paths["bad_history_copies"], "summary_path", tmp_path / "after")
    assert after["losses"] == before["losses"][-BOUND:]
    assert after["recent_mean"] == before["recent_mean"]
    assert after["last_lr"] == before["last_lr"]


def test_fixed_run_log_leaves_the_other_class_of_the_same_attribute_name_alone(fixed_paths: Dict[str, Path]) -> None:
    """``RunLog.values`` becomes a deque; ``SmoothedLoss.values``, trimmed by its own class, stays the same list."""
    bad = run_fixture(FIXTURES / "bad_same_attribute_two_classes.py", max_steps=BOUND + 1)
    fixed = run_fixture(fixed_paths["bad_same_attribute_two_classes"], max_steps=BOUND + 1)
    assert type(fixed.result["smoothed"].values) is list
    assert fixed.result["smoothed"].values == bad.result["smoothed"].values
    assert list(fixed.result["log"].values) == bad.result["log"].values[-BOUND:]
