"""TL301 shapes beyond the fixtures: the evidence each ok trap hides, odd code, the inserted helper.

The fixtures prove the main cases end to end; here each ok fixture is also
edited to remove the one thing that makes it correct, and must then be
reported, so that no trap passes merely because the rule saw nothing at all.
"""

from __future__ import annotations

import functools
import inspect
import textwrap
from typing import List

import pytest

from trainlint.rules.batches.tl301_unfiltered_batch_kwargs import FILTER_HELPER
from tests.fixture_cases import FIXTURES
from trainlint.engine import RuleSettings, fix_source, lint_source

SETTINGS = RuleSettings(codes=frozenset({"TL301"}))
DIRECTORY = FIXTURES / "TL301_unfiltered_batch_kwargs"


def messages(source: str) -> List[str]:
    result = lint_source(textwrap.dedent(source), "case.py", SETTINGS)
    assert not result.errors, result.errors
    assert all(d.code == "TL301" for d in result.diagnostics), result.diagnostics  # no syntax error
    return [d.message for d in result.diagnostics]


DATASET = """
import torch
from torch.utils.data import DataLoader, Dataset

class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return {"input_ids": torch.ones(4, dtype=torch.long), "labels": 1, "idx": index}

loader = DataLoader(Items(), batch_size=4)
"""


# ----- every ok trap is one edit away from a finding --------------------------------------------

@pytest.mark.parametrize(
    "fixture, correct, broken, key",
    [
        ("ok_tokenizer_outputs.py", "model(**inputs,", "model(**batch,", "idx"),
        ("ok_glue_remove_columns.py", ', remove_columns=["sentence1", "sentence2", "idx"]', "", "sentence1"),
        ("ok_set_format_columns.py", 'encoded.set_format("torch", columns=["input_ids", "attention_mask", "labels"])', "", "text"),
        ("ok_pop_labels.py", 'labels = batch.pop("labels")', 'labels = batch["labels"]', "labels"),
        ("ok_filtered_comprehension.py", " if k in MODEL_INPUTS", "", "idx"),
        ("ok_filtered_comprehension.py", ' if k not in ["idx", "sentence"]', "", "idx"),
        ("ok_library_collator.py", ", collate_fn=TokenizeAndPad(tokenizer, max_length=128)", "", "idx"),
        ("ok_factory_kwargs.py", "describe(**batch)", "model(**batch)", "idx"),
        ("ok_kwargs_forward.py", ", **metadata", "", "idx"),
        ("ok_getitem_index_kwargs_forward.py", ", **unused", "", "idx"),
        ("ok_getitem_index_popped.py", 'rows = batch.pop("idx")', 'rows = batch["idx"]', "idx"),
        ("ok_glue_map_remove_columns.py", ', remove_columns=["sentence", "idx"]', "", "idx"),
        ("ok_glue_remove_columns_method.py", '["sentence", "idx"]', '["sentence"]', "idx"),
        ("ok_glue_set_format_tensor_columns.py", ', columns=["input_ids", "token_type_ids", "attention_mask", "labels"]', "", "idx"),
        ("ok_model_named_functions.py", "print(summarize_model_inputs(**batch))", "print(self.model(**batch))", "idx"),
    ],
)
def test_ok_fixture_is_reported_once_its_guard_is_removed(fixture: str, correct: str, broken: str, key: str) -> None:
    source = (DIRECTORY / fixture).read_text(encoding="utf-8")
    assert source.count(correct) == 1
    assert messages(source) == []
    found = messages(source.replace(correct, broken))
    assert len(found) == 1 and f"'{key}'" in found[0]


# ----- where batches and keys come from ---------------------------------------------------------

def test_load_dataset_column_read_by_the_tokenizer_is_reported() -> None:
    found = messages(
        """
        from datasets import load_dataset
        from torch.utils.data import DataLoader

        raw = load_dataset("imdb")
        encoded = raw.map(lambda rows: tokenizer(rows["text"], truncation=True), batched=True)
        for batch in DataLoader(encoded["train"].shuffle(seed=0), batch_size=8):
            model(**batch).loss.backward()
        """
    )
    assert len(found) == 1 and "'text' (raw text for the tokenizer" in found[0]


