"""A tree of many fixable files, and real `trainlint` processes (with the demo rules) working on it."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

from tests.shell.support import console_script, demo_env

# Thirty TL701 findings per file, so that fixing one takes a few tens of milliseconds.
ORIGINAL = "import torch\n" + "".join(f"\nwith torch.cuda.amp.autocast():  # block {i}\n    x{i} = {i}\n" for i in range(30))
FIXED = ORIGINAL.replace("torch.cuda.amp.autocast()", 'torch.autocast("cuda")')


def fixable_tree(root: Path, count: int) -> List[Path]:
    paths = [root / f"pkg{i % 10}" / f"m{i:03d}.py" for i in range(count)]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ORIGINAL)
    return paths


def states(paths: List[Path]) -> Dict[str, int]:
    """How many files are original, fixed, or anything else (which must never happen)."""
    counts = {"original": 0, "fixed": 0, "other": 0}
    for path in paths:
        text = path.read_text()
        counts["original" if text == ORIGINAL else "fixed" if text == FIXED else "other"] += 1
    return counts


def leftovers(root: Path) -> List[Path]:
    """Temporary files of interrupted writes."""
    return sorted(root.rglob("*.trainlint-tmp"))


def start(root: Path, *args: str) -> subprocess.Popen:
    """The console script in its own process group, as a shell starts a foreground job.

    Its output goes to files, not pipes: a full pipe nobody reads would block it.
    """
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    process = subprocess.Popen([console_script(), *args], cwd=root, env=demo_env(), stdout=out, stderr=err, start_new_session=True)
    process.outputs = (out, err)  # type: ignore[attr-defined]
    return process


def finish(process: subprocess.Popen, timeout: float) -> Tuple[int, str, str]:
    """Wait for the process; its exit status, stdout and stderr."""
    returncode = process.wait(timeout=timeout)
    texts = []
    for handle in process.outputs:  # type: ignore[attr-defined]
        handle.seek(0)
        texts.append(handle.read().decode())
        handle.close()
    return returncode, texts[0], texts[1]
