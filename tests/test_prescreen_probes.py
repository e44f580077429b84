"""Shapes around the pre-screen's device and scope conditions (TL104's two kinds of pinning, TL201's sources of
devices and shims, TL302's scopes): each is linted by every rule with and without the screen, which must agree.

Most of them are findings: they hold the screen to what it must keep. Stop 30 dropped `dict(pin_memory=True)` from
the screen for a while (`pin_dict_call`), which neither the fixtures nor 56 repositories showed; this set did.

`tests/prescreen_shapes/` holds the modules where a condition was found narrower than its rule (stop 31's three
red-team passes: calls through `self.x = f`, `partial`, an alias, an instance's `__call__`, a factory's or a lambda's
result, a starred unpacking or a parameter; keyword arguments; f-string devices; walrus bindings; a loop's `else`; class-body attributes and
conditional methods; step loops the screen did not take for one), each a finding the screen hid, its first line
saying which fact was missing; stop 32's four red-team passes over its own narrowings added 31 (a device bound by an
unpacking; a parameter's default; a `self.m()` in a closure of the loop; a def in a class body's `if`/`try`; a list bound under `global` or in a nested unpacking; a name a class
body, lambda or comprehension binds too; `torch.round(x)` appended), 24 of which the screen had hidden since before
that stop; a fifth pass over the conditions it had not narrowed added 21 more, all older (a nested data set class
built through `self`; a `with` target iterated as a held-out loader; class-body attributes read as `self.x`; a match
capture; float makers, dtypes and index functions imported under another name; a float maker called through a
binding; a parameter's float default); a sixth pass added 6 (a pin switch bound by an unpacking; an imported name
rebound to the read that is moved); stop 33's 25 passes (over its own narrowing of TL401's calls, then over every
condition, rule path by rule path) added 120, 108 of them hidden since before that stop (one name imported twice,
which the walk now reads in source order; callees that are calls; calls through bindings, partials under another
name and lambda defaults; class bases through bindings; a def's decorators, defaults and annotations, which run in
the scope around it; class bodies, their walruses and their members' headers; a def or class declared `global` in a
class; arguments by keyword; float tensor types, string dtypes, `xs[i,]`; identifiers CPython folds by NFKC); stop 34's
four rounds, with both stages bypassed, added 65: 60 a trigger hid (a DataLoader's switches given by position, calls
spaced, continued or broken by a comment, optimizers stepped as items or in parentheses, `train(mode=False)`, readers
under an alias, float dtypes anywhere in a call, `def _step(`), 5 a condition hid (a pin key with a trailing comma,
`partial` under another name or shadowed); three shapes of a list subscript alone went, no longer findings (TL302
reads one only beside another index use).
`tests/prescreen_edges/` holds findings at the edge of a narrowed condition (stop 32's
narrowings and the red-team passes over them), each written to sit just inside what the rule reports, its first line
naming the condition it tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest

import libcst as cst

from trainlint.engine import RuleSettings, _run_rules, lint_source
from trainlint.registry import ALL_CODES

SHAPES: Dict[str, str] = {}
_IMPORTS = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch.utils.data import DataLoader\nfrom functools import partial\n"
SHAPES["pin_cpu_device"] = _IMPORTS + "device = torch.device('cpu')\nloader = DataLoader(ds, batch_size=4, pin_memory=True)\n"
SHAPES["pin_partial"] = _IMPORTS + "device = 'cuda' if torch.cuda.is_available() else 'cpu'\nmake = partial(DataLoader, pin_memory=True)\nloader = make(ds)\n"
SHAPES["pin_dict_key_mps"] = _IMPORTS + "device = 'mps' if torch.backends.mps.is_available() else 'cpu'\nkw = {'pin_memory': True, 'batch_size': 2}\nloader = DataLoader(ds, **kw)\n"
SHAPES["pin_item_assign"] = _IMPORTS + "device = 'cuda' if torch.cuda.is_available() else 'cpu'\nkw = {}\nkw['pin_memory'] = True\nloader = DataLoader(ds, **kw)\n"
SHAPES["pin_update"] = _IMPORTS + "device = 'cuda' if torch.cuda.is_available() else 'cpu'\nkw = {'batch_size': 2}\nkw.update(pin_memory=True)\nloader = DataLoader(ds, **kw)\n"
SHAPES["pin_th_empty"] = "import torch as th\ndevice = 'cuda' if th.cuda.is_available() else 'cpu'\nbuf = th.empty(4, pin_memory=True)\nbuf = buf.to(device)\n"
SHAPES["pin_from_torch"] = "import torch\nfrom torch import empty as e\ndef run(device):\n    buf = e(4, pin_memory=True)\n    return buf.to(device)\n"
SHAPES["pin_method_param"] = "import torch\ndef collate(batch, device):\n    x = torch.stack(batch).pin_memory()\n    return x.to(device, non_blocking=True)\n"
SHAPES["pin_fabric"] = _IMPORTS + "import lightning as L\nfabric = L.Fabric()\ndevice = fabric.device\nloader = DataLoader(ds, pin_memory=True)\n"
SHAPES["pin_accelerator"] = _IMPORTS + "from accelerate import Accelerator\naccelerator = Accelerator()\ndevice = accelerator.device\nloader = DataLoader(ds, pin_memory=True)\n"
SHAPES["pin_argparse"] = _IMPORTS + "import argparse\np = argparse.ArgumentParser()\np.add_argument('--device', default='cpu')\nargs = p.parse_args()\ndevice = torch.device(args.device)\nloader = DataLoader(ds, pin_memory=True)\n"
SHAPES["pin_main_default"] = _IMPORTS + "def main(device='cpu'):\n    loader = DataLoader(ds, pin_memory=True)\n    for x in loader:\n        x.to(device)\nmain()\n"
SHAPES["pin_subclass"] = _IMPORTS + "class Loader(DataLoader):\n    pass\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\nloader = Loader(ds, pin_memory=True)\n"
SHAPES["pin_forward_kw"] = _IMPORTS + "def make(ds, **kw):\n    return DataLoader(ds, **kw)\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\nloader = make(ds, pin_memory=True)\n"
SHAPES["pin_dict_call"] = _IMPORTS + "device = 'cuda' if torch.cuda.is_available() else 'cpu'\nkw = dict(pin_memory=True)\nloader = DataLoader(ds, **kw)\n"
SHAPES["amp_mps"] = "import torch\ndevice = 'mps'\nwith torch.autocast('cuda'):\n    y = model(x)\n"
SHAPES["amp_param"] = "import torch\ndef train(model, x, device):\n    scaler = torch.cuda.amp.GradScaler()\n    with torch.cuda.amp.autocast():\n        loss = model(x.to(device))\n    scaler.scale(loss).backward()\n"
SHAPES["amp_accelerator"] = "import torch\nfrom accelerate import Accelerator\naccelerator = Accelerator()\nwith torch.cuda.amp.autocast():\n    y = model(x)\n"
SHAPES["amp_argparse"] = "import torch, argparse\np = argparse.ArgumentParser()\np.add_argument('--device')\nargs = p.parse_args()\nmodel.to(args.device)\nwith torch.cuda.amp.autocast():\n    y = model(x)\n"
SHAPES["amp_xpu"] = "import torch\nx = x.to('xpu')\nscaler = torch.amp.GradScaler()\n"
SHAPES["amp_try_import"] = "import torch\ntry:\n    from torch.amp import GradScaler\nexcept ImportError:\n    from torch.cuda.amp import GradScaler\ndef f(device):\n    s = GradScaler()\n"
SHAPES["amp_ifexp_th"] = "import torch as th\ndef f(device):\n    s = th.amp.GradScaler('cuda') if NEW else th.cuda.amp.GradScaler()\n    return s\n"
SHAPES["amp_trt_try"] = "import torch\ntry:\n    import tensorrt\nexcept ImportError:\n    pass\ndef f(model, x, device):\n    with torch.autocast('cuda'):\n        return model(x.to(device))\n"
SHAPES["amp_helper"] = "import torch\ndef get_device():\n    return torch.device('cuda' if torch.cuda.is_available() else 'mps')\nwith torch.cuda.amp.autocast():\n    y = model(x)\n"
SHAPES["amp_field"] = "import torch\nfrom dataclasses import dataclass\n@dataclass\nclass Config:\n    device: str = 'cuda'\ncfg = Config(**overrides)\nwith torch.cuda.amp.autocast():\n    y = model(x)\n"
SHAPES["amp_gpu_launcher"] = "import torch\nimport lightning as L\nfabric = L.Fabric(accelerator='gpu')\nwith torch.cuda.amp.autocast():\n    y = model(x)\n"
SHAPES["f_hook_called"] = _IMPORTS + "emb = nn.Embedding(10, 4)\nclass M:\n    def training_step(self, batch, i):\n        x, y = batch\n        return emb(y)\nm = M()\nm.training_step((torch.zeros(2), torch.zeros(2)), 0)\n"
SHAPES["f_nested"] = _IMPORTS + "emb = nn.Embedding(10, 4)\ndef outer():\n    ids = torch.zeros(3)\n    def inner():\n        return emb(ids)\n    return inner()\n"
SHAPES["f_global"] = _IMPORTS + "emb = nn.Embedding(10, 4)\nids = None\ndef setup():\n    global ids\n    ids = torch.zeros(3)\ndef run():\n    return emb(ids)\n"
SHAPES["f_walrus"] = _IMPORTS + "emb = nn.Embedding(10, 4)\ndef run():\n    if (ids := torch.ones(3)) is not None:\n        return emb(ids)\n"
SHAPES["f_loop"] = _IMPORTS + "emb = nn.Embedding(10, 4)\ndef run():\n    for ids in [torch.zeros(3), torch.ones(3)]:\n        emb(ids)\n"
SHAPES["f_reassign"] = _IMPORTS + "emb = nn.Embedding(10, 4)\ndef run(ids):\n    ids = ids.float()\n    return emb(ids)\nrun(torch.arange(3))\n"
SHAPES["f_kwarg"] = _IMPORTS + "emb = nn.Embedding(10, 4)\ndef run(ids=None):\n    return emb(ids)\nrun(ids=torch.zeros(3))\n"
SHAPES["f_method"] = _IMPORTS + "class Enc(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.emb = nn.Embedding(10, 4)\n    def encode(self, ids):\n        return self.emb(ids)\nenc = Enc()\nenc.encode(torch.zeros(3))\n"
SHAPES["f_labels"] = _IMPORTS + "def step(model, batch):\n    x, y = batch\n    out = model(x)\n    return F.cross_entropy(out, y)\nstep(model, (torch.rand(4, 3), torch.zeros(4)))\n"
SHAPES["f_input_ids_kw"] = _IMPORTS + "def run(model):\n    input_ids = torch.zeros(2, 8)\n    return model(input_ids=input_ids)\n"
SHAPES["f_static"] = _IMPORTS + "emb = nn.Embedding(10, 4)\nclass U:\n    @staticmethod\n    def look(ids):\n        return emb(ids)\nU.look(torch.zeros(3))\n"
SHAPES["f_cls_receiver"] = _IMPORTS + "emb = nn.Embedding(10, 4)\nclass U:\n    def look(self):\n        return emb(self)\nU.look(torch.zeros(3))\n"

_EMBEDDING = "import torch\nimport torch.nn as nn\nemb = nn.Embedding(10, 4)\n"
# TL302 by scope: flow, globals, class bodies, defaults, lambdas, shadowing, with/except names, swaps, closures
SHAPES["flow_before"] = _EMBEDDING + "def run(loader):\n    ids = torch.zeros(3).long()\n    for b in loader:\n        emb(ids)\n        ids = b.float()\n"
SHAPES["global_other"] = _EMBEDDING + "def setup():\n    global ids\n    ids = torch.zeros(3)\nsetup()\nemb(ids)\n"
SHAPES["class_body"] = _EMBEDDING + "class C:\n    ids = torch.zeros(3)\n    out = emb(ids)\n"
SHAPES["param_default"] = _EMBEDDING + "class M:\n    def f(self, ids=torch.zeros(3)):\n        return emb(ids)\n"
SHAPES["lambda_param"] = _EMBEDDING + "f = lambda ids: emb(ids)\nf(torch.zeros(3))\n"
SHAPES["module_and_local"] = _EMBEDDING + "ids = torch.zeros(3)\ndef run(x):\n    ids = x.long()\n    return emb(ids)\nemb(ids)\n"
SHAPES["local_shadow_param"] = _EMBEDDING + "def run(ids):\n    return emb(ids)\ndef other():\n    ids = torch.zeros(3)\n    return run(ids)\n"
SHAPES["with_as"] = _EMBEDDING + "def run(ctx):\n    with ctx as ids:\n        return emb(ids)\n"
SHAPES["except_as"] = _EMBEDDING + "x = torch.zeros(3)\ndef run():\n    try:\n        pass\n    except Exception as ids:\n        return emb(ids)\n"
SHAPES["augmented"] = _EMBEDDING + "def run():\n    ids = torch.arange(3)\n    ids += torch.zeros(3)\n    return emb(ids)\n"
SHAPES["tuple_swap"] = _EMBEDDING + "def run(a):\n    ids, other = a.long(), torch.zeros(3)\n    ids, other = other, ids\n    return emb(ids)\n"
SHAPES["method_self_call"] = _EMBEDDING + "class T:\n    def get(self):\n        return self\n    def run(self):\n        return emb(self.get())\nT.get(torch.zeros(3))\n"
SHAPES["nested_closure_param"] = _EMBEDDING + "def outer(ids):\n    def inner():\n        return emb(ids)\n    return inner()\nouter(torch.zeros(3))\n"
SHAPES["comprehension_local"] = _EMBEDDING + "def run(batches):\n    ids = [b.float() for b in batches]\n    return emb(ids[0])\n"
SHAPES["starred_unpack"] = _EMBEDDING + "def run():\n    first, *rest = torch.zeros(3), torch.zeros(2)\n    return emb(first)\n"

_FINDING_MODULES = sorted(path for folder in ("prescreen_shapes", "prescreen_edges") for path in (Path(__file__).parent / folder).glob("*.py"))


@pytest.mark.parametrize("module", _FINDING_MODULES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_the_screen_keeps_the_findings_it_once_hid_or_narrowly_keeps(module: Path) -> None:
    """Against every rule run on the parsed module, both cheap stages bypassed: some shapes hold a trigger to what
    its rule reads without the trigger's words (a DataLoader's eighth positional argument, its `pin_memory`)."""
    settings = RuleSettings(frozenset(ALL_CODES))
    # as written (a CRLF file keeps its newlines), the header line blanked: its words must not stand in for the code's
    text = "\n" + module.read_bytes().decode("utf-8").split("\n", 1)[1]
    unfiltered = _run_rules(cst.parse_module(text), text, module.name, sorted(ALL_CODES), settings).diagnostics
    bypassed = sorted((d.code, d.location) for d in unfiltered)
    assert bypassed, "each shape is a finding: one the rule does not report holds the screen to nothing"
    assert sorted((d.code, d.location) for d in lint_source(text, module.name, settings).diagnostics) == bypassed


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_screen_keeps_what_every_rule_reports(name: str) -> None:
    settings = RuleSettings(frozenset(ALL_CODES))
    screened = [(d.code, d.location) for d in lint_source(SHAPES[name], f"{name}.py", settings).diagnostics]
    assert screened == [(d.code, d.location) for d in lint_source(SHAPES[name], f"{name}.py", settings, screen=False).diagnostics]


def test_most_shapes_are_findings() -> None:
    """The set must hold the screen to something: a shape no rule reports passes with any screen."""
    settings = RuleSettings(frozenset(ALL_CODES))
    found = [name for name in SHAPES if lint_source(SHAPES[name], f"{name}.py", settings, screen=False).diagnostics]
    assert len(found) >= 30