def test_a_rename_rebinding_the_same_name_is_followed_in_source_order() -> None:
    found = messages(
        """
        from datasets import load_dataset
        from torch.utils.data import DataLoader

        def encode(rows):
            return tokenizer(rows["text"])

        data = load_dataset("imdb", split="train").map(encode, batched=True)
        data = data.rename_column("text", "review")
        for batch in DataLoader(data):
            model(**batch)
        """
    )
    assert len(found) == 1 and "'review' (raw text for the tokenizer" in found[0] and "'text'" not in found[0]


def test_next_iter_loader_and_model_forward_are_batches_and_models() -> None:
    found = messages(DATASET + "batch = next(iter(loader))\nnet.forward(**batch)\n")
    assert len(found) == 1 and "'idx' (the item's index, from Items.__getitem__)" in found[0]


@pytest.mark.parametrize(
    "getitem",
    [
        'item = {"input_ids": ids}\nif self.keep_index:\n    item["idx"] = index\nreturn item',
        'return self.transform({"input_ids": ids, "idx": index})',
        'if index % 2:\n    return {"input_ids": ids, "idx": index}\nreturn {"input_ids": ids}',
        'return {"input_ids": ids, "idx": self.ids[index]}',
        'item = {k: v[index] for k, v in self.enc.items()}\nitem["idx"] = index\nif self.augment:\n    item = self.transform(item)\nreturn item',
        'item = self.rows[index]\nitem["idx"] = index\nfor item in self.views(item):\n    pass\nreturn item',
    ],
    ids=["conditional-key", "transformed", "one-return-only", "value-not-the-index", "rebound-under-if", "rebound-by-loop"],
)
def test_keys_not_provably_carried_are_silent(getitem: str) -> None:
    dataset = "class Items(Dataset):\n    def __getitem__(self, index):\n        ids = self.ids[index]\n"
    loop = "for batch in DataLoader(Items()):\n    model(**batch)\n"
    unguarded = 'return {"input_ids": ids, "idx": index}'
    source = "from torch.utils.data import DataLoader, Dataset\n" + dataset + textwrap.indent(getitem, " " * 8) + "\n" + loop
    assert not messages(source)
    assert len(messages(source.replace(textwrap.indent(getitem, " " * 8), " " * 8 + unguarded))) == 1


@pytest.mark.parametrize(
    "collate",
    [
        "batch = {}\n    for key in items[0]:\n        if torch.is_tensor(items[0][key]):\n            batch[key] = torch.stack([i[key] for i in items])\n    return batch",
        "batch = {}\n    for key in items[0]:\n        if key == 'idx':\n            continue\n        batch[key] = [i[key] for i in items]\n    return batch",
        "return {key: [i[key] for i in items] for key in items[0] if key != 'idx'}",
        "return {'input_ids': torch.stack([i['input_ids'] for i in items])}",
    ],
    ids=["keeps-tensors-only", "skips-a-key", "filtered-comprehension", "explicit-keys"],
)
def test_collate_functions_that_drop_keys_are_silent(collate: str) -> None:
    source = DATASET.replace("batch_size=4)", "batch_size=4, collate_fn=collate)")
    source = source.replace("loader = ", f"def collate(items):\n    {collate}\n\nloader = ")
    assert not messages(source + "for batch in loader:\n    model(**batch)\n")


def test_collate_copying_every_key_with_a_comprehension_keeps_the_evidence() -> None:
    source = DATASET.replace("batch_size=4)", "batch_size=4, collate_fn=collate)")
    collate = "def collate(items):\n    return {key: [i[key] for i in items] for key in items[0].keys()}\n\n"
    found = messages(source.replace("loader = ", collate + "loader = ") + "for batch in loader:\n    model(**batch)\n")
    assert len(found) == 1 and "'idx'" in found[0]


