"""TL101/TL102 static behaviour the fixtures do not pin down: fix applicability, odd code, argument reading.

Both rules read the shared placement fact (rules/loaders/placement.py)
and offer the same fix, so the cases here cover both.
"""

from __future__ import annotations

import textwrap
from typing import List, Tuple

import pytest

from trainlint.diagnostics import Applicability
from trainlint.engine import RuleSettings, fix_source, lint_source

SETTINGS = RuleSettings(codes=frozenset({"TL101", "TL102"}))
HEADER = "import torch\nfrom torch.utils.data import DataLoader, Dataset, TensorDataset\n"


def _source(body: str) -> str:
    return HEADER + textwrap.dedent(body)


def _findings(body: str) -> List[Tuple[int, str]]:
    result = lint_source(_source(body), "train.py", SETTINGS)
    assert not result.errors, result.errors
    return [(d.location.row - HEADER.count("\n"), d.code) for d in result.diagnostics]


def _fixed(body: str) -> str:
    result = fix_source(_source(body), "train.py", SETTINGS, unsafe_fixes=True)
    assert not result.errors, result.errors
    return result.text[len(HEADER) :]


def _only_fix(body: str):
    (diagnostic,) = lint_source(_source(body), "train.py", SETTINGS).diagnostics
    return diagnostic.fix


