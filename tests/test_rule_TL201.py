"""TL201 beyond the fixtures: every import spelling, each guard against its unguarded twin, the fix's details.

Each guard test pairs a guarded snippet (silent) with the same snippet minus
the guard (reported), so a test fails if the guard stops being recognised
*or* if the snippet would have been silent anyway.
"""

from __future__ import annotations

import textwrap
from typing import List, Optional

import pytest

from trainlint.rules.amp.tl201_cuda_amp_on_other_device import CudaAmpOnOtherDevice
from trainlint.diagnostics import Applicability
from trainlint.engine import RuleSettings, fix_source, lint_source

SETTINGS = RuleSettings(codes=frozenset({"TL201"}))
MPS_DEVICE = 'device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")\n'


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def findings(text: str) -> List[int]:
    result = lint_source(_source(text), "example.py", SETTINGS)
    assert not result.errors, result.errors
    return [d.location.row for d in result.diagnostics]


def _settings(options: Optional[dict]) -> RuleSettings:
    return RuleSettings(codes=frozenset({"TL201"}), options={"TL201": options or {}})


def fixed(text: str, unsafe: bool = True, target: Optional[str] = None, options: Optional[dict] = None) -> str:
    """The fixed text, for a project on torch ``target`` (None: nothing known)."""
    options = {**(options or {}), **({"target-torch": target} if target else {})}
    result = fix_source(_source(text), "example.py", _settings(options), unsafe_fixes=unsafe)
    assert not result.errors, result.errors
    return result.text


def only_fix(text: str, options: Optional[dict] = None):
    (diagnostic,) = lint_source(_source(text), "example.py", _settings(options)).diagnostics
    return diagnostic.fix


# -- what is reported --------------------------------------------------------------


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import torch", "torch.cuda.amp.autocast()"),
        ("import torch\nfrom torch.cuda import amp", "amp.autocast()"),
        ("import torch\nfrom torch.cuda.amp import autocast as ac", "ac()"),
        ("import torch\nimport torch.cuda.amp as amp", "amp.autocast()"),
        ("import torch as th\nfrom torch.cuda.amp import GradScaler", "GradScaler()"),
        ("import torch", 'torch.autocast("cuda")'),
        ("import torch", 'torch.amp.autocast(device_type="cuda", dtype=torch.float16)'),
        ("import torch\nfrom torch import autocast", 'autocast("cuda")'),
        ("import torch", 'torch.amp.GradScaler("cuda")'),
        ("import torch", "torch.amp.GradScaler()"),
        ("import torch", "torch.GradScaler(enabled=True)"),
        ("import torch\nfrom torch.cuda.amp import *", "autocast()"),
        ("from torch.cuda.amp import *", "GradScaler(init_scale=1024.0)"),
        ("import torch\nfrom torch.cuda.amp.autocast_mode import *", "autocast()"),
        ("import torch\nfrom torch.cuda.amp.grad_scaler import *", "GradScaler()"),
        ("import torch\nfrom torch.amp import *", "GradScaler()"),  # torch.amp.GradScaler defaults to "cuda"
    ],
)
def test_cuda_only_amp_is_reported_under_every_spelling(imports: str, call: str) -> None:
    source = f"{imports}\n{MPS_DEVICE}x = {call}\n"
    assert findings(source) == [len(source.splitlines())]


@pytest.mark.parametrize(
    "call",
    [
        "torch.autocast(device_type=device.type)",
        'torch.amp.autocast("cpu", dtype=torch.bfloat16)',
        "torch.amp.GradScaler(device.type, enabled=device.type == 'cuda')",
        "torch.cuda.amp.autocast(enabled=False)",
        "torch.cuda.amp.autocast(*args)",
        "torch.cuda.amp.GradScaler(**options)",
        "torch.autocast()",
        "torch.autocast(device_type=config.device_type)",
        "torch.cuda.amp.autocast(unknown_option=1)",
    ],
)
def test_device_aware_disabled_or_unreadable_amp_is_not_reported(call: str) -> None:
    assert findings(f"import torch\n{MPS_DEVICE}x = {call}\n") == []


@pytest.mark.parametrize(
    "binding",
    [
        "def autocast(enabled=True):\n    return nullcontext()",
        "class autocast:\n    pass",
        "autocast = nullcontext",
        "autocast, GradScaler = nullcontext, None",
        "from contextlib import nullcontext as autocast",
        "from .amp import autocast, GradScaler",
        "import contextlib as autocast",
        "for autocast in (nullcontext,):\n    pass",
        "def step(autocast, GradScaler):\n    pass",
        "with open(path) as autocast:\n    pass",
        "from torch.amp import *",  # two star imports offer `autocast`: which one wins is not read
    ],
)
def test_a_star_imported_name_bound_otherwise_is_not_reported(binding: str) -> None:
    source = f"import torch\nfrom torch.cuda.amp import *\n{MPS_DEVICE}{binding}\nwith autocast():\n    pass\n"
    assert findings(source) == []