COLLATORS = """
from torch.utils.data import default_collate

class Collator:
    def __call__(self, items):
        return {COLLATED}

def make_collate():
    def collate(items):
        return {COLLATED}
    return collate
"""


@pytest.mark.parametrize("collate_fn", ["Collator()", "make_collate()"], ids=["collator-instance", "factory-closure"])
@pytest.mark.parametrize(
    "collated, reported",
    [("default_collate(items)", True), ("{'input_ids': torch.stack([i['input_ids'] for i in items])}", False)],
    ids=["copies-every-key", "explicit-keys"],
)
def test_a_collate_callable_is_followed_to_the_function_the_loader_calls(collate_fn: str, collated: str, reported: bool) -> None:
    source = DATASET.replace("batch_size=4)", f"batch_size=4, collate_fn={collate_fn})")
    source = source.replace("loader = ", COLLATORS.replace("{COLLATED}", collated) + "\nloader = ")
    found = messages(source + "for batch in loader:\n    model(**batch)\n")
    assert (len(found) == 1 and "'idx'" in found[0]) if reported else not found


@pytest.mark.parametrize(
    "loop",
    [
        "for batch in loader:\n    key = 'idx'\n    batch.pop(key)\n    model(**batch)",
        "for batch in loader:\n    del batch['idx']\n    model(**batch)",
        "for batch in loader:\n    batch = move_batch(batch, 'cpu')\n    model(**batch)",
        "for batch in loader:\n    batch = {k: v for k, v in batch.items() if k != 'idx'}\n    model(**batch)",
        "for batch in loader:\n    print(**batch)\n    collate(**batch)",
        "for inputs, labels in loader:\n    model(**inputs)",
    ],
    ids=["pop-unknown-key", "del-key", "library-mover", "filtered-rebinding", "not-a-model", "tuple-batch"],
)
def test_batches_shaped_or_used_by_hand_are_silent(loop: str) -> None:
    assert not messages(DATASET + "from reference_trainer.devices import move_batch\n" + loop + "\n")


def test_per_step_method_is_silent_when_one_caller_filters_the_batch() -> None:
    source = DATASET + textwrap.dedent(
        """
        class Trainer:
            def step(self, batch):
                return self.model(**batch)

            def fit(self, loader):
                for batch in loader:
                    self.step(batch)
                for batch in loader:
                    self.step({k: v for k, v in batch.items() if k != "idx"})
        """
    )
    assert not messages(source)


def test_handed_in_loader_needs_every_loader_of_the_module_to_carry_the_key() -> None:
    train = "def train(model, loader):\n    for batch in loader:\n        model(**batch)\n"
    assert len(messages(DATASET + train)) == 1
    other = "eval_loader = DataLoader(Items(), batch_size=4, collate_fn=library_collate)\n"
    assert not messages(DATASET + other + train)


def test_known_forward_decides_without_value_evidence() -> None:
    model = textwrap.dedent(
        """
        class Classifier(torch.nn.Module):
            def forward(self, input_ids, labels=None, *, idx=None):
                return input_ids

        model = Classifier().to("cpu")
        """
    )
    assert not messages(DATASET + model + "for batch in loader:\n    model(**batch)\n")
    strict = model.replace(", *, idx=None", "")
    found = messages(DATASET + strict + "for batch in loader:\n    model(**batch)\n")
    assert len(found) == 1 and "Classifier.forward()" in found[0] and "'idx'" in found[0]


def test_decorated_forward_still_accepts_its_parameters_but_proves_no_rejection() -> None:
    model = textwrap.dedent(
        """
        class Classifier(torch.nn.Module):
            @torch.autocast("cpu")
            def forward(self, input_ids, idx=None):
                return input_ids

        model = Classifier()
        """
    )
    loop = "for batch in loader:\n    model(**batch)\n"
    assert not messages(DATASET + model + loop)  # 'labels' may be taken by the decorator
    found = messages(DATASET + model.replace(", idx=None", ", labels=None") + loop)
    assert len(found) == 1 and "'idx'" in found[0] and "'labels'" not in found[0]