DATASET_CLASS = """
class Windows(Dataset):
    def __init__(self, X, device):
        self.X = X.to(device)

    def __getitem__(self, i):
        return self.X[i]
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            DATASET_CLASS + "loader = DataLoader(Windows(X, 'cpu'), pin_memory=True, num_workers=2)\n",
            [],
            id="dataset-class-built-for-the-cpu",
        ),
        pytest.param(
            DATASET_CLASS + "def f(X, pin):\n    return DataLoader(Windows(X, 'cuda'), pin_memory=pin)\n",
            [(9, "TL101")],
            id="pin-memory-from-a-parameter",
        ),
        pytest.param(
            "def f(X, device, loader_kwargs):\n    return DataLoader(TensorDataset(X.to(device)), **loader_kwargs)\n",
            [],
            id="opaque-kwargs-count-as-absent",
        ),
        pytest.param(
            "WORKERS = 0\ndef f(X):\n    return DataLoader(TensorDataset(X.cuda()), num_workers=WORKERS)\n",
            [],
            id="worker-count-provably-zero-through-a-name",
        ),
        pytest.param(
            "def f(X, args):\n    return DataLoader(TensorDataset(X.cuda()), batch_size=8, num_workers=args.workers)\n",
            [(2, "TL102")],
            id="worker-count-from-config",
        ),
        pytest.param(
            "class Rows(Dataset):\n    def __getitem__(self, i):\n        return self.rows[i].cuda()\n"
            "def f():\n    return DataLoader(Rows(), batch_size=8, num_workers=4)\n",
            [(5, "TL102")],
            id="getitem-returns-cuda-tensors",
        ),
        pytest.param(
            "def f(X):\n    return DataLoader(TensorDataset(torch.cuda.FloatTensor(X)), pin_memory=True)\n",
            [(2, "TL101")],
            id="cuda-tensor-type",
        ),
        pytest.param(
            "def f(X, device):\n    X = X.to(device)\n    X = X.to(torch.float32).cpu()\n"
            "    return DataLoader(TensorDataset(X), pin_memory=True)\n",
            [],
            id="moved-back-to-the-cpu",
        ),
        pytest.param(
            "def f(X, y):\n    ds = TensorDataset(X.cuda(), y.cuda())\n"
            "    train, val = torch.utils.data.random_split(ds, [0.8, 0.2])\n"
            "    return DataLoader(train, pin_memory=True), "
            "DataLoader(torch.utils.data.ConcatDataset([val]), num_workers=2)\n",
            [(4, "TL101"), (4, "TL102")],
            id="views-of-a-staged-dataset",
        ),
        pytest.param(
            "def collate(samples):\n    x = torch.stack(samples)\n"
            "    return x, torch.ones(len(x), device=x.device), torch.arange(3).to(samples[0].device)\n"
            "loader = DataLoader(data, collate_fn=collate, pin_memory=True, num_workers=2)\n",
            [],
            id="tensors-made-on-the-device-of-cpu-items",
        ),
        pytest.param(
            "def collate(samples, device):\n    x = torch.stack(samples).to(device)\n"
            "    return x, torch.ones(len(x), device=x.device)\n"
            "loader = DataLoader(data, collate_fn=lambda s: collate(s, 'cuda'), pin_memory=True)\n",
            [(4, "TL101")],
            id="tensors-made-on-the-device-of-accelerator-items",
        ),
        pytest.param(
            "def f(X, y):\n    ds = TensorDataset(X.cuda(), y.cuda())\n"
            "    a = DataLoader(ds, num_workers=2, multiprocessing_context='spawn')\n"
            "    b = DataLoader(ds, num_workers=2, multiprocessing_context='fork')\n",
            [(4, "TL102")],
            id="spawned-workers-may-use-cuda",
        ),
        pytest.param(
            "torch.multiprocessing.set_start_method('spawn')\n"
            "loader = DataLoader(TensorDataset(X.cuda()), num_workers=2)\n",
            [],
            id="spawn-start-method-for-the-module",
        ),
        pytest.param(
            "sets = {'train': TensorDataset(X.cuda(), y.cuda()), 'val': TensorDataset(Xv.cuda(), yv.cuda())}\n"
            "loaders = {split: DataLoader(ds, num_workers=4) for split, ds in sets.items()}\n",
            [(2, "TL102")],
            id="loaders-per-split-in-a-dict-comprehension",
        ),
        pytest.param(
            "sets = {'train': TensorDataset(X.cuda(), y.cuda())}\nloaders = {}\n"
            "for split, ds in sets.items():\n    loaders[split] = DataLoader(ds, pin_memory=True)\n",
            [(4, "TL101")],
            id="loaders-per-split-in-a-loop",
        ),
        pytest.param(
            "parts = [TensorDataset(X.cuda(), y.cuda()), TensorDataset(Xv.cuda(), yv.cuda())]\n"
            "loaders = [DataLoader(ds, num_workers=2) for i, ds in enumerate(parts)]\n"
            "pinned = [DataLoader(ds, pin_memory=True) for name, ds in zip(names, parts)]\n",
            [(2, "TL102"), (3, "TL101")],
            id="loaders-over-enumerate-and-zip",
        ),
        pytest.param(
            "sets = {torch.device('cuda'): TensorDataset(X, y)}\n"
            "a = [DataLoader(ds, num_workers=2) for device, ds in sets.items()]\n"
            "b = [DataLoader(TensorDataset(X.to(device)), num_workers=2) for device in sets]\n"
            "c = [DataLoader(ds, pin_memory=True) for i, ds in enumerate(sets.values())]\n",
            [(3, "TL102")],
            id="keys-and-values-of-a-dict-kept-apart",
        ),
        pytest.param(
            "sets = {'train': TensorDataset(X, y), 'val': TensorDataset(Xv, yv)}\n"
            "loaders = {split: DataLoader(ds, num_workers=4, pin_memory=True) for split, ds in sets.items()}\n",
            [],
            id="loaders-per-split-over-cpu-data",
        ),
        pytest.param(
            "def odd(ts, y, cfg, *args, **kw):\n"
            "    DataLoader(*args, **kw)\n"
            "    DataLoader(pin_memory=True)\n"
            "    DataLoader(x.cuda() for x in y)(pin_memory=cfg.pin)\n"
            "    DataLoader(TensorDataset(*ts), pin_memory=True, collate_fn=None)\n"
            "    DataLoader(TensorDataset(torch.load(path, map_location='cuda')), pin_memory=True)\n",
            [],
            id="odd-code",
        ),
    ],
)
def test_findings(body: str, expected: List[Tuple[int, str]]) -> None:
    assert _findings(body) == expected


def test_loader_consumed_in_another_module_gets_an_unsafe_fix_saying_where_to_move() -> None:
    body = """
    def make_loader(X, y):
        return DataLoader(TensorDataset(X.cuda(), y.cuda()), batch_size=8, pin_memory=True)
    """
    fix = _only_fix(body)
    assert fix.applicability is Applicability.UNSAFE
    assert "`x = x.cuda(non_blocking=True)`" in fix.message
    assert "DataLoader(TensorDataset(X, y), batch_size=8, pin_memory=True)" in _fixed(body)


def test_no_fix_when_the_moved_tensor_also_feeds_other_code() -> None:
    body = """
    def main(X, y, device, model):
        X_t = X.to(device)
        loader = DataLoader(TensorDataset(X_t, y.to(device)), batch_size=8, pin_memory=True)
        for xb, yb in loader:
            model(xb)
        print(model(X_t))
    """
    assert _only_fix(body) is None


def test_cuda_moves_keep_pinning_and_move_batches_with_cuda() -> None:
    body = """
    def main(X, y, model):
        loader = DataLoader(TensorDataset(X.cuda(), torch.cuda.LongTensor(y)), pin_memory=True)
        for xb, yb in loader:
            model(xb).sum().backward()
    """
    assert _fixed(body) == textwrap.dedent(
        """
        def main(X, y, model):
            loader = DataLoader(TensorDataset(X, torch.LongTensor(y)), pin_memory=True)
            for xb, yb in loader:
                xb = xb.cuda(non_blocking=True)
                yb = yb.cuda(non_blocking=True)
                model(xb).sum().backward()
        """
    )


def test_only_batch_parts_that_were_on_the_device_and_are_not_moved_yet_are_moved() -> None:
    body = """
    class Items(Dataset):
        def __init__(self, X, y, names, device):
            self.X, self.y, self.names = X.to(device), y.to(device), names

        def __getitem__(self, i):
            return {"x": self.X[i], "y": self.y[i], "name": self.names[i]}

    def main(X, y, names, device, model):
        loader = DataLoader(Items(X, y, names, device), batch_size=4, num_workers=2)
        for batch in loader:
            logits = model(batch["x"].to(device))
            print(batch["name"], logits, batch["y"])
    """
    fixed = _fixed(body)
    assert "self.X, self.y, self.names = X, y, names" in fixed
    assert '        batch["y"] = batch["y"].to(device, non_blocking=True)\n        logits' in fixed
    assert 'batch["x"] = ' not in fixed and 'batch["name"] = ' not in fixed


def test_no_fix_when_a_sibling_split_of_the_moved_data_set_is_read() -> None:
    body = """
    def main(X, y, device, model):
        full = TensorDataset(X.to(device), y.to(device))
        train, val = torch.utils.data.random_split(full, [0.8, 0.2])
        loader = DataLoader(train, batch_size=8, pin_memory=True)
        for xb, yb in loader:
            model(xb)
        for xb, yb in DataLoader(val, batch_size=8):
            model(xb)
    """
    assert _only_fix(body) is None


def test_fix_keeps_the_validation_tensors_a_helper_returns_beside_the_training_ones() -> None:
    body = """
    def tensors(X, y, device):
        return X[:96].to(device), y[:96].to(device), X[96:].to(device), y[96:].to(device)

    def main(X, y, device, model):
        X_tr, y_tr, X_va, y_va = tensors(X, y, device)
        loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=8, pin_memory=True)
        for xb, yb in loader:
            model(xb)
        print(model(X_va), y_va)
    """
    fix = _only_fix(body)
    assert fix is not None and fix.applicability is Applicability.SAFE
    assert "return X[:96], y[:96], X[96:].to(device), y[96:].to(device)" in _fixed(body)


def test_sizes_read_off_the_loader_keep_the_fix_safe() -> None:
    body = """
    def main(X, y, device, model):
        loader = DataLoader(TensorDataset(X.to(device), y.to(device)), batch_size=8, pin_memory=True)
        total = 0.0
        for xb, yb in loader:
            total += model(xb).sum().item() * loader.batch_size
        print(total / len(loader.dataset), len(loader.sampler))
    """
    assert _only_fix(body).applicability is Applicability.SAFE


PAIRS = """
class Pairs(Dataset):
    def __init__(self, xs, ys, device):
        self.xs, self.ys, self.device = xs, ys, device

    def __getitem__(self, i):
        return self.xs[i].to(self.device), PARTS