CUDA_MODEL = "def build():\n    return Net().cuda()\n"  # pins the module to CUDA, guards nothing after it


@pytest.mark.parametrize(
    "evidence, reported",
    [
        ("", False),  # nothing says it can run anywhere but CUDA
        ('model.load_state_dict(torch.load(path, map_location="cpu"))\nout = out.to("cpu")\n', False),
        ("def train(model, device):\n    pass\n", True),  # a device chosen by the caller
        ('def train(model, device):\n    pass\ndist.init_process_group("nccl")\n', False),
        ('def train(model, device):\n    pass\ntorch.cuda.set_device(rank)\n', False),
        ('def train(model, device):\n    pass\nassert torch.cuda.is_available(), "needs a GPU"\n', False),
        ('parser.add_argument("--device", default="cuda", help="cuda device, i.e. 0 or 0,1 or cpu")\n', True),
        ('device = "cuda" if torch.cuda.is_available() else "cpu"\n', False),  # CUDA, else the CPU fallback
        ('device = "cuda" if torch.cuda.is_available() else "xpu"\n', True),  # another accelerator
        ("def device_for(rank):\n    return f'cuda:{rank}' if rank >= 0 else 'cpu'\n", False),
        ('parser.add_argument("--device", choices=["cuda:0", "cuda:1", "cpu"])\n', False),
        ('parser.add_argument("--device", choices=["cuda", "mps", "cpu"])\n', True),
        ("from accelerate import Accelerator\naccelerator = Accelerator()\n", True),
        ('CONFIG = {"device": "cuda"}\ndevice = CONFIG["device"]\n', False),
        ('CONFIG = {"device": "mps"}\ndevice = CONFIG["device"]\n', True),
        ("from utils import pick_device\ndevice = pick_device()\n", True),  # an imported helper: anything
        ('device = "cuda"\n', False),
        ("model.to('cuda')\ndef train(model, device):\n    pass\n", False),  # raises without CUDA
        ("import transformer_engine.pytorch as te\ndef train(model, device):\n    pass\n", False),  # FP8 kernels
        ('device = "cuda"\nexec(open("configurator.py").read())\n', True),  # nanoGPT: `--device=mps` replaces it
        ("if ddp:\n    torch.cuda.set_device(rank)\ndef train(model, device):\n    pass\n", True),  # DDP runs only
        ('backend = "nccl"\ndef train(model, device):\n    pass\n', True),  # a default, not a process group
        ("if ddp:\n    assert torch.cuda.device_count() > rank\ndef train(model, device):\n    pass\n", True),  # yolov5
        ("if torch.backends.mps.is_available():\n    pass\n", True),
        ("model = Net().cuda()\ndef train(model, device):\n    pass\n", False),  # cannot run without CUDA
        ("if use_gpu:\n    model = model.cuda()\ndef train(model, device):\n    pass\n", True),
        ("model = model.cuda() if use_gpu else model\ndef train(model, device):\n    pass\n", True),
        ("def train(model, device):\n    torch.cuda.synchronize()\n", False),  # raises without CUDA
        ("def train(model, device):\n    if device.type == 'cuda':\n        torch.cuda.synchronize()\n", True),
        ("def train(model, device):\n    stream = torch.cuda.Stream() if torch.cuda.is_available() else None\n", True),
        ("import tensorrt as trt\ndef build(model, device):\n    pass\n", False),  # loads only with CUDA
        ("from cuda import cudart\ndef build(model, device):\n    pass\n", False),
        ("try:\n    import cupy\nexcept ImportError:\n    cupy = None\ndef train(model, device):\n    pass\n", True),
        # Where the input pipeline runs is not where the model computes.
        ('parser.add_argument("--dali_device", choices=["cpu", "gpu"])\n' + CUDA_MODEL, False),
        ('parser.add_argument("--data-loader-device", default="cpu")\n', False),
        ('if args.dali_device == "cpu":\n    pin = True\n' + CUDA_MODEL, False),
        ('parser.add_argument("--train_device", choices=["cuda", "cpu"])\n' + CUDA_MODEL, False),  # CUDA or CPU
    ],
)
def test_only_modules_that_can_run_off_cuda_are_reported(evidence: str, reported: bool) -> None:
    source = f"import torch\n{evidence}scaler = torch.cuda.amp.GradScaler()\n"
    assert bool(findings(source)) is reported


# -- guards: silent with the guard, reported without it ------------------------------

