"""Import bookkeeping of fixes: added where isort would put them, dropped when a fix left them unused."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.fixes import _drop_unused_imports, _ensure_import
from trainlint.rule import Import


@pytest.mark.parametrize(
    "before, needed, after",
    [
        pytest.param(
            '"""doc"""\n\nimport torch\n\nx = 1\n',
            Import("collections", "deque"),
            '"""doc"""\n\nfrom collections import deque\n\nimport torch\n\nx = 1\n',
            id="stdlib-before-third-party",
        ),
        pytest.param(
            "import json\nimport os\n\nimport torch\n",
            Import("collections", "deque"),
            "import json\nimport os\nfrom collections import deque\n\nimport torch\n",
            id="from-import-after-plain-imports-of-its-section",
        ),
        pytest.param(
            "from __future__ import annotations\n\nimport numpy as np\n",
            Import("torch"),
            "from __future__ import annotations\n\nimport numpy as np\nimport torch\n",
            id="third-party-in-order",
        ),
        pytest.param("x = 1\n", Import("torch"), "import torch\n\nx = 1\n", id="no-imports-yet"),
        pytest.param("import torch\n", Import("torch"), "import torch\n", id="already-there"),
        pytest.param("import torch.nn as nn\nimport torch.cuda\n", Import("torch"), "import torch.nn as nn\nimport torch.cuda\n", id="bound-by-submodule-import"),
    ],
)
def test_ensure_import(before: str, needed: Import, after: str) -> None:
    assert _ensure_import(cst.parse_module(before), needed).code == after


@pytest.mark.parametrize(
    "before, after",
    [
        ("from torch.cuda.amp import GradScaler, autocast\nautocast()\n", "from torch.cuda.amp import autocast\nautocast()\n"),
        ("from torch.cuda.amp import GradScaler\nx = 1\n", "x = 1\n"),
        ("import torch.cuda.amp.GradScaler as S\nx = 1\n", "x = 1\n"),
        ("import torch.cuda.amp.GradScaler as S\nS()\n", "import torch.cuda.amp.GradScaler as S\nS()\n"),
        ("import torch.cuda.amp.GradScaler\nx = 1\n", "import torch.cuda.amp.GradScaler\nx = 1\n"),
        ("from torch.cuda.amp import GradScaler as GS\nclass A:\n    s = GS\n", "from torch.cuda.amp import GradScaler as GS\nclass A:\n    s = GS\n"),
    ],
)
def test_drop_unused_imports(before: str, after: str) -> None:
    module = cst.parse_module(before)
    assert _drop_unused_imports(module, [Import("torch.cuda.amp", "GradScaler")]).code == after