def main(xs, ys, model, device: torch.device):
    loader = DataLoader(Pairs(xs, ys, device), batch_size=4, pin_memory=True)
    for x, parts in loader:
        model(x, parts).backward()
"""


def test_no_tensor_method_on_a_batch_part_not_shown_to_be_a_tensor() -> None:
    """A list of moved tensors collates to a list: ``parts.to(...)`` would raise AttributeError."""
    listed = PAIRS.replace("PARTS", "[t.to(self.device) for t in self.ys[i]]")
    fix = _only_fix(listed)
    assert fix.applicability is Applicability.UNSAFE and "cannot tell which parts of a batch are tensors" in fix.message
    assert "parts.to(" not in _fixed(listed)
    stacked = PAIRS.replace("PARTS", "torch.stack([t.to(self.device) for t in self.ys[i]])")
    assert _only_fix(stacked).applicability is Applicability.SAFE
    assert "parts = parts.to(device, non_blocking=True)" in _fixed(stacked)


def test_pinning_condition_uses_the_device_as_it_is_when_annotated_torch_device() -> None:
    fixed = _fixed(PAIRS.replace("PARTS", "self.ys[i].to(self.device)"))
    assert 'pin_memory=device.type == "cuda"' in fixed
    untyped = _fixed(PAIRS.replace("PARTS", "self.ys[i].to(self.device)").replace("device: torch.device", "device"))
    assert 'pin_memory=torch.device(device).type == "cuda"' in untyped


def test_a_collate_method_shared_with_a_loader_used_elsewhere_gets_no_safe_fix() -> None:
    body = """
    class Forecaster:
        def __init__(self, device):
            self.device = device

        def _collate(self, samples):
            return torch.stack(samples).to(self.device)

        def fit(self, data):
            loader = DataLoader(data, batch_size=4, pin_memory=True, collate_fn=self._collate)
            for x in loader:
                self.model(x).backward()

        def predict_loader(self, data):
            return DataLoader(data, batch_size=4, collate_fn=self._collate)
    """
    fix = _only_fix(body)
    assert fix.applicability is Applicability.UNSAFE and "finds no such loop in this module" in fix.message
    assert _only_fix(body.replace("self.model(x)", "self.model(x.to(self.device))")).applicability is Applicability.UNSAFE
    alone = body.replace("return DataLoader(data, batch_size=4, collate_fn=self._collate)", "return None")
    assert _only_fix(alone).applicability is Applicability.SAFE


GATHER = """
class Gather:
    def __init__(self, device=None):
        self.device = device

    def __call__(self, batch):
        columns = [[] for _ in batch[0]]
        for sample in batch:
            for i, value in enumerate(sample):
                columns[i].append(MOVED)
        return tuple(torch.stack(column) for column in columns)