GUARDS = {
    "enabled tied to CUDA": (
        "scaler = torch.cuda.amp.GradScaler(enabled=amp and device.type == 'cuda')",
        "scaler = torch.cuda.amp.GradScaler(enabled=amp)",
    ),
    "enabled by a conditional": (
        "scaler = torch.cuda.amp.GradScaler(enabled=device.type == 'cuda' if amp else False)",
        "scaler = torch.cuda.amp.GradScaler(enabled=True if amp else False)",
    ),
    "enabled via a variable checking CUDA": (
        "use_amp = amp and torch.cuda.is_available()\nscaler = torch.cuda.amp.GradScaler(enabled=use_amp)",
        "use_amp = amp and device.type != 'cpu'\nscaler = torch.cuda.amp.GradScaler(enabled=use_amp)",
    ),
    "enabled switched off off CUDA": (
        "use_amp = amp\nif device.type != 'cuda':\n    use_amp = False\nscaler = torch.cuda.amp.GradScaler(enabled=use_amp)",
        "use_amp = amp\nif device.type == 'cpu':\n    use_amp = False\nscaler = torch.cuda.amp.GradScaler(enabled=use_amp)",
    ),
    "enabled via a same-module helper": (
        "def check_amp(model):\n    return next(model.parameters()).device.type not in ('cpu', 'mps')\n"
        "scaler = torch.cuda.amp.GradScaler(enabled=check_amp(model))",
        "def check_amp(model):\n    return True\nscaler = torch.cuda.amp.GradScaler(enabled=check_amp(model))",
    ),
    "enabled via an imported AMP check": (
        "from utils.checks import check_amp\nscaler = torch.cuda.amp.GradScaler(enabled=check_amp(model))",
        "from utils.checks import is_main_process\nscaler = torch.cuda.amp.GradScaler(enabled=is_main_process())",
    ),
    "switch that picks CUDA": (
        "dev = 'cuda' if args.cuda else 'cpu'\nscaler = torch.cuda.amp.GradScaler(enabled=args.cuda and args.amp)",
        "dev = 'cuda' if args.cuda else 'cpu'\nscaler = torch.cuda.amp.GradScaler(enabled=args.amp)",
    ),
    "mirrored switch": (
        "dev = torch.device('cpu' if opt.no_cuda else 'cuda')\nif not opt.no_cuda:\n    scaler = torch.cuda.amp.GradScaler()",
        "dev = torch.device('cpu' if opt.no_cuda else 'cuda')\nif not opt.no_amp:\n    scaler = torch.cuda.amp.GradScaler()",
    ),
    "match case": (
        "match device.type:\n    case 'cuda' | 'cuda:0':\n        scaler = torch.cuda.amp.GradScaler()",
        "match device.type:\n    case 'cuda' | 'mps':\n        scaler = torch.cuda.amp.GradScaler()",
    ),
    "CUDA branch": (
        "if device.type == 'cuda':\n    scaler = torch.cuda.amp.GradScaler()",
        "if device.type != 'cpu':\n    scaler = torch.cuda.amp.GradScaler()",
    ),
    "else of a non-CUDA branch": (
        "if not torch.cuda.is_available():\n    scaler = None\nelse:\n    scaler = torch.cuda.amp.GradScaler()",
        "if torch.cuda.is_available():\n    scaler = None\nelse:\n    scaler = torch.cuda.amp.GradScaler()",
    ),
    "conditional expression": (
        "ctx = torch.autocast('cuda') if torch.cuda.is_available() else nullcontext()",
        "ctx = torch.autocast('cuda') if amp else nullcontext()",
    ),
    "early return": (
        "def ctx(device):\n    if device.type != 'cuda':\n        return nullcontext()\n    return torch.cuda.amp.autocast()",
        "def ctx(device):\n    if device.type == 'cpu':\n        return nullcontext()\n    return torch.cuda.amp.autocast()",
    ),
    "raise requiring CUDA": (
        "def train(device):\n    if device.type != 'cuda':\n        raise ValueError('AMP needs CUDA')\n"
        "    return torch.cuda.amp.GradScaler()",
        "def train(device):\n    if device.type == 'cpu':\n        raise ValueError('no AMP on the CPU')\n"
        "    return torch.cuda.amp.GradScaler()",
    ),
    "skipped test": (
        "@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')\n"
        "def test_amp():\n    scaler = torch.cuda.amp.GradScaler()",
        "@pytest.mark.skipif(sys.platform == 'win32', reason='slow')\ndef test_amp():\n    scaler = torch.cuda.amp.GradScaler()",
    ),
    "GPU-only test": (
        "@require_torch_gpu\ndef test_amp():\n    scaler = torch.cuda.amp.GradScaler()",
        "@require_torch\ndef test_amp():\n    scaler = torch.cuda.amp.GradScaler()",
    ),
    "test that asks for GPUs": (
        "@RunIf(min_cuda_gpus=1)\ndef test_amp():\n    scaler = torch.cuda.amp.GradScaler()",
        "@RunIf(min_cuda_gpus=0)\ndef test_amp():\n    scaler = torch.cuda.amp.GradScaler()",
    ),
    "version-gated conditional": (
        "scaler = torch.amp.GradScaler('cuda') if TORCH_2_4 else torch.cuda.amp.GradScaler()",
        "scaler = torch.cuda.amp.GradScaler() if TORCH_2_4 else None",
    ),
    "try/except fallback": (
        "try:\n    ctx = torch.amp.autocast('cuda')\nexcept (AttributeError, TypeError):\n    ctx = torch.cuda.amp.autocast()",
        "try:\n    ctx = torch.amp.autocast('cuda')\nexcept RuntimeError:\n    ctx = torch.cuda.amp.autocast()",
    ),
    "import shim": (
        "try:\n    from torch.amp import GradScaler\nexcept ImportError:\n    from torch.cuda.amp import GradScaler\n"
        "scaler = GradScaler()",
        "from torch.cuda.amp import GradScaler\nscaler = GradScaler()",
    ),
}


