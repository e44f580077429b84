"""The structural pre-screen (trainlint/prescreen/) only decides who gets parsed: it never changes a finding.

Every fixture is linted with and without it, with every rule selected; the
findings must be identical. The screen must also actually screen: a file whose
trigger words occur but whose structure cannot hold a finding is not parsed.
"""

from __future__ import annotations

import ast
import sys
import textwrap
import time
from pathlib import Path

import pytest

from trainlint.engine import RuleSettings, lint_source, plan_parse
from trainlint.prescreen import Features, names_as_written, screened_codes
from trainlint.registry import ALL_CODES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*.py"))


def _findings(text: str, path: str, screen: bool):
    result = lint_source(text, path, RuleSettings(ALL_CODES, {}), screen=screen)
    return [(d.code, d.location.row, d.location.column, d.message) for d in result.diagnostics], result.errors


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_same_findings_with_and_without_the_screen(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _findings(text, str(path), screen=True) == _findings(text, str(path), screen=False)


LIGHTNING_MODULE = """
import torch
import lightning as L

class Model(L.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.log("loss", loss)
        return loss
"""


def test_a_step_hook_that_keeps_nothing_is_screened_out() -> None:
    """TL401's trigger (`training_step`) matches; nothing sums, appends or stores: not worth parsing."""
    tree = ast.parse(LIGHTNING_MODULE)
    assert screened_codes(tree, ["TL401"]) == []
    kept = LIGHTNING_MODULE.replace("        return loss", "        self.losses.append(loss)\n        return loss")
    assert screened_codes(ast.parse(kept), ["TL401"]) == ["TL401"]


def test_a_file_screened_out_does_not_import_libcst(tmp_path: Path) -> None:
    import subprocess

    script = tmp_path / "model.py"
    script.write_text(LIGHTNING_MODULE, encoding="utf-8")
    code = textwrap.dedent(
        f"""
        import sys
        from trainlint.engine import RuleSettings, lint_source, plan_parse
        from trainlint.registry import ALL_CODES
        text = open({str(script)!r}, encoding="utf-8").read()
        assert lint_source(text, "model.py", RuleSettings(ALL_CODES, {{}})).diagnostics == []
        print("libcst" in sys.modules)
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    "text, parsed",
    [
        (LIGHTNING_MODULE, False),  # triggers match, the structure cannot hold a finding
        (LIGHTNING_MODULE.replace("        return loss", "        self.losses.append(loss)\n        return loss"), True),
        ("import os\nprint(os.getcwd())\n", False),  # no trigger
        ("def broken(:\n", True),  # CPython refuses it: LibCST may accept newer syntax
        ("x = " + "(" * 300 + ")" * 300 + "\n", False),  # beyond a parser's limits: LibCST would crash
    ],
)
def test_plan_parse_says_which_texts_libcst_parses(text: str, parsed: bool) -> None:
    """benchmarks/run.py counts the files LibCST parses with this; lint_source decides with it."""
    assert plan_parse(text, "t.py", ALL_CODES).needs_libcst is parsed


@pytest.mark.parametrize(
    "code, trains, accumulates",
    [
        ("loss.backward()", True, False),
        ("scaler.step(optimizer)", True, False),
        ("self.optimizer.step()", True, False),
        ("scheduler.step()", False, False),
        ("def on_train_batch_end(self): pass", True, False),
        ("def prepare_extra_step_kwargs(self): pass", False, False),
        ("total += loss", False, True),
        ("count += 1", False, False),
        ("total = total + loss", False, True),
        ("total = loss + total", False, True),
        ("self.ema = 0.9 * self.ema + 0.1 * loss", False, True),  # a moving average of the loss
        ("target = noise - latents", False, False),  # a new value, no running sum
        ("noisy = latents + sigma * noise", False, False),
        ("d[k] = d[k] + loss", False, True),  # a target that is no dotted name: always may
        ("log[step] = loss", False, True),
        ("losses.append(loss)", False, True),
    ],
)
def test_features(code: str, trains: bool, accumulates: bool) -> None:
    features = Features(ast.parse(code))
    assert (features.trains, features.accumulates) == (trains, accumulates)


def _holds(code: str, attribute: str) -> bool:
    return getattr(Features(ast.parse(textwrap.dedent(code))), attribute)


_CPU = "\ndevice = 'cpu'"  # a module that selects the CPU, where TL104 reports a loader's pinning
_ANY_DEVICE = "\ndef run(device):\n    pass"  # a device from a caller: anything, where TL201 reports CUDA-only AMP


@pytest.mark.parametrize(
    "code, accumulates_per_step",
    [
        ("for x, y in loader:\n    loss = f(x)\n    total += loss\n    loss.backward()", True),
        ("def train_step(b):\n    loss = f(b)\n    loss.backward()\n    return loss\nfor b in loader:\n    total += train_step(b)", True),
        ("class M:\n    def training_step(self, b):\n        self.total += self.model(b)", True),
        ("for x in data:\n    total += x\nloss.backward()", False),  # the loop does not train
        ("def report(xs):\n    total += xs\ndef training_step(b):\n    return b", False),  # not called per step
        # a local of a per-step function, with no training loop of its own around it: gone at return (an optimizer's
        # `step` collecting its parameters, a step hook summing chunks), as TL401 reads storage
        ("class SGD:\n    def step(self):\n        params = []\n        for p in self.params:\n            params.append(p)", False),
        ("def training_step(self, b, outputs):\n    outputs.append(self.model(b))", False),  # a list handed in: not followed
        ("def fit(model, loader):\n    losses = []\n    for b in loader:\n        loss = model(b)\n        loss.backward()\n"
         "        losses.append(loss)", True),  # a local bound before its own training loop
        ("class M:\n    def training_step(self, b):\n        global seen\n        seen += self.model(b)", True),
        ("class M:\n    def training_step(self, b):\n        history.append(self.model(b))", True),  # a module-level list
        ("log = {}\nfor step, (x, y) in enumerate(loader):\n    loss = f(x)\n    loss.backward()\n    log[step] = loss", True),  # a store
    ],
)
def test_accumulations_count_only_in_per_step_code(code: str, accumulates_per_step: bool) -> None:
    assert _holds(code, "accumulates_per_step") is accumulates_per_step


RESET_LOOP = """
import torch

def fit(model, loader, optimizer, criterion, reg):
    {before}
    for x, y in loader:
        {first}
        total = total + reg * criterion(model(x), y)
        criterion(model(x), y).backward()
        optimizer.step()
"""


@pytest.mark.parametrize(
    "before, first, accumulates_per_step",
    [
        ("pass", "total = torch.zeros(())", False),  # started afresh in every iteration
        ("pass", "total, aux = model(x)", False),  # a tuple target starts it afresh too
        ("total = 0", "optimizer.zero_grad()", True),  # bound before the loop only: summed across steps
        ("global total", "total = torch.zeros(())", True),  # a global: the rule reads the module's bindings
    ],
)
def test_a_name_bound_afresh_in_its_loop_does_not_outlive_the_step(before: str, first: str, accumulates_per_step: bool) -> None:
    """TL401's reset: a local bound afresh in the loop around the sum lives one iteration."""
    code = RESET_LOOP.format(before=before, first=first)
    assert _holds(code, "accumulates_per_step") is accumulates_per_step
    if not accumulates_per_step:
        assert lint_source(code, "t.py", RuleSettings(frozenset({"TL401"})), screen=False).diagnostics == []
    elif before == "total = 0":  # the twin the rule reports, so that the comparison above can fail
        assert [d.code for d in lint_source(code, "t.py", RuleSettings(frozenset({"TL401"})), screen=False).diagnostics] == ["TL401"]


@pytest.mark.parametrize(
    "code, grows",
    [
        ("class T:\n    def __init__(self):\n        self.norms = []\n    def training_step(self, b):\n        self.norms.append(b)", True),
        ("class T:\n    def __init__(self):\n        self.h = {'l': []}\n    def training_step(self, b):\n        self.h['l'].append(b)", True),
        ("xs = []\nfor e in range(3):\n    for b in loader:\n        xs.append(b)\n        loss.backward()", True),
        # a list made inside the step (the optimizers' `params_with_grad = []` in `def step`) is no history
        ("class O:\n    def step(self):\n        ps = []\n        for p in self.params:\n            ps.append(p)", False),
        ("class O:\n    def step(self):\n        for g in self.groups:\n            ps = []\n            for p in g:\n                ps.append(p)", False),
        ("class T:\n    def __init__(self):\n        self.norms = 0\n    def training_step(self, b):\n        self.norms.append(b)", False),
    ],
)
def test_histories_are_lists_made_once_and_appended_per_step(code: str, grows: bool) -> None:
    assert _holds(code, "grows_history_per_step") is grows


@pytest.mark.parametrize(
    "code, evaluates",
    [
        ("model.eval()\nfor x in loader:\n    model(x)", True),
        ("for x in loader:\n    model.eval()\n    model(x)", True),
        ("outs = [model(x) for x in val_loader]", True),
        ("for x in loaders['test']:\n    model(x)", True),
        ("import pytest\ndef test_eval():\n    model.eval()\n    for x in loader:\n        model(x)", False),  # a test
        ("def test_eval():\n    model.eval()\n    for x in loader:\n        model(x)", True),  # no file of tests
        ("def setup():\n    model.eval()\ndef run():\n    for x in loader:\n        model(x)", False),  # another function
        ("for x in loader:\n    model(x)\nmodel.eval()", False),  # the mode is set after the loop
    ],
)
def test_evaluation_needs_a_loop_after_or_around_eval_mode_or_over_held_out_data(code: str, evaluates: bool) -> None:
    assert _holds(code, "evaluates") is evaluates


@pytest.mark.parametrize(
    "code, runs_backward",
    [
        ("for b in loader:\n    loss.backward()\n    opt.step()", True),
        ("def step(b):\n    f(b).backward()\n    opt.step()\nwhile True:\n    step(next(it))", True),
        ("def step(b):\n    f(b).backward()\n    opt.step()", False),  # Lightning-style: the library's loop calls it
        ("for b in loader:\n    loss.backward()", False),  # nothing stepped
        ("for b in loader:\n    opt.zero_grad()\n    loss.backward()\n    opt.step()", False),
        # two things stepped: the zero_grad may be the other one's (it clears `g`, which `d_opt` does not optimize)
        ("g_opt = A(g.parameters())\nd_opt = A(d.parameters())\nfor b in loader:\n    g.zero_grad()\n    loss.backward()\n    g_opt.step()\n    d_opt.step()", True),
        # ... but each optimizer's model cleared: a GAN's `netD.zero_grad()`, `netG.zero_grad()`
        ("g_opt = A(g.parameters())\nd_opt = A(d.parameters())\nfor b in loader:\n    g.zero_grad()\n    d.zero_grad()\n    loss.backward()\n    g_opt.step()\n    d_opt.step()", False),
    ],
)
def test_missing_zero_grad_needs_a_loop_that_runs_a_backward_and_steps(code: str, runs_backward: bool) -> None:
    assert _holds(code, "loop_may_miss_zero_grad") is runs_backward


@pytest.mark.parametrize(
    "code, model_kwargs, kwargs",
    [
        ("model(**batch)", True, True),
        ("self.net.forward(**b)", True, False),  # named like a model; no binding of `self.net` says it is a class's
        ("self.net = Net()\nself.net.forward(**b)", True, True),
        ("progress.set_postfix(**logs)", False, False),  # an attribute never stored: an instance of no class here
        ("factory(**options)", False, True),
        ("make()(**options)", False, False),
        ("from timm.models import create_model\nm = create_model(name, **kwargs)", False, False),  # an import: code
        ("from x import create_model\ndef run():\n    create_model(name, **kwargs)", False, False),
        ("def run():\n    create_model(name, **kwargs)\nfrom x import create_model", True, True),  # above it: kept
        ("create_model(**kwargs)\nfrom timm.models import create_model", True, True),  # called before its import
        ("from timm.models import create_model\ncreate_model = wrap(create_model)\ncreate_model(**kwargs)", True, True),
    ],
)
def test_batch_kwargs_calls(code: str, model_kwargs: bool, kwargs: bool) -> None:
    assert (_holds(code, "calls_model_with_kwargs"), _holds(code, "calls_with_kwargs")) == (model_kwargs, kwargs)


@pytest.mark.parametrize(
    "code, attribute, holds",
    [
        ("from torch.utils.data import DataLoader as DL\nDL(ds)", "calls_dataloader", True),
        ("loader = make_loader(ds)", "calls_dataloader", False),
        ("from torch.cuda.amp import autocast as ac\nwith ac():\n    pass", "calls_amp", True),
        ("amp = torch.autocast", "calls_amp", False),  # named, never called
        ("import torch\nX = np.load(p)\nx = torch.tensor(X).to(device)", "moves_a_read_value", True),
        ("X = np.load(p)\nfor b in loader:\n    b = b.to(device)", "moves_a_read_value", False),  # per batch
        ("X = np.load(p)\nclass D:\n    def __getitem__(self, i):\n        return X[i].cuda()", "moves_a_read_value", False),
        ("weights = torch.load(p)\nmodel.load_state_dict(weights)\nmodel.to(device)", "moves_a_read_value", False),
        ("import torch\ndef read():\n    return np.load(p)\nX = read()\nX = torch.from_numpy(X).cuda()", "moves_a_read_value", True),
        ("import torch\nwith h5py.File(p) as f:\n    X = torch.tensor(f['x'][:]).cuda()", "moves_a_read_value", True),
        ("def f(x=np.load(p)):\n    return x.cuda()", "moves_a_read_value", True),  # a parameter's default
        ("from numpy import load as L\nX = L(p)\nX = X.cuda()", "moves_a_read_value", True),
        ("X = np.load(p).cuda()\nfor i in range(n):\n    xb = X[i:i + bs]", "batches_a_moved_read", True),
        ("X = np.load(p).cuda()\nxb = X[:bs]", "batches_a_moved_read", False),  # not in a loop
        ("X = np.load(p).cuda()\nfor i in range(n):\n    xb = Y[i:i + bs]", "batches_a_moved_read", False),  # another name
        ("X = np.load(p).cuda()\nparts = torch.chunk(X, 4)", "batches_a_moved_read", True),
        ("from torch import chunk as c\nX = np.load(p).cuda()\nparts = c(X, 4)", "batches_a_moved_read", True),
        ("class D:\n    def f(self):\n        self.x, y = np.load(p).cuda().float(), 1\n        for i in r:\n            self.x[i]", "batches_a_moved_read", True),
        # a loader's pinning (with a CPU selected, `_CPU`, where the rule reports it) or a tensor's
        ("DataLoader(ds, **{'pin_memory': True})" + _CPU, "pins", True),
        ("x = x.pin_memory()", "pins", True),
        ("def pin_memory(data):\n    return data.pin_memory()", "pins", False),  # the pinning protocol itself
        ("def pin(data):\n    return data.pin_memory()", "pins", True),
        ("DataLoader(ds, num_workers=2)" + _CPU, "pins", False),
        ("DataLoader(ds, pin_memory=args.pin_mem)" + _CPU, "pins", False),  # an argparse flag: True or False
        ("DataLoader(ds, pin_memory=torch.cuda.is_available())" + _CPU, "pins", False),
        ("pin = True\nDataLoader(ds, pin_memory=pin)" + _CPU, "pins", True),
        ("class C:\n    pin = True\n    def f(self):\n        DataLoader(ds, pin_memory=self.pin)" + _CPU, "pins", True),
        ("kwargs = {'pin_memory': use_cuda}\nDataLoader(ds, **kwargs)" + _CPU, "pins", False),
        ("kwargs['pin_memory'] = True" + _CPU, "pins", True),
        ("kwargs = dict(batch_size=4, pin_memory=True)\nDataLoader(ds, **kwargs)" + _CPU, "pins", True),
        ("if hasattr(data, 'pin_memory'):\n    pass" + _CPU, "pins", False),  # no key the rule reads
        ("DataLoader(ds, 32, True, None, None, 2, None, True)" + _CPU, "pins", True),  # positionally
        ("p.add_argument('--pin', choices=[True], default=True)\nDataLoader(ds, pin_memory=args.pin)" + _CPU, "pins", True),
        # a loader's pinning only warns, where the module may select the CPU or MPS: from a literal, an MPS
        # reference, a launcher's `.device`; a tensor's raises wherever CUDA is not certain
        ("DataLoader(ds, pin_memory=True)", "pins", False),
        ("DataLoader(ds, pin_memory=True)\ndevice = f'cpu:{rank}'", "pins", True),
        ("DataLoader(ds, pin_memory=True)\nok = torch.backends.mps.is_available()", "pins", True),
        ("DataLoader(ds, pin_memory=True)\nx = x.to(fabric.device)", "pins", True),
        ("DataLoader(ds, pin_memory=True)\nacc = Accelerator()\nx = x.to(acc.device)", "pins", True),
        ("DataLoader(ds, pin_memory=True)\nx = x.to(model.device)", "pins", False),
        ("import torch\nx = torch.empty(n, pin_memory=True)", "pins", True),
        ("from torch import empty\nx = empty(n, pin_memory=True)", "pins", True),
        # a mock's `call(..., pin_memory=True)`: an import's name that is not torch's
        ("from unittest.mock import call\nexpected = call(ds, pin_memory=True)", "pins", False),
        ("from torch import empty as e\nx = e(n, pin_memory=True)", "pins", True),
        # a class of the module whose own `__init__` takes `pin_memory` and forwards no `**kwargs`: neither kind
        ("class Data:\n    def __init__(self, ds, pin_memory=False):\n        pass\nData(ds, pin_memory=True)" + _CPU, "pins", False),
        ("with torch.cuda.amp.autocast():\n    pass" + _ANY_DEVICE, "amp_may_be_cuda_only", True),
        ("with torch.cuda.amp.autocast(enabled=False):\n    pass", "amp_may_be_cuda_only", False),
        # CUDA-only AMP is reported only where the module may reach another accelerator: it names one, or has a
        # source of devices (a device parameter, variable, option, launcher)
        ("with torch.autocast('cuda'):\n    pass", "amp_may_be_cuda_only", False),
        ("with torch.autocast('cuda'):\n    pass\nok = torch.backends.mps.is_available()", "amp_may_be_cuda_only", True),
        ("with torch.autocast('cuda'):\n    pass\nx = x.to('xpu:0')", "amp_may_be_cuda_only", True),
        ("with torch.autocast('cuda'):\n    pass\np.add_argument('--accelerator')", "amp_may_be_cuda_only", True),
        ("with torch.autocast('cuda'):\n    pass\nacc = Accelerator()", "amp_may_be_cuda_only", True),
        ("with torch.autocast('cuda'):\n    pass\nx = inputs.to('cpu')", "amp_may_be_cuda_only", False),
        # a CUDA-only library imported where it always runs pins the module to CUDA; under a `try`, it is optional
        ("def f(device):\n    import transformer_engine.pytorch as te\n    with torch.autocast('cuda'):\n        pass", "amp_may_be_cuda_only", False),
        ("def f(device):\n    try:\n        import tensorrt\n    except ImportError:\n        pass\n    with torch.autocast('cuda'):\n        pass", "amp_may_be_cuda_only", True),
        # a version shim: each API's call is a fallback for the other's (spelled from `import torch`)
        ("import torch\ntry:\n    s = torch.amp.GradScaler('cuda')\nexcept AttributeError:\n    s = torch.cuda.amp.GradScaler()" + _ANY_DEVICE, "amp_may_be_cuda_only", False),
        ("import torch\ntry:\n    s = torch.amp.GradScaler('cuda')\nexcept ValueError:\n    s = torch.cuda.amp.GradScaler()" + _ANY_DEVICE, "amp_may_be_cuda_only", True),
        ("import torch\nif new:\n    s = torch.amp.GradScaler()\nelse:\n    s = torch.cuda.amp.GradScaler()" + _ANY_DEVICE, "amp_may_be_cuda_only", False),
        ("import torch\nimport torch\ns = torch.amp.GradScaler() if new else torch.cuda.amp.GradScaler()" + _ANY_DEVICE, "amp_may_be_cuda_only", True),
        ("from torch.cuda.amp import autocast\nwith autocast(dtype=d):\n    pass" + _ANY_DEVICE, "amp_may_be_cuda_only", True),
        ("with torch.autocast(device_type=x.device.type):\n    pass", "amp_may_be_cuda_only", False),
        ("with torch.autocast('cuda'):\n    pass" + _ANY_DEVICE, "amp_may_be_cuda_only", True),
        ("scaler = torch.amp.GradScaler()" + _ANY_DEVICE, "amp_may_be_cuda_only", True),  # CUDA by default
        ("scaler = torch.amp.GradScaler(device)", "amp_may_be_cuda_only", False),
        ("ctx = torch.cuda.amp.autocast\nwith torch.autocast(device.type):\n    pass", "amp_may_be_cuda_only", True),
        ("t = 'cuda' if c else 'cpu'\nwith torch.autocast(t):\n    pass", "sniffs_device_type", True),
        ("if c:\n    t = 'cuda'\nwith torch.autocast(t):\n    pass", "sniffs_device_type", True),
        ("t = 'cuda' if c else 'cpu'\nwith torch.cuda.amp.autocast():\n    pass", "sniffs_device_type", False),  # no device type
        ("t = x.device.type\nwith torch.autocast(t):\n    pass", "sniffs_device_type", False),
        ("data = np.load(path)", "reads_whole_file", True),
        ("from numpy import loadtxt as read\ndata = read(path)", "reads_whole_file", True),
        ("data = json.dumps(x)", "reads_whole_file", False),
    ],
)
def test_what_the_loader_and_amp_rules_start_from(code: str, attribute: str, holds: bool) -> None:
    assert _holds(code, attribute) is holds


def test_a_cuda_tensor_type_under_another_name_is_a_move() -> None:
    """tl15-yoshall+UrbanFM: `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`, then `Tensor(np.load(...))`."""
    code = "Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor\nT = Tensor\nX = T(np.load(p))"
    assert _holds(code, "moves_a_read_value")
    assert not _holds(code.replace("torch.cuda.FloatTensor", "torch.FloatTensor"), "moves_a_read_value")


TRAIN_ONE_EPOCH = """
import torch

def train_one_epoch(model, loader, optimizer):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

def main(model, loader, optimizer, lr_scheduler):
    for epoch in range(10):
        train_one_epoch(model, loader, optimizer)
        lr_scheduler.step()
"""


def test_a_scheduler_step_and_a_zero_grad_in_a_called_function_are_not_a_missing_zero_grad() -> None:
    """TL405: the epoch loop reaches one optimizer (a scheduler is none) and a function it calls clears it."""
    assert screened_codes(ast.parse(TRAIN_ONE_EPOCH), ["TL405"]) == []
    uncleared = TRAIN_ONE_EPOCH.replace("        optimizer.zero_grad()\n", "")
    assert screened_codes(ast.parse(uncleared), ["TL405"]) == ["TL405"]
    # a method of that name clears nothing the rule can be sure of: only module-level functions count
    as_method = uncleared.replace("def main(", "class T:\n    def train_one_epoch(self):\n        opt.zero_grad()\n\ndef main(")
    assert screened_codes(ast.parse(as_method.replace("        train_one_epoch(model", "        t.train_one_epoch(model")), ["TL405"]) == ["TL405"]


def test_an_optimizer_built_by_torch_optim_counts_whatever_its_name() -> None:
    code = TRAIN_ONE_EPOCH.replace("lr_scheduler.step()", "adam.step()").replace(
        "    for epoch", "    adam = torch.optim.Adam(model.parameters())\n    for epoch"
    )
    assert screened_codes(ast.parse(code), ["TL405"]) == ["TL405"]


@pytest.mark.parametrize(
    "kept, screened",
    [
        ("total += loss", True),
        ("total += loss.item()", False),
        ("total += float(loss) * x.size(0)", False),
        ("total += 2 * loss.detach()", False),
        ("total += x.shape[0]", False),  # a subscript of a size: no graph
        ("total += x", False),  # an element of a parameter no call of this module fills
        ("total += reduce_tensor(torch.tensor(x.shape[0], device=d), 1)", False),  # library calls on plain values
        ("total += reduce_tensor(loss, 1)", True),  # ... on the loss
        ("n = x.size(0) * k\n        total += n", False),  # every binding of `n` in its scope is plain
        ("total += helper(x)", True),  # a same-module function returning a graph
        ("total += step_fn(x)", True),  # a callee bound to a value may be any function or model
        ("total += plain(x)", False),  # a same-module function returning a size
        ("losses.append(loss)", True),
        ("losses.append(loss.item())", False),
    ],
)
def test_an_accumulation_of_a_detached_value_is_not_a_kept_loss(kept: str, screened: bool) -> None:
    """TL401 never reports a value that carries no graph (``GraphValues.kind`` is None for it)."""
    code = (
        "def helper(b):\n    return model(b)\ndef plain(b):\n    return b.numel()\nstep_fn = make_step()\nk = 3\n"
        f"def train(model, loader, opt, losses):\n    total = 0\n    for x in loader:\n        loss = model(x)\n        loss.backward()\n        {kept}\n"
    )
    assert screened_codes(ast.parse(code), ["TL401"]) == (["TL401"] if screened else [])


def test_a_cast_the_module_rebinds_is_followed() -> None:
    code = "float = lambda v: v\ndef train(model, loader, total):\n    for x in loader:\n        loss = model(x)\n        loss.backward()\n        total += float(loss)\n"
    assert screened_codes(ast.parse(code), ["TL401"]) == ["TL401"]


@pytest.mark.parametrize(
    "binding, screened",
    [
        ("n = x.size(0)", False),  # every binding of the name detached: followed
        ("n = x.size(0)\n        n = loss", True),  # one binding carries a graph
        ("n, m = x.size(0), 1", False),  # a tuple's elements, followed
        ("n, m = x.size(0), loss", True),  # ... one of them carries a graph (the screen does not pair them)
        ("global n\n        n = x.size(0)", True),  # a global: every binding of the module counts
        ("n = loss.item()\n        n.backward()", True),  # a backward reads it: the graph analysis marks it
    ],
)
def test_a_name_is_followed_only_when_every_binding_is_detached(binding: str, screened: bool) -> None:
    code = f"n = model(first_batch)\ndef train(model, loader, total):\n    for x in loader:\n        loss = model(x)\n        loss.backward()\n        {binding}\n        total += n\n"
    assert screened_codes(ast.parse(code), ["TL401"]) == (["TL401"] if screened else [])


@pytest.mark.parametrize(
    "around, screened",
    [
        ("", True),
        ("    with torch.no_grad():\n", False),
        ("    with smart_inference_mode():\n", False),
    ],
)
def test_an_evaluation_loop_under_no_grad_in_its_function_is_not_an_evaluation_with_grad(around: str, screened: bool) -> None:
    """TL404's GradMode takes a `with` named like no_grad/inference_mode in the loop's own function for grad off."""
    indent = "    " if around else ""
    loop = f"{indent}    for x in loader:\n{indent}        outputs.append(model(x))\n"
    code = f"import torch\ndef evaluate(model, loader, outputs):\n    model.eval()\n{around}{loop}"
    assert screened_codes(ast.parse(code), ["TL404"]) == (["TL404"] if screened else [])
    decorated = f"import torch\n@torch.inference_mode()\ndef evaluate(model, loader, outputs):\n    model.eval()\n{loop.replace(indent, '', 2) if indent else loop}"
    assert screened_codes(ast.parse(decorated), ["TL404"]) == []


@pytest.mark.parametrize(
    "use, screened",
    [
        ("text_encoder(input_ids=ids)", True),  # a name bound to a float tensor: followed by the rule
        ("text_encoder(input_ids=inputs.input_ids)", False),  # an attribute: the rule's chain ends there
        ("text_encoder(input_ids=ids.long())", False),  # an integer cast ends it too
        ("text_encoder(input_ids=ids.to(device))", True),  # a dtype-keeping call: followed to `ids`
        ("loss = criterion(out, ids)", True),  # a CrossEntropyLoss bound here, called with a float name
        ("loss = criterion(out, batch.y)", False),
        ("emb = lookup(ids)", False),  # no embedding, loss or key takes it
    ],
)
def test_a_float_tensor_counts_only_where_an_index_use_may_receive_it(use: str, screened: bool) -> None:
    """TL302: a float tensor made and an index use whose value the rule may follow back to it."""
    code = f"import torch\ncriterion = torch.nn.CrossEntropyLoss()\ndef run(text_encoder, inputs, out, batch, device):\n    ids = torch.tensor(inputs.x).float()\n    {use}\n"
    assert screened_codes(ast.parse(code), ["TL302"]) == (["TL302"] if screened else [])


@pytest.mark.parametrize(
    "use, screened",
    [
        ("tok = tokenizer(inputs.x)\n    text_encoder(input_ids=tok.to(device))", False),  # `to(device)` keeps no float
        ("tok = tokenizer(inputs.x)\n    text_encoder(input_ids=tok.to(torch.float16))", True),  # a float dtype decides
        ("tok = tokenizer(inputs.x)\n    text_encoder(input_ids=tok.to(device, dtype=torch.half))", True),
        ("text_encoder(input_ids=ids.to(torch.long))", False),  # an integer dtype decides
        ("text_encoder(input_ids=ids.to(device, dtype=weight_dtype))", False),  # a dtype the rule cannot read: not float
        ("for i, t in enumerate(ids):\n        text_encoder(input_ids=i)", False),  # enumerate's count
        ("for i in range(3):\n        text_encoder(input_ids=i)", False),
        ("for i, t in enumerate(ids):\n        text_encoder(input_ids=t)", True),  # the items: float
    ],
)
def test_casts_and_counters_end_the_chain_to_a_float_tensor(use: str, screened: bool) -> None:
    """TL302's `_call_source`: a dtype argument of `to`/`type` decides; `to(device)` keeps its receiver's dtype;
    `_iterated_source`: `range(...)` and `enumerate`'s count make no float tensor."""
    code = f"import torch\ndef run(text_encoder, tokenizer, inputs, device, weight_dtype):\n    ids = torch.tensor(inputs.x).float()\n    {use}\nrun(*args)\n"
    assert screened_codes(ast.parse(code), ["TL302"]) == (["TL302"] if screened else [])
    if not screened:
        assert lint_source(code, "t.py", RuleSettings(frozenset({"TL302"})), screen=False).diagnostics == []


@pytest.mark.parametrize(
    "code, screened",
    [
        ("ids = np.loadtxt(p)\nids = torch.tensor(ids)\nmodel(input_ids=ids)", True),  # float64 NumPy data
        ("ids = torch.tensor(np.zeros(3))\nmodel(input_ids=ids)", True),
        ("ids = torch.from_numpy(rows.astype(np.float32))\nmodel(input_ids=ids)", True),
        ("ids = torch.tensor(rows, dtype=torch.float32)\nmodel(input_ids=ids)", True),
        ("ids = torch.zeros(2, 3)\nmodel(input_ids=ids)", True),  # float32 by default
        ("ids = torch.tensor([1, 2])\nmodel(input_ids=ids)", False),  # a list of ints: int64
        ("ids = torch.tensor(rows, dtype=torch.long)\nmodel(input_ids=ids)", False),
        ("ids = torch.zeros(2, 3, dtype=torch.long)\nmodel(input_ids=ids)", False),
        ("ids = torch.from_numpy(np.array(rows))\nmodel(input_ids=ids)", False),  # no float dtype said
        ("ids = tokenizer(x).input_ids\nids = ids.to(device)\nmodel(input_ids=ids)", False),  # a cycle adds nothing
        ("n = torch.zeros(1)\nemb = torch.nn.Embedding(n, 8)", False),  # a module's size, not its input
    ],
)
def test_tensor_factories_make_float_as_tl302_reads_them(code: str, screened: bool) -> None:
    """TL302's `_call_source`: a `dtype=` decides; without one a shaped factory makes float32 and a conversion is
    float where its data is a float NumPy array; a module class's arguments are no index use. Where the screen keeps
    the rule out, the rule itself finds nothing."""
    code = f"import numpy as np\nimport torch\nx = torch.ones(1).float()\n{code}\n"
    assert screened_codes(ast.parse(code), ["TL302"]) == (["TL302"] if screened else [])
    found = lint_source(code, "t.py", RuleSettings(frozenset({"TL302"})), screen=False).diagnostics
    assert bool(found) is screened


def test_an_embedding_called_in_forward_keeps_tl302() -> None:
    """The model's callers may pass the float tensor: the screen does not follow them."""
    code = "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        self.emb = torch.nn.Embedding(10, 4)\n    def forward(self, x):\n        return self.emb(x)\nm = M()\ny = m(torch.zeros(3).float())\n"
    assert screened_codes(ast.parse(code), ["TL302"]) == ["TL302"]
    # `self.emb(x)` with `x` a parameter of a method the module never calls: TL302 has no argument to follow
    uncalled = code.replace("def forward", "def other")
    assert lint_source(uncalled, "t.py", RuleSettings(frozenset({"TL302"})), screen=False).diagnostics == []
    assert screened_codes(ast.parse(uncalled), ["TL302"]) == []
    called = uncalled + "m.other(torch.zeros(3))\n"  # now the float tensor reaches `x`
    assert screened_codes(ast.parse(called), ["TL302"]) == ["TL302"]
    assert lint_source(called, "t.py", RuleSettings(frozenset({"TL302"})), screen=False).diagnostics
    no_instance = code.replace("m = M()\ny = m(", "y = torch.sigmoid(")  # no instance of M is called with anything
    assert screened_codes(ast.parse(no_instance), ["TL302"]) == []


@pytest.mark.parametrize(
    "call, screened",
    [
        ("", False),  # no call of `train` here: its parameters hold nothing the analysis knows
        ("train(batch.size(0))", False),
        ("train(model(batch))", True),
        ("train(n=model(batch))", True),
        ("train(*outputs)", False),  # a starred argument: `Names.argument_for` tells no value, the rule follows none
        ("t.train(model(batch))", True),  # called as a method: either offset
    ],
)
def test_a_parameter_holds_what_the_modules_calls_pass(call: str, screened: bool) -> None:
    code = f"def train(n):\n    for x in loader:\n        model(x).backward()\n        total += n\n{call}\n"
    if "*outputs" in call:
        code += "outputs = [model(batch)]\n"
    assert screened_codes(ast.parse(code), ["TL401"]) == (["TL401"] if screened else [])


@pytest.mark.parametrize(
    "parameters, summed, screened",
    [
        ("*losses", "losses", False),  # `*args`, `**kwargs`: `_bound_value_kind` gives None, no argument binds them
        ("**parts", "parts", False),
        ("*losses", "losses[0]", False),
        ("*losses", "model(x)", True),
    ],
)
def test_a_star_parameter_holds_no_value_the_rule_follows(parameters: str, summed: str, screened: bool) -> None:
    code = f"def train({parameters}):\n    for x in loader:\n        model(x).backward()\n        self.total += {summed}\n"
    code += "train(model(batch))\n"
    assert screened_codes(ast.parse(code), ["TL401"]) == (["TL401"] if screened else [])
    reported = lint_source(code, "t.py", RuleSettings(frozenset({"TL401"})), screen=False).diagnostics
    assert bool(reported) is screened


def test_a_loop_that_trains_through_a_function_it_calls_is_no_evaluation() -> None:
    """timm's `main`: `validate` sets eval mode (and runs its own loop under no_grad); the epoch loop calls it and
    `train_one_epoch`, whose nested `_backward` runs the backward: `Loops.trains` says that loop trains."""
    code = textwrap.dedent(
        """
        def train_one_epoch(model, loader):
            def _backward(loss):
                loss.backward()
            for x in loader:
                _backward(model(x))
        def validate(model, loader):
            model.eval()
            with torch.no_grad():
                for x in loader:
                    model(x)
        def main():
            for epoch in range(10):
                train_one_epoch(model, loader)
                validate(model, loader)
        """
    )
    assert screened_codes(ast.parse(code), ["TL404"]) == []
    # reached only from a function defined in the loop's callee, never called: the call graph does not follow it
    hidden = code.replace("                _backward(model(x))", "                model(x)\n            def unused():\n                train_one_epoch(m, l)")
    assert screened_codes(ast.parse(hidden.replace("train_one_epoch(model, loader)\n", "helper()\n")), ["TL404"]) == ["TL404"]


TL301_LOOP = """
import torch
from torch.utils.data import DataLoader
{source}
loader = DataLoader(items, batch_size=8{collate})
for batch in loader:
    loss = model(**batch).loss
"""


@pytest.mark.parametrize(
    "source, collate, screened",
    [
        ("items = load_items()", "", False),  # no key the module shows: TL301 has nothing to compare
        ("class Items:\n    def __getitem__(self, i):\n        return {'x': i, 'idx': i}\nitems = Items()", "", True),
        ("from datasets import load_dataset\nitems = load_dataset('glue', 'sst2')['train']", "", True),
        ("import datasets\nitems = datasets.load_dataset('imdb')['train']", "", True),
        ("items = load_items()\ndef collate(xs):\n    return {'x': xs, 'idx': 0}", ", collate_fn=collate", True),
    ],
)
def test_batch_kwargs_need_a_source_of_keys_in_the_module(source: str, collate: str, screened: bool) -> None:
    code = TL301_LOOP.format(source=source, collate=collate)
    assert screened_codes(ast.parse(code), ["TL301"]) == (["TL301"] if screened else [])
    if not screened:
        assert lint_source(code, "t.py", RuleSettings(frozenset({"TL301"})), screen=False).diagnostics == []


TL102_LOADER = """
import torch
from torch.utils.data import DataLoader, TensorDataset
data = TensorDataset(torch.randn(64, 4).cuda())
loader = DataLoader({arguments})
"""


@pytest.mark.parametrize(
    "arguments, screened",
    [
        ("data, batch_size=8", False),  # no workers: nothing is forked
        ("data, batch_size=8, num_workers=0", False),
        ("data, batch_size=8, num_workers=4", True),
        ("data, batch_size=8, num_workers=args.workers", True),
        ("data, **{'batch_size': 8, 'num_workers': 2}", True),
        ("data, 8, False, None, None, 2", True),  # num_workers is the sixth positional argument
    ],
)
def test_device_data_in_workers_needs_workers(arguments: str, screened: bool) -> None:
    code = TL102_LOADER.format(arguments=arguments)
    assert screened_codes(ast.parse(code), ["TL102"]) == (["TL102"] if screened else [])
    if not screened:  # screened out only where the rule reports nothing
        assert lint_source(code, "t.py", RuleSettings(frozenset({"TL102"})), screen=False).diagnostics == []


@pytest.mark.parametrize(
    "code, holds",
    [
        ("DataLoader(TensorDataset(x.cuda()))", True),
        ("DataLoader(TensorDataset(x.to(dev)))", True),
        ("DataLoader(TensorDataset(x.to(memory_format=torch.channels_last)))", False),  # converts, moves nothing
        ("DataLoader(TensorDataset(x.to(torch.float16)))", False),
        ("dtype = torch.float16\nDataLoader(TensorDataset(x.to(dtype)))", False),
        ("dtype = torch.float16 if half else dev\nDataLoader(TensorDataset(x.to(dtype)))", True),
        ("class D(Dataset):\n    def __getitem__(self, i):\n        return self.x[i].to(self.device)\nDataLoader(D())", True),
        ("class D(Dataset):\n    def __getitem__(self, i):\n        return self.x[i]\nDataLoader(D())\nmodel.to(dev)", False),
        ("class D(Dataset):\n    def __init__(self, x):\n        self.x = x.cuda()\n    def __getitem__(self, i):\n        return self.x[i]\nclass E(D):\n    pass\nDataLoader(E(x))", True),
        # a move used up in a method (`t.sub(mean)`: a method's arguments are not its result), none stored or returned
        ("class D(Dataset):\n    def __getitem__(self, i):\n        return self.norm(self.x[i])\n    def norm(self, t):\n        mean = torch.as_tensor(0.5, device=t.device)\n        return t.sub(mean)\nDataLoader(D())", False),
        ("class D(Dataset):\n    def __init__(self, x, dev):\n        self.x, self.n = x.to(dev), len(x)\n    def __getitem__(self, i):\n        return self.x[i]\nDataLoader(D(x, d))", True),  # one of a tuple's targets
        ("class D(Dataset):\n    def __init__(self, xs):\n        self.xs = []\n        for x in xs:\n            self.xs.append(x.cuda())\n    def __getitem__(self, i):\n        return self.xs[i]\nDataLoader(D(xs))", True),
        # an instance of a holding class kept on an attribute: a collator's `__call__` returns it (the fixed point)
        ("class C:\n    def __init__(self):\n        self.table = Moved()\n    def __call__(self, b):\n        return self.table\nclass Moved(Dataset):\n    def __getitem__(self, i):\n        return self.x[i].cuda()\nDataLoader(ds, collate_fn=C())", True),
        ("class T:\n    def setup(self):\n        self.train = TensorDataset(x.cuda())\n    def loader(self):\n        return DataLoader(self.train)", True),
        ("def make(dev):\n    def collate(b):\n        return default_collate(b).to(dev)\n    return collate\nDataLoader(ds, collate_fn=make(d))", True),
        ("def build(ds):\n    return DataLoader(ds, num_workers=2)\nbuild(TensorDataset(x.cuda()))", True),  # a parameter
        ("def train(x):\n    x = x.cuda()\ndef load(x):\n    x = np.zeros(3)\n    return DataLoader(x)", False),  # another scope's x
        ("t = transforms.ToTensor()\nDataLoader(Images(transform=t))", False),
        ("from torch.cuda import FloatTensor\nDataLoader(TensorDataset(FloatTensor(x)))", True),
        ("DataLoader(ds, **loader_options)", True),  # anything may be passed
        ("x = x.cuda()\nDataLoader(ds)", False),
        ("ds = ds.map(partial(encode, device=dev))\nDataLoader(ds)", False),  # a method of a value: its arguments are not its result
        ("import torch\nDataLoader(torch.cat([x.cuda()]))", True),  # a module's function: they are
        ("DataLoader(TensorDataset(x.to(args.dtype)))", False),  # an attribute never given a device
        ("target = 'cuda:0'\nDataLoader(TensorDataset(x.to(target)))", True),  # a name given a device string
        ("def f(x, kind):\n    return DataLoader(TensorDataset(x.to(kind)))", False),  # a parameter: not followed
        ("def f(x, dev):\n    return DataLoader(TensorDataset(x.to(dev)))", True),  # spelled like a device
    ],
)
def test_a_loader_counts_for_tl101_and_tl102_only_where_its_data_may_hold_a_move(code: str, holds: bool) -> None:
    """TL101/TL102 start from a DataLoader whose data set or collate function is on an accelerator (the placement's
    ``loader_batches``); the screen follows the loader's arguments as widely as the rule can."""
    assert _holds(code, "loads_moved_data") is holds
    if not holds:  # screened out only where the rules report nothing, even on a loader that pins and forks workers
        pinned = "\n".join(line[:-1] + ", pin_memory=True, num_workers=2)" if "DataLoader(" in line else line for line in code.split("\n"))
        module = f"import torch\nfrom torch.utils.data import DataLoader, Dataset, TensorDataset\n{pinned}"
        assert _holds(pinned, "loads_moved_data") is False
        assert lint_source(module, "t.py", RuleSettings(frozenset({"TL101", "TL102"})), screen=False).diagnostics == []


def test_a_loader_over_moved_data_is_what_tl101_reports() -> None:
    """The twin of the cases above that the rule reports, so that the comparison there can fail."""
    module = "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\nDataLoader(TensorDataset(x.cuda()), pin_memory=True)"
    assert [d.code for d in lint_source(module, "t.py", RuleSettings(frozenset({"TL101"})), screen=False).diagnostics] == ["TL101"]


def test_a_helper_swapping_its_locals_is_followed_without_end() -> None:
    """What a function returns is followed to its own assignments; a swap among them (``ret, other = other, ret``)
    must end, not recurse until the stack runs out."""
    code = textwrap.dedent(
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)
        outputs = [emb(torch.tensor([i])) for i in range(3)]
        scale = torch.ones(1)


        def pick(x):
            ret, other = 0, 1
            ret, other = other, ret
            return ret


        print(outputs[pick(1)])
        """
    )
    assert screened_codes(ast.parse(code), ["TL302"]) == []  # the unpacked values are followed around the swap, to ints
    assert _findings(code, "t.py", screen=True) == _findings(code, "t.py", screen=False) == ([], [])


def test_only_identifiers_that_nfkc_folds_turn_the_screen_off() -> None:
    """CPython's tree folds ``ｋｅｐｔ`` to ``kept`` and LibCST does not: such a text is not screened, but such
    words in strings and comments (a prompt, a docstring's ``x²``) change no name."""
    assert names_as_written('prompt = "ｋｅｐｔ x² ﬁne"  # ｋｅｐｔ\n"""x²"""\n')
    assert not names_as_written("ｋｅｐｔ = []\n")
    assert names_as_written('label = f"输入：{count} …"\n')  # an f-string's literal text changes no name
    assert not names_as_written('label = f"{ｋｅｐｔ}"\n')  # its fields are code


def test_a_module_passing_parameters_around_in_cycles_is_screened_at_once() -> None:
    """Twelve functions that pass their parameters to each other in cycles, every answer "no": each question of
    `may_carry_graph` is answered once per outermost question (`ModuleValues._memo`), not again from every path
    (nine such functions took 21 s before, yolov5's `train.py` 15 s)."""
    functions = [
        f"def h{i}(a, b, c=None):\n" + "".join(f"    r{k} = h{(i * 7 + k) % 12}(b, a, c)\n" for k in range(1, 4)) + "    return r1, a, b\n"
        for i in range(12)
    ]
    loop = "class T:\n    def fit(self, loader):\n        for x, y in loader:\n            self.model(x).sum().backward()\n"
    code = "\n".join(functions) + loop + "            self.total += h0(len(x), 1)[2]\n"
    started = time.perf_counter()
    assert screened_codes(ast.parse(code), ["TL401"]) == []
    assert time.perf_counter() - started < 5
    assert screened_codes(ast.parse(code.replace("h0(len(x), 1)[2]", "h0(self.model(x), 1)[2]")), ["TL401"]) == ["TL401"]