GETITEM_POPS_INDEX = DATASET.replace(
    'return {"input_ids": torch.ones(4, dtype=torch.long), "labels": 1, "idx": index}',
    'item = {"input_ids": torch.ones(4, dtype=torch.long), "labels": 1, "idx": index}\n'
    '        item.pop("idx")\n'
    "        return item",
)
COLLATE_DELETES_INDEX = DATASET.replace("batch_size=4)", "batch_size=4, collate_fn=collate)").replace(
    "loader = ",
    "def collate(items):\n"
    "    out = {}\n"
    "    for key in items[0]:\n"
    "        out[key] = [item[key] for item in items]\n"
    '    del out["idx"]\n'
    "    return out\n\n"
    "loader = ",
)


@pytest.mark.parametrize(
    "source, removal",
    [(GETITEM_POPS_INDEX, 'item.pop("idx")'), (COLLATE_DELETES_INDEX, 'del out["idx"]')],
    ids=["popped-in-getitem", "deleted-in-collate"],
)
def test_keys_removed_while_building_the_item_or_batch_are_silent(source: str, removal: str) -> None:
    loop = "for batch in loader:\n    model(**batch)\n"
    assert source.count(removal) == 1
    assert not messages(source + loop)
    assert len(messages(source.replace(removal, "pass") + loop)) == 1


def test_label_for_a_forward_taking_labels_is_named_with_the_rename() -> None:
    source = DATASET.replace('"labels": 1', '"label": 1') + textwrap.dedent(
        """
        class Classifier(torch.nn.Module):
            def forward(self, input_ids, labels=None):
                return input_ids

        model = Classifier()
        for batch in loader:
            model(**batch)
        """
    )
    [message] = messages(source)
    assert "'label'" in message and "'idx'" in message and "passes 'label' as 'labels'" in message


@pytest.mark.parametrize(
    "code",
    [
        "f()(**batch)",
        "model(**{})",
        "model(*args, **batch)",
        "batch = batch\nmodel(**batch)",
        "a = b\nb = a\nmodel(**a)",
        "class Net(Net):\n    pass\nnet = Net()\nnet(**batch)",
        "def step(batch):\n    step(batch)\n    model(**batch)",
        "model = build(pretrained=cfg.pretrained)\nfor batch in loader:\n    model(**batch)",
        "for batch in DataLoader():\n    model(**batch)",
        "for batch in DataLoader(dataset=Items, collate_fn=lambda b: b):\n    model(**batch)",
        "class Items(Dataset):\n    def __getitem__(self):\n        return {'idx': 1}\nfor b in DataLoader(Items()):\n    model(**b)",
    ],
)
def test_odd_code_neither_crashes_nor_reports(code: str) -> None:
    assert not messages("from torch.utils.data import DataLoader, Dataset\n" + code + "\n")


# ----- the fix ----------------------------------------------------------------------------------

def test_two_calls_get_the_helper_and_imports_once() -> None:
    source = DATASET + "for batch in loader:\n    model(**batch)\n    model(**batch)\n"
    fixed = fix_source(source, "case.py", SETTINGS, unsafe_fixes=True)
    assert not fixed.errors and fixed.applied["TL301"] == 2
    assert fixed.text.count("def _forward_kwargs(") == 1 and fixed.text.count("import inspect") == 1
    assert fixed.text.count("model(**_forward_kwargs(model, batch))") == 2
    assert fix_source(source, "case.py", SETTINGS, unsafe_fixes=False).text == source


@pytest.fixture()
def helper():
    namespace = {"functools": functools, "inspect": inspect}
    exec(FILTER_HELPER, namespace)  # noqa: S102 - the exact text the fix inserts
    return namespace