@pytest.mark.parametrize("guarded, unguarded", GUARDS.values(), ids=GUARDS.keys())
def test_guard_silences_what_its_absence_reports(guarded: str, unguarded: str) -> None:
    assert findings(f"import torch\n{MPS_DEVICE}{guarded}\n") == []
    assert findings(f"import torch\n{MPS_DEVICE}{unguarded}\n") != []


# A module whose `device` is CUDA or the CPU, beside an evaluation device that can be MPS: the module reaches
# another accelerator, so without a guard it is reported, and a guard on `device` is all that can silence it.
REUSABLE = 'eval_device = "mps" if torch.backends.mps.is_available() else "cpu"\n'
CUDA_OR_CPU = REUSABLE + 'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
CUDA_MPS_OR_CPU = (
    'device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"\n'
)
SCALER = "scaler = torch.cuda.amp.GradScaler()"
LEAVING_GUARDS = {
    "raise when the device is the CPU": (
        f'{CUDA_OR_CPU}if device == "cpu":\n    raise SystemExit("needs a GPU")\n{SCALER}',
        f'{CUDA_OR_CPU}if device == "cpu":\n    print("no GPU: this will be slow")\n{SCALER}',
    ),
    "exit when the device is not CUDA": (
        f'{CUDA_OR_CPU}if device != "cuda":\n    sys.exit("needs a GPU")\n{SCALER}',
        f'{CUDA_OR_CPU}if device != "cuda":\n    warnings.warn("no GPU")\n{SCALER}',
    ),
    "assert the device is CUDA": (
        f'{CUDA_OR_CPU}assert device == "cuda", "needs a GPU"\n{SCALER}',
        f'{CUDA_OR_CPU}assert device in ("cuda", "cpu")\n{SCALER}',
    ),
    "CPU literal on the left, quit()": (
        f'{CUDA_OR_CPU}if "cpu" == device:\n    quit()\n{SCALER}',
        f'{CUDA_OR_CPU}if "cpu" == device and strict:\n    quit()\n{SCALER}',
    ),
    "device type of a torch.device": (
        f'{REUSABLE}device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")\n'
        f'if device.type == "cpu":\n    raise SystemExit\n{SCALER}',
        f'{REUSABLE}device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")\n'
        f'if device == "cpu":\n    raise SystemExit\n{SCALER}',  # a torch.device never equals a string
    ),
    "CUDA unavailable at the top of the function": (
        f'{CUDA_OR_CPU}def main():\n    if not torch.cuda.is_available():\n        raise RuntimeError("needs CUDA")\n'
        f"    {SCALER}",
        f'{CUDA_OR_CPU}def main():\n    if not torch.cuda.is_available():\n        logging.warning("no CUDA")\n'
        f"    {SCALER}",
    ),
    "return from main, before the AMP": (
        f'{CUDA_OR_CPU}def main():\n    if device == "cpu":\n        return\n    {SCALER}',
        f'{CUDA_OR_CPU}def main():\n    {SCALER}\n    if device == "cpu":\n        return',
    ),
    "guard in the function, not in another one": (
        f'{CUDA_OR_CPU}def main():\n    if device == "cpu":\n        raise SystemExit\n    {SCALER}',
        f'{CUDA_OR_CPU}def check():\n    if device == "cpu":\n        raise SystemExit\ndef main():\n    {SCALER}',
    ),
    "guard in an enclosing block, not a nested one": (
        f'{CUDA_OR_CPU}if device == "cpu":\n    raise SystemExit\nif amp:\n    {SCALER}',
        f'{CUDA_OR_CPU}if strict:\n    if device == "cpu":\n        raise SystemExit\n{SCALER}',
    ),
    "every non-CUDA device rejected, not MPS alone": (
        f'{CUDA_MPS_OR_CPU}if device in ("cpu", "mps"):\n    raise SystemExit\n{SCALER}',
        f'{CUDA_MPS_OR_CPU}if device == "mps":\n    raise SystemExit\n{SCALER}',
    ),
    "no longer known once reassigned from elsewhere": (
        f'{CUDA_OR_CPU}if device == "cpu":\n    raise SystemExit\n{SCALER}',
        f'{CUDA_OR_CPU}device = args.device or device\nif device == "cpu":\n    raise SystemExit\n{SCALER}',
    ),
    "CUDA runtime call before the AMP, not after": (
        f"{CUDA_OR_CPU}def main():\n    torch.cuda.synchronize()\n    {SCALER}",
        f"{CUDA_OR_CPU}def main():\n    {SCALER}\n    torch.cuda.synchronize()",
    ),
    "CUDA runtime call in the block, not under an if": (
        f"{CUDA_OR_CPU}def main(args):\n    torch.cuda.synchronize()\n    if args.amp:\n        {SCALER}",
        f"{CUDA_OR_CPU}def main(args):\n    if args.profile:\n        torch.cuda.synchronize()\n    {SCALER}",
    ),
    "CUDA runtime call not in a try that swallows its error": (
        f"{CUDA_OR_CPU}def main():\n    torch.cuda.synchronize()\n    {SCALER}",
        f"{CUDA_OR_CPU}def main():\n    try:\n        torch.cuda.synchronize()\n    except AssertionError:\n"
        f"        pass\n    {SCALER}",
    ),
    "batch moved with .cuda(), not only under a condition": (
        f"{CUDA_OR_CPU}def step(batch):\n    batch = batch.cuda(non_blocking=True)\n    {SCALER}",
        f"{CUDA_OR_CPU}def step(batch):\n    batch = batch.cuda() if device == 'cuda' else batch\n"
        f"    ready = device == 'cuda' and torch.cuda.synchronize()\n    {SCALER}",
    ),
    "model moved before the loop, not in a comprehension, a lambda or a loop": (
        f"{CUDA_OR_CPU}def run(model, batches):\n    print(model.cuda())\n    for batch in batches:\n        {SCALER}",
        f"{CUDA_OR_CPU}def run(model, batches):\n    batches = [b.cuda() for b in batches]\n"
        f"    move = lambda m: m.cuda()\n    for batch in batches:\n        batch.cuda()\n    {SCALER}",
    ),
    # The guard reads the module's `device`: a parameter of the same name elsewhere is another binding.
    "not known where `device` may be any string at the guard": (
        f'{CUDA_OR_CPU}def move(x, device):\n    return x.to(device)\n'
        f'if device == "cpu":\n    raise SystemExit\n{SCALER}',
        f'{CUDA_OR_CPU}if len(sys.argv) > 1:\n    device = sys.argv[1]\n'
        f'if device == "cpu":\n    raise SystemExit\n{SCALER}',
    ),
}


