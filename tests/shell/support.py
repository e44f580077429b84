"""What the shell tests share: sample sources, writing files, and running the CLI in-process or as a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

import pytest
from click.testing import CliRunner, Result

from trainlint.cli import cli

REPO = Path(__file__).resolve().parents[2]
DEMO_SITE = Path(__file__).resolve().parent / "demo_site"

# One finding each; see demo_rules.py.
AUTOCAST = "import torch\n\nwith torch.cuda.amp.autocast():\n    pass\n"  # TL701 at 3:6, safe fix
AUTOCAST_FIXED = 'import torch\n\nwith torch.autocast("cuda"):\n    pass\n'
PRINT = 'print("hi")\n'  # TL801 at 1:1, unsafe fix
PRINT_FIXED = 'import logging\n\nlogging.info("hi")\n'
EVAL = 'eval("1")\n'  # TL702 at 1:1, no fix
CLEAN = "x = 1\n"


def write(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def invoke(*args: str, stdin: Optional[bytes] = None, env: Optional[Dict[str, str]] = None) -> Result:
    """Run the CLI in-process; exceptions other than SystemExit fail the test."""
    return CliRunner().invoke(cli, list(args), input=stdin, env=env, catch_exceptions=False)


def demo_env() -> Dict[str, str]:
    """Environment for a subprocess whose Python processes use the demo rules (demo_site/sitecustomize.py)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TRAINLINT_OUTPUT_FORMAT")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(DEMO_SITE), env.get("PYTHONPATH")]))
    return env


def console_script() -> str:
    """The installed ``trainlint`` of this interpreter's environment."""
    found = Path(sys.executable).parent / "trainlint"
    return str(found) if found.exists() else (shutil.which("trainlint") or pytest.skip("the trainlint console script is not installed"))


def run_script(*args: str, cwd: Path, stdin: Optional[bytes] = None) -> subprocess.CompletedProcess:
    return subprocess.run([console_script(), *args], cwd=cwd, input=stdin, capture_output=True, env=demo_env(), timeout=120)