def test_helper_keeps_forward_parameters_and_renames_label_only_when_needed(helper) -> None:
    torch = pytest.importorskip("torch")

    class Strict(torch.nn.Module):
        def forward(self, input_ids, attention_mask=None, labels=None):
            return input_ids

    class WantsLabel(torch.nn.Module):
        def forward(self, input_ids, label=None):
            return input_ids

    class TakesAll(torch.nn.Module):
        def forward(self, input_ids, **kwargs):
            return input_ids

    batch = {"input_ids": 1, "attention_mask": 2, "label": 3, "idx": 4, "sentence": "s"}
    forward_kwargs = helper["_forward_kwargs"]
    assert forward_kwargs(Strict(), batch) == {"input_ids": 1, "attention_mask": 2, "labels": 3}
    assert forward_kwargs(Strict(), {**batch, "labels": 9}) == {"input_ids": 1, "attention_mask": 2, "labels": 9}
    assert forward_kwargs(WantsLabel(), batch) == {"input_ids": 1, "label": 3}
    assert forward_kwargs(TakesAll(), batch) == batch
    forward_kwargs(Strict(), batch)
    assert helper["_forward_parameters"].cache_info().currsize == 3  # once per model class


def test_helper_looks_through_compile_and_data_parallel_to_the_model_that_gets_the_batch(helper) -> None:
    torch = pytest.importorskip("torch")

    class Strict(torch.nn.Module):
        def forward(self, input_ids, labels=None):
            return input_ids

    class PassesOn(torch.nn.Module):  # names no parameter: hands every input to ``module``
        def __init__(self, module) -> None:
            super().__init__()
            self.module = module

        def forward(self, *args, **kwargs):
            return self.module(*args, **kwargs)

    class OwnModuleAttribute(torch.nn.Module):  # takes its own parameters: its ``module`` is not the target
        def __init__(self) -> None:
            super().__init__()
            self.module = Strict()

        def forward(self, input_ids, idx=None, **kwargs):
            return input_ids

    batch = {"input_ids": 1, "label": 3, "idx": 4}
    forward_kwargs = helper["_forward_kwargs"]
    expected = {"input_ids": 1, "labels": 3}
    assert forward_kwargs(torch.compile(Strict()), batch) == expected  # forward is ``_forward_unimplemented``
    assert forward_kwargs(torch.nn.DataParallel(Strict()), batch) == expected
    assert forward_kwargs(PassesOn(torch.compile(Strict())), batch) == expected
    assert forward_kwargs(OwnModuleAttribute(), batch) == batch
    assert forward_kwargs(PassesOn("a name, not a module"), batch) == batch


def test_model_wrapped_in_data_parallel_or_compile_is_checked_against_the_wrapped_forward() -> None:
    model = textwrap.dedent(
        """
        class Classifier(torch.nn.Module):
            def forward(self, input_ids, labels=None, idx=None):
                return input_ids

        model = {wrapped}
        for batch in loader:
            model(**batch)
        """
    )
    for wrapped in ("torch.nn.DataParallel(Classifier())", "torch.compile(Classifier().to('cpu'), mode='max-autotune')"):
        assert not messages(DATASET + model.format(wrapped=wrapped))
        found = messages(DATASET + model.replace(", idx=None", "").format(wrapped=wrapped))
        assert len(found) == 1 and "Classifier.forward()" in found[0] and "'idx'" in found[0]


@pytest.mark.parametrize(
    "prepare",
    [
        "model, optimizer, loader = accelerator.prepare(model, optimizer, loader)",
        "loader = accelerator.prepare(loader)\nmodel = accelerator.prepare(model)",
    ],
    ids=["unpacked", "one-by-one"],
)
def test_accelerator_prepare_gives_back_the_same_loader_and_model(prepare: str) -> None:
    model = "class Classifier(torch.nn.Module):\n    def forward(self, input_ids, labels=None):\n        return input_ids\n\n"
    model += "model = Classifier()\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    loop = "for batch in loader:\n    model(**batch)\n"
    found = messages(DATASET + model + prepare + "\n" + loop)
    assert len(found) == 1 and "Classifier.forward()" in found[0] and "'idx'" in found[0]
    unknown = "model, loader = accelerator.prepare(*parts)" if "," in prepare else "loader = accelerator.prepare(loader, model)"
    assert not messages(DATASET + model + unknown + "\n" + loop)