@pytest.mark.parametrize("guarded, unguarded", LEAVING_GUARDS.values(), ids=LEAVING_GUARDS.keys())
def test_a_guard_that_leaves_off_cuda_silences_the_amp_after_it(guarded: str, unguarded: str) -> None:
    """A guard counts when it leaves off CUDA, before the AMP, in the AMP's block or an enclosing one."""
    assert findings(f"import sys\nimport torch\n{guarded}\n") == []
    assert findings(f"import sys\nimport torch\n{unguarded}\n") != []


@pytest.mark.parametrize("cuda_setup, reported", [('self.device = torch.device(f"cuda:{gpus[0]}")', False), ("self.gpus = gpus", True)])
def test_autocast_in_the_branch_that_sets_the_device_to_cuda_runs_only_on_cuda(cuda_setup: str, reported: bool) -> None:
    """Issue 14: ``if not gpus: <CPU setup> else: <CUDA setup; autocast("cuda")>``, in a module that also offers MPS."""
    source = f"""
        import torch
        class Runner:
            def __init__(self, gpus, use_mps):
                if use_mps:
                    self.device = torch.device("mps")
                    self.ctx = None
                elif not gpus:
                    self.device = torch.device("cpu")
                    self.ctx = None
                else:
                    {cuda_setup}
                    self.ctx = torch.autocast("cuda", dtype=torch.float16)
    """
    assert bool(findings(source)) is reported


