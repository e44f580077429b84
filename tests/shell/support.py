"""What the shell tests share: sample sources, writing files, and running the CLI in-process or as a subprocess."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional
from unittest import mock

import pytest

from trainlint.cli import main

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


def notebook(*sources: str, as_lists: bool = True) -> str:
    """nbformat's own layout: one-space indentation, non-ASCII kept, a final newline; a markdown cell first."""
    cells = [{"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Training\n"]}]
    for index, source in enumerate(sources):
        cells.append(
            {
                "cell_type": "code",
                "execution_count": index + 1,
                "id": f"cell-{index}",
                "metadata": {"tags": []},
                "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}],
                "source": source.splitlines(True) if as_lists else source,
            }
        )
    document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Result:
    """What a run of the CLI left: its exit code and what it wrote."""

    exit_code: int
    stdout_bytes: bytes
    stderr_bytes: bytes

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_bytes.decode("utf-8", errors="replace")


def _text_stream(data: bytes = b"") -> io.TextIOWrapper:
    """A text stream with a ``.buffer`` (the CLI writes diffs and fixed code there) that is not a TTY."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def invoke(*args: str, stdin: Optional[bytes] = None, env: Optional[Dict[str, str]] = None) -> Result:
    """Run the CLI in-process; exceptions other than SystemExit fail the test.

    ``env`` is added to os.environ for the run only; patch.dict restores it, added keys removed.
    """
    stdout, stderr = _text_stream(), _text_stream()
    with mock.patch.dict(os.environ, env or {}), mock.patch.multiple(sys, stdin=_text_stream(stdin or b""), stdout=stdout, stderr=stderr):
        exit_code = 0
        try:
            main(list(args))
        except SystemExit as exited:
            exit_code = 0 if exited.code is None else exited.code
        finally:
            stdout.flush()
            stderr.flush()
    return Result(exit_code, stdout.buffer.getvalue(), stderr.buffer.getvalue())


def demo_env() -> Dict[str, str]:
    """Environment for a subprocess whose Python processes use the demo rules (demo_site/sitecustomize.py)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TRAINLINT_OUTPUT_FORMAT", "TRAINLINT_OUTPUT_FILE")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(DEMO_SITE), env.get("PYTHONPATH")]))
    return env


def console_script() -> str:
    """The installed ``trainlint`` of this interpreter's environment."""
    found = Path(sys.executable).parent / "trainlint"
    return str(found) if found.exists() else (shutil.which("trainlint") or pytest.skip("the trainlint console script is not installed"))


def run_script(*args: str, cwd: Path, stdin: Optional[bytes] = None) -> subprocess.CompletedProcess:
    return subprocess.run([console_script(), *args], cwd=cwd, input=stdin, capture_output=True, env=demo_env(), timeout=120)