def test_no_fix_when_filtering_would_drop_labels_that_forward_takes_under_another_name() -> None:
    source = DATASET + textwrap.dedent(
        """
        class Classifier(torch.nn.Module):
            def forward(self, input_ids, targets=None):
                return input_ids

        model = Classifier()
        for batch in loader:
            model(**batch)
        """
    )
    [message] = messages(source)
    assert "'labels'" in message and "no fix" in message
    fixed = fix_source(textwrap.dedent(source), "case.py", SETTINGS, unsafe_fixes=True)
    assert not fixed.errors and not fixed.applied.get("TL301")


def test_helper_raises_rather_than_drop_labels_that_forward_does_not_take(helper) -> None:
    torch = pytest.importorskip("torch")

    class Targets(torch.nn.Module):
        def forward(self, input_ids, targets=None):
            return input_ids

    forward_kwargs = helper["_forward_kwargs"]
    for labels in ("label", "labels"):
        with pytest.raises(TypeError, match="takes neither 'label' nor 'labels'"):
            forward_kwargs(Targets(), {"input_ids": 1, labels: 2, "idx": 3})
    assert forward_kwargs(Targets(), {"input_ids": 1, "targets": 2, "idx": 3}) == {"input_ids": 1, "targets": 2}


@pytest.mark.parametrize(
    "getitem, reported",
    [
        ('item = {k: v[index] for k, v in self.enc.items()}\nitem["idx"] = index\nreturn item', "'idx' (the item's index"),
        ('item = self.rows[index]\nitem["row"] = torch.tensor(index)\nreturn item', "'row' (the item's index"),
        ('item = dict(self.rows[index])\nitem["path"] = os.path.join(self.root, "x")\nreturn item', "'path' (a file path"),
    ],
    ids=["dict-comprehension-then-index", "index-as-tensor", "path"],
)
def test_keys_added_to_an_item_of_unknown_keys_are_reported_for_a_model_of_unknown_class(getitem: str, reported: str) -> None:
    source = (
        "import os\nimport torch\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Items(Dataset):\n    def __getitem__(self, index):\n" + textwrap.indent(getitem, " " * 8) + "\n"
        "def train(model, device):\n    for batch in DataLoader(Items()):\n        model(**batch)\n"
    )
    found = messages(source)
    assert len(found) == 1 and reported in found[0]
    assert "which is not a model input: TypeError on the first step unless forward() takes **kwargs" in found[0]


def test_a_batch_filtered_to_its_tensors_keeps_the_index_and_drops_the_text() -> None:
    source = DATASET.replace('"idx": index}', '"idx": index, "sentence": f"row {index}"}') + (
        "for batch in loader:\n"
        "    batch = {k: v.to('cpu') for k, v in batch.items() if isinstance(v, torch.Tensor)}\n"
        "    model(**batch)\n"
    )
    found = messages(source)
    assert len(found) == 1 and "'idx'" in found[0] and "'sentence'" not in found[0]
    unfiltered = messages(source.replace(" if isinstance(v, torch.Tensor)", ""))
    assert len(unfiltered) == 1 and "'sentence'" in unfiltered[0]