def test_a_device_rewrapped_in_itself_keeps_its_devices() -> None:
    """``device = torch.device(device)`` holds the device bound before it (names are followed flow-aware),
    so the guard after it leaves off CUDA; rewrapped in a loop, where the binding reaches itself, it ends."""
    guard = 'if device.type == "cpu":\n    raise SystemExit\n'
    assert findings(f"import torch\n{CUDA_OR_CPU}device = torch.device(device)\n{guard}{SCALER}\n") == []
    looped = f"import torch\n{CUDA_OR_CPU}for _ in range(2):\n    device = torch.device(device)\n{guard}{SCALER}\n"
    assert findings(looped) == []
    unknown = f"import torch\n{CUDA_OR_CPU}device = torch.device(sys.argv[1])\n{guard}{SCALER}\n"
    assert findings(f"import sys\n{unknown}") == [8]


def test_a_cuda_check_that_only_picks_the_dtype_does_not_tie_the_scaler() -> None:
    """nanoGPT: on MPS ``dtype`` is "float16", so this scaler is enabled there and turns itself off."""
    source = f"""import torch
{MPS_DEVICE}dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float16'
scaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))
"""
    assert findings(source) == [4]


# -- the fix -------------------------------------------------------------------------


def test_without_a_device_in_scope_the_fix_is_safe_and_keeps_amp_where_cuda_is() -> None:
    """Enabled exactly where the original ran (CUDA available); elsewhere off, as the original was, without its warning."""
    source = f"import torch\n{MPS_DEVICE.replace('device =', 'DEV =')}def forward(x):\n    with torch.cuda.amp.autocast(dtype=torch.bfloat16):\n        return x\n"
    assert only_fix(source).applicability is Applicability.SAFE
    text = fixed(source, unsafe=False)
    assert "torch.autocast('cuda', dtype=torch.bfloat16, enabled=torch.cuda.is_available())" not in text
    assert 'torch.autocast("cuda", dtype=torch.bfloat16, enabled=torch.cuda.is_available())' in text


@pytest.mark.parametrize(
    "binding, device_type",
    [
        ("device = torch.device(name)", "device.type"),
        ('device = "mps" if torch.backends.mps.is_available() else "cpu"', "device"),
        ("device = pick_device()", "device.type"),  # pick_device returns torch.device(...) on every path
        ("device = args.device", "torch.device(device).type"),
        ("device_type = torch.device(name).type", "device_type"),
        ("device = accelerator.device", "device.type"),  # Accelerate's device is a torch.device
    ],
)
def test_the_device_type_is_spelled_for_what_the_device_holds(binding: str, device_type: str) -> None:
    source = f"""
        import torch
        def pick_device():
            return torch.device("mps") if torch.backends.mps.is_available() else torch.device("cpu")
        def step(name, args, accelerator):
            {binding}
            return torch.cuda.amp.GradScaler()
    """
    assert f'torch.amp.GradScaler("cuda", enabled={device_type} == "cuda")' in fixed(source, target="2.3")
    assert only_fix(source).applicability is Applicability.SAFE


@pytest.mark.parametrize(
    "function",
    [
        "def step(device=None):\n    return torch.cuda.amp.autocast()",  # may be None: not a device yet
        "def step(device: Optional[str]):\n    return torch.cuda.amp.autocast()",
        "def step(flag):\n    ctx = torch.cuda.amp.autocast()\n    device = 'cpu'\n    return ctx",  # assigned after
        "def step(flag):\n    if flag:\n        device = 'cpu'\n    return torch.cuda.amp.autocast()",  # maybe unassigned
    ],
)
def test_a_device_that_may_be_unset_is_not_used(function: str) -> None:
    source = f"import torch\n{MPS_DEVICE}{function}\n"
    assert 'torch.autocast("cuda", enabled=torch.cuda.is_available())' in fixed(source)


@pytest.mark.parametrize(
    "binding",
    ["for device in names:", "with pool.borrow() as device:", "for step, device in enumerate(names):"],
)
def test_a_loop_or_with_variable_shadows_the_module_device(binding: str) -> None:
    """Inside the block ``device`` is whatever the loop yields (a string, maybe): not the module's torch.device."""
    source = f"""
        import torch
        device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
        def run(names, pool):
            {binding}
                return torch.cuda.amp.GradScaler()
    """
    assert 'torch.amp.GradScaler("cuda", enabled=torch.device(device).type == "cuda")' in fixed(source, target="2.3")


def test_a_loop_variable_after_its_loop_is_not_a_certain_device() -> None:
    source = """
        import torch
        device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
        def run(names):
            for device in names:
                pass
            return torch.cuda.amp.GradScaler()
    """
    assert "torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())" in fixed(source)


