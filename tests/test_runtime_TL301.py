"""TL301 at run time: each bad fixture dies on its extra batch key; its fixed snapshot trains like the reference.

The symptom is Python's own ``TypeError`` for the key the finding names. The
fixed files must not just run: their per-step losses must equal
``reference_trainer.run("text")`` exactly, which fails if the fix dropped the
labels (no loss), kept an extra key, or changed what reaches the model.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tests.fixture_cases import FIXTURES, snapshot_of  # noqa: E402
from tests.hub_stand_ins import hub_stand_ins  # noqa: E402
from tests.runtime_harness import reference_losses, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

DIRECTORY = FIXTURES / "TL301_unfiltered_batch_kwargs"
STEPS = 5
# The key each bad fixture's forward() rejects first, as Python names it.
EXTRA_KEY = {
    "bad_seed_custom_collate.py": "idx",
    "bad_move_every_key.py": "idx",
    "bad_training_step_method.py": "source",
    "bad_enumerate_loader.py": "text",
    "bad_same_module_model.py": "label",
    "bad_data_parallel_wrapper.py": "row",
    "bad_getitem_adds_index.py": "idx",
    "bad_glue_map_keeps_idx.py": "idx",
    "bad_glue_remove_columns_keeps_idx.py": "idx",
}
# Fixtures written against the Hugging Face hub: run with in-memory stand-ins (no download here).
HUB_FIXTURES = {"bad_glue_map_keeps_idx.py", "bad_glue_remove_columns_keeps_idx.py"}


def _libraries(name: str, seed: int) -> contextlib.AbstractContextManager:
    return hub_stand_ins(seed) if name in HUB_FIXTURES else contextlib.nullcontext()


def test_every_bad_fixture_declares_its_symptom() -> None:
    bad = {p.name for p in DIRECTORY.glob("bad_*.py") if not p.name.endswith(".fixed.py")}
    assert bad == set(EXTRA_KEY)


@pytest.mark.parametrize("name", sorted(EXTRA_KEY))
def test_bad_fixture_raises_type_error_naming_the_extra_key(name: str) -> None:
    with _libraries(name, seed=0), pytest.raises(TypeError, match=rf"unexpected keyword argument '{EXTRA_KEY[name]}'"):
        run_fixture(DIRECTORY / name, seed=0, max_steps=STEPS)


@pytest.mark.parametrize("name", sorted(EXTRA_KEY))
@pytest.mark.parametrize("seed", [0, 3])
def test_fixed_fixture_trains_exactly_like_the_reference(name: str, seed: int) -> None:
    with _libraries(name, seed):
        fixed = run_fixture(snapshot_of(Path(DIRECTORY / name)), seed=seed, max_steps=STEPS)
    assert fixed.losses == reference_losses("text", seed=seed, max_steps=STEPS)
    assert not fixed.warnings, fixed.warnings_of()


def test_fixed_seed_trainer_runs_a_whole_epoch_like_the_reference() -> None:
    fixed = run_fixture(snapshot_of(DIRECTORY / "bad_seed_custom_collate.py"), seed=1)
    assert len(fixed.losses) == 16
    assert fixed.losses == reference_losses("text", seed=1)