@pytest.mark.parametrize(
    "paths, reported",
    [
        ('sorted(glob.glob(os.path.join(root, "*.png")))', True),
        ("os.listdir(root)", True),
        ('[os.path.join(root, name) for name in names]', True),
        ("load_index(root)", False),
        ("[Path(root) / name for name in names]", False),
    ],
    ids=["sorted-glob", "listdir", "joined-names", "unknown-helper", "path-objects"],
)
def test_an_item_read_from_a_list_of_file_names_is_a_file_path(paths: str, reported: bool) -> None:
    source = f"""
import glob
import os
from pathlib import Path
from torch.utils.data import DataLoader, Dataset

class Images(Dataset):
    def __init__(self, root, names):
        self.paths = {paths}

    def __getitem__(self, idx):
        item = load(self.paths[idx])
        item["path"] = self.paths[idx]
        return item

def train(model, root, names):
    for batch in DataLoader(Images(root, names), batch_size=8):
        model(**batch).loss.backward()
"""
    found = messages(source)
    assert len(found) == int(reported)
    assert not reported or "'path' (a file path, from Images.__getitem__)" in found[0]


GLUE_WITH_COLLATOR = """
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, DataCollatorWithPadding, default_data_collator

def tokenize(batch):
    return tokenizer(batch["sentence"], truncation=True)

def train(device):
    tokenized = load_dataset("glue", "sst2").map(tokenize, batched=True, remove_columns=["sentence"])
    collator = COLLATOR
    loader = DataLoader(tokenized["train"], batch_size=32, collate_fn=collator)
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2).to(device)
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        model(**batch).loss.backward()
"""


@pytest.mark.parametrize("collator", ["DataCollatorWithPadding(tokenizer=tokenizer)", "default_data_collator"])
def test_a_transformers_collator_keeps_the_index_of_a_glue_row(collator: str) -> None:
    source = GLUE_WITH_COLLATOR.replace("COLLATOR", collator)
    found = messages(source)
    assert len(found) == 1 and "'idx' (the row index, from load_dataset(\"glue\", \"sst2\"))" in found[0]
    assert "'labels'" not in found[0] and "'label'" not in found[0]
    assert not messages(source.replace('remove_columns=["sentence"]', 'remove_columns=["sentence", "idx"]'))


def test_a_padding_collator_over_raw_text_fails_before_the_model_and_is_left_alone() -> None:
    source = GLUE_WITH_COLLATOR.replace("COLLATOR", "DataCollatorWithPadding(tokenizer)")
    assert not messages(source.replace(', remove_columns=["sentence"]', ""))


PAD_COLLATE = """
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer

def train(device):
    tokenizer = AutoTokenizer.from_pretrained("bert-base-cased")

    def tokenize_function(examples):
        return tokenizer(examples["sentence1"], examples["sentence2"], truncation=True)

    datasets = load_dataset("nyu-mll/glue", "mrpc")
    tokenized = datasets.map(tokenize_function, batched=True, remove_columns=REMOVED)
    tokenized = tokenized.rename_column("label", "labels")

    def collate_fn(examples):
        return tokenizer.pad(examples, padding="longest", return_tensors="pt")

    loader = DataLoader(tokenized["train"], shuffle=True, collate_fn=collate_fn, batch_size=16)
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased").to(device)
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        model(**batch).loss.backward()
"""


def test_a_collate_returning_tokenizer_pad_keeps_the_index() -> None:
    kept = PAD_COLLATE.replace("REMOVED", '["sentence1", "sentence2"]')
    found = messages(kept)
    assert len(found) == 1 and "'idx' (the row index" in found[0] and "'labels'" not in found[0]
    assert not messages(PAD_COLLATE.replace("REMOVED", '["idx", "sentence1", "sentence2"]'))
    assert not messages(kept.replace("tokenizer.pad(examples,", "pad_batch(examples,"))


def test_a_model_read_through_a_property_of_a_base_class_is_still_a_model() -> None:
    source = DATASET + textwrap.dedent(
        """
        class Base:
            @property
            def model(self):
                return self._model

        class Trainer(Base):
            def fit(self):
                for batch in loader:
                    self.model(**batch)
        """
    )
    found = messages(source)
    assert len(found) == 1 and "'idx'" in found[0]