def test_self_device_is_used_only_once_assigned() -> None:
    source = """
        import torch
        class Trainer:
            def __init__(self, device):
                self.scaler = torch.cuda.amp.GradScaler()
                self.device = torch.device(device)
            def step(self):
                with torch.cuda.amp.autocast():
                    pass
    """
    text = fixed(source, target="2.3")
    assert 'self.scaler = torch.amp.GradScaler("cuda", enabled=torch.device(device).type == "cuda")' in text
    assert 'torch.autocast("cuda", enabled=self.device.type == "cuda")' in text


def test_self_device_of_a_same_module_base_class_is_in_scope() -> None:
    source = """
        import torch
        class Base:
            def __init__(self):
                self.device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
        class Trainer(Base):
            def step(self):
                with torch.cuda.amp.autocast():
                    pass
    """
    assert 'torch.autocast("cuda", enabled=self.device.type == "cuda")' in fixed(source, unsafe=False)


def test_arguments_are_kept_and_enabled_is_combined() -> None:
    source = """
        import torch
        def step(device: torch.device, cfg):
            scaler = torch.cuda.amp.GradScaler(1024.0, 2.0, enabled=cfg.amp or cfg.fp16)
            with torch.cuda.amp.autocast(True, torch.bfloat16):
                pass
    """
    text = fixed(source, target="2.3")
    assert (
        'torch.amp.GradScaler("cuda", init_scale=1024.0, growth_factor=2.0, '
        'enabled=(cfg.amp or cfg.fp16) and device.type == "cuda")'
    ) in text
    assert 'torch.autocast("cuda", enabled=device.type == "cuda", dtype=torch.bfloat16)' in text


def test_a_hard_wired_call_only_gains_its_gate() -> None:
    source = f'import torch\n{MPS_DEVICE}ctx = torch.autocast("cuda", dtype=torch.float16)\nscaler = torch.amp.GradScaler()\n'
    text = fixed(source, unsafe=False)
    assert 'ctx = torch.autocast("cuda", dtype=torch.float16, enabled=device.type == "cuda")' in text
    assert 'scaler = torch.amp.GradScaler(enabled=device.type == "cuda")' in text


def test_a_multi_line_call_stays_one_argument_per_line() -> None:
    source = """
        import torch
        def step(device: torch.device):
            return torch.cuda.amp.GradScaler(
                init_scale=1024.0,
            )
    """
    assert fixed(source, target="2.3").endswith(
        "    return torch.amp.GradScaler(\n"
        '        "cuda",\n'
        "        init_scale=1024.0,\n"
        '        enabled=device.type == "cuda",\n'
        "    )\n"
    )


def test_imports_follow_the_fix() -> None:
    source = """
        from torch.cuda.amp import GradScaler, autocast
        def step(device):
            with autocast():
                pass
            if device.type == "cuda":
                return GradScaler()
    """
    text = fixed(source)
    assert text.startswith("import torch\nfrom torch.cuda.amp import GradScaler\n")  # GradScaler is still used
    assert 'torch.autocast("cuda", enabled=torch.device(device).type == "cuda")' in text


def test_removing_an_import_keeps_the_blank_line_before_its_group() -> None:
    source = """
        import argparse

        from torch.cuda.amp import GradScaler
        import numpy

        DEVICE = "mps"
        scaler = GradScaler()
    """
    text = fixed(source, target="2.3")
    assert "from torch.cuda.amp" not in text
    assert "import argparse\n\n" in text and "argparse\nimport numpy" not in text


def test_a_function_local_import_left_unused_is_removed() -> None:
    source = """
        import torch
        def main(device: torch.device):
            from torch.cuda.amp import GradScaler
            scaler = GradScaler()
            return scaler
    """
    assert fixed(source, target="2.3") == _source(
        """
        import torch
        def main(device: torch.device):
            scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda")
            return scaler
        """
    )


def test_a_star_import_stays_and_torch_is_imported() -> None:
    """The star import may bring in other names (``custom_fwd``): only the call changes."""
    source = "from torch.cuda.amp import *\ndef step(device):\n    return autocast()\n"
    assert fixed(source) == (
        "import torch\nfrom torch.cuda.amp import *\ndef step(device):\n"
        '    return torch.autocast("cuda", enabled=torch.device(device).type == "cuda")\n'
    )


def test_an_aliased_torch_is_reused() -> None:
    source = "import torch as th\nfrom torch.cuda import amp\ndef step(device):\n    return amp.autocast()\n"
    assert fixed(source) == (
        "import torch as th\ndef step(device):\n"
        '    return th.autocast("cuda", enabled=th.device(device).type == "cuda")\n'
    )


