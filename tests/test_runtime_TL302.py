"""TL302 at run time: each bad fixture fails on its float indices at the first step; its fixed snapshot
trains like the reference's text task.

The symptom is PyTorch's own error for the index position the finding names (an embedding's
input, a cross-entropy target). The fixed files must not just run: their per-step losses must equal
``reference_trainer.run("text")`` exactly, which fails if the fix changed a value (a truncated id,
a lost label) on its way to the model.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from tests.fixture_cases import FIXTURES, snapshot_of  # noqa: E402
from tests.runtime_harness import assert_trains_like_reference, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

DIRECTORY = FIXTURES / "TL302_float_index_tensors"
STEPS = 5
EMBEDDING = r"Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"
TARGET = r"expected target dtype to be Long"
# What each bad fixture raises first, as PyTorch words it.
SYMPTOM = {
    "bad_post_mortem_float_token_ids.py": EMBEDDING,
    "bad_functional_embedding_float_cast.py": EMBEDDING,
    "bad_cross_entropy_float_targets.py": TARGET,
    "bad_tokenizer_ids_as_float.py": EMBEDDING,
    "bad_dataset_item_float_ids.py": EMBEDDING,
    "bad_zero_padded_ids.py": EMBEDDING,
    "bad_helper_returns_float_ids.py": EMBEDDING,
    "bad_ids_masked_in_place.py": EMBEDDING,
}


def test_every_bad_fixture_declares_its_symptom() -> None:
    bad = {p.name for p in DIRECTORY.glob("bad_*.py") if not p.name.endswith(".fixed.py")}
    assert bad == set(SYMPTOM)


@pytest.mark.parametrize("name", sorted(SYMPTOM))
def test_bad_fixture_fails_on_float_indices(name: str) -> None:
    with pytest.raises(RuntimeError, match=SYMPTOM[name]):
        run_fixture(DIRECTORY / name, seed=0, max_steps=STEPS)


@pytest.mark.parametrize("name", sorted(SYMPTOM))
def test_fixed_fixture_trains_like_reference(name: str) -> None:
    fixed = run_fixture(snapshot_of(DIRECTORY / name), seed=0, max_steps=STEPS)
    assert len(fixed.losses) == STEPS
    assert_trains_like_reference(fixed.losses, "text", seed=0, max_steps=STEPS)
    assert not fixed.warnings