def run(ds, device, model):
    loader = DataLoader(ds, batch_size=4, collate_fn=Gather(device), pin_memory=True)
    for x, y in loader:
        model(x, y).backward()
"""


def test_a_collate_that_appends_moved_tensors_to_the_lists_it_returns_is_reported() -> None:
    assert _findings(GATHER.replace("MOVED", "value if self.device is None else value.to(self.device)")) == [(14, "TL101")]
    assert _findings(GATHER.replace("MOVED", "value")) == []
    assert _findings(GATHER.replace("MOVED", 'value.to("cpu")')) == []


def test_a_staged_dataset_shared_by_a_train_and_an_eval_loader_is_fixed_in_both_loops() -> None:
    body = """
    def main(X, y, model, device):
        X_t, y_t = X.to(device), y.to(device)
        dataset = TensorDataset(X_t, y_t)
        train_loader = DataLoader(dataset, batch_size=32, pin_memory=True)
        eval_loader = DataLoader(dataset, batch_size=64)
        for xb, yb in train_loader:
            model(xb, yb).backward()
        with torch.no_grad():
            for xb, yb in eval_loader:
                model(xb, yb)
    """
    assert _findings(body) == [(5, "TL101")]
    assert _only_fix(body).applicability is Applicability.SAFE
    fixed = _fixed(body)
    assert fixed.count("xb = xb.to(device, non_blocking=True)") == 2 and "X_t, y_t = X, y" in fixed
    outside = body + "    return eval_loader\n"
    assert _only_fix(outside).applicability is Applicability.UNSAFE


def test_a_collate_method_inherited_from_a_same_module_base_is_followed() -> None:
    """``self._collate`` is resolved by ``Names.resolve_callable``, which looks in the base classes too."""
    body = """
    class Base:
        def _collate(self, items):
            return torch.stack(items).to(self.device)

    class Trainer(Base):
        def __init__(self, device):
            self.device = device

        def loader(self, ds):
            return DataLoader(ds, collate_fn=self._collate, pin_memory=True)
    """
    assert _findings(body) == [(11, "TL101")]


def test_a_switch_turned_off_on_one_branch_only_is_not_provably_off() -> None:
    """Every binding that reaches ``pin_memory=pin`` counts (``Values.literal_values``), not only the last one written."""
    body = """
    pin = True
    if slow:
        pin = False
    loader = DataLoader(TensorDataset(X.cuda()), pin_memory=pin)
    """
    assert _findings(body) == [(5, "TL101")]
    assert _findings(body.replace("pin = True", "pin = False")) == []