# -- the target torch: each fix below and at the version its API arrived ---------------------

SCALER_AND_AUTOCAST = """
    import torch
    from torch.cuda.amp import GradScaler
    def step(device: torch.device, amp):
        scaler = GradScaler(enabled=amp)
        with torch.cuda.amp.autocast(enabled=amp):
            pass
"""


@pytest.mark.parametrize(
    "target, scaler",
    [
        (None, 'GradScaler(enabled=amp and device.type == "cuda")'),  # nothing known: 1.10 is assumed
        ("2.2", 'GradScaler(enabled=amp and device.type == "cuda")'),
        ("2.3", 'torch.amp.GradScaler("cuda", enabled=amp and device.type == "cuda")'),
        ("2.13", 'torch.amp.GradScaler("cuda", enabled=amp and device.type == "cuda")'),
    ],
)
def test_the_scaler_fix_writes_torch_amp_only_from_2_3(target, scaler) -> None:
    text = fixed(SCALER_AND_AUTOCAST, unsafe=False, target=target)
    assert f"scaler = {scaler}\n" in text
    assert ("from torch.cuda.amp import GradScaler" in text) is scaler.startswith("GradScaler")


@pytest.mark.parametrize(
    "target, autocast",
    [
        ("1.9", 'torch.cuda.amp.autocast(enabled=amp and device.type == "cuda")'),
        ("1.10", 'torch.autocast("cuda", enabled=amp and device.type == "cuda")'),
    ],
)
def test_the_autocast_fix_writes_torch_autocast_only_from_1_10(target, autocast) -> None:
    assert f"with {autocast}:" in fixed(SCALER_AND_AUTOCAST, unsafe=False, target=target)


@pytest.mark.parametrize("target, everywhere", [("2.4", False), ("2.5", True)])
def test_autocast_on_other_accelerators_is_an_unsafe_option_from_torch_2_5(target, everywhere) -> None:
    source = f"import torch\n{MPS_DEVICE}with torch.cuda.amp.autocast(enabled=amp):\n    pass\n"
    options = {"target-torch": target, "autocast-on-other-accelerators": True}
    fix = only_fix(source, options)
    assert (fix.applicability is Applicability.UNSAFE) is everywhere
    text = fixed(source, options=options)
    if everywhere:
        assert "float16" in fix.message and "GradScaler" in fix.message  # what changes on MPS, and what is missing
        assert 'torch.autocast(device_type=device.type, enabled=amp and device.type != "cpu")' in text
    else:  # MPS autocast raises below 2.5: the safe fix is all there is
        assert 'torch.autocast("cuda", enabled=amp and device.type == "cuda")' in text


def test_the_fix_removes_every_finding_and_is_stable() -> None:
    source = """
        import torch
        from torch.cuda.amp import autocast
        DEVICE = "mps" if torch.backends.mps.is_available() else "cpu"
        @autocast()
        def forward(x):
            with torch.autocast("cuda"), torch.cuda.amp.autocast(enabled=True):
                return torch.amp.GradScaler()
    """
    once = fixed(source)
    assert findings(once) == []
    assert fixed(once) == once


def test_documentation_has_every_section() -> None:
    doc = CudaAmpOnOtherDevice.__doc__ or ""
    for section in ("## What it does", "## Why is this bad", "## Example", "## Use instead", "## Fix safety", "## Evidence"):
        assert section in doc


# -- CUDA-only AMP held by a name ----------------------------------------------------

_THROUGH_A_HELPER = """
import torch
from contextlib import suppress

device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")


def get_autocast(precision):
    if precision == "amp":
        return torch.cuda.amp.autocast
    return {other}


def step(model, x, precision):
    autocast = get_autocast(precision)
    with autocast():
        return model(x)
"""


def test_a_name_that_may_hold_cuda_only_autocast_or_another_context_is_reported_without_a_fix() -> None:
    """open_clip's shape: the helper returns torch.cuda.amp.autocast or `suppress`, which takes no `enabled`."""
    source = _THROUGH_A_HELPER.format(other="suppress")
    assert findings(source) == [15]
    assert only_fix(source) is None


def test_a_name_that_holds_only_cuda_only_autocast_gets_the_gate() -> None:
    source = _THROUGH_A_HELPER.format(other="torch.cuda.amp.autocast")
    assert findings(source) == [15]
    assert "with autocast(enabled=device.type == \"cuda\"):" in fixed(source)


def test_a_helper_returning_device_aware_autocast_is_not_reported() -> None:
    source = _THROUGH_A_HELPER.replace("return torch.cuda.amp.autocast", "return suppress").format(other="suppress")
    assert findings(source) == []
