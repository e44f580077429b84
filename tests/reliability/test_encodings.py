"""Every encoding and newline style Python accepts is checked and fixed without changing anything else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.shell.support import invoke

pytestmark = pytest.mark.usefixtures("project", "demo_registry")

CALL, FIXED_CALL = "torch.cuda.amp.autocast()", 'torch.autocast("cuda")'

FIXABLE = {
    "utf-8 with non-ASCII text": ('# Grüße\nimport torch\nname = "naïve ü"\nwith torch.cuda.amp.autocast():\n    pass\n', "utf-8"),
    "utf-8 with a BOM": ("\ufeffimport torch\nwith torch.cuda.amp.autocast():\n    pass\n", "utf-8"),
    "PEP 263 latin-1": ("# -*- coding: latin-1 -*-\nimport torch\nname = 'café'\nwith torch.cuda.amp.autocast():\n    pass\n", "latin-1"),
    "PEP 263 cp1252, vim style": ("# vim: set fileencoding=cp1252 :\nimport torch\ncost = '5 €'\nwith torch.cuda.amp.autocast():\n    pass\n", "cp1252"),
    "CRLF": ("import torch\r\n\r\nwith torch.cuda.amp.autocast():\r\n    pass\r\n", "utf-8"),
    "CR only, no final newline": ("import torch\r\rwith torch.cuda.amp.autocast():\r    pass", "utf-8"),
    "mixed newlines": ("import torch\r\nx = 1\rwith torch.cuda.amp.autocast():\n    pass\r\ny = 2\n", "utf-8"),
    "tabs": ("import torch\nif True:\n\twith torch.cuda.amp.autocast():\n\t\tpass\n", "utf-8"),
    "no trailing newline": ("import torch\nwith torch.cuda.amp.autocast(): pass", "utf-8"),
    "form feed": ("import torch\n\x0c\nwith torch.cuda.amp.autocast():\n    pass\n", "utf-8"),
}

NOTHING_TO_FIX = {
    "empty": b"",
    "only a BOM": b"\xef\xbb\xbf",
    "only blank lines": b"\n\r\n  \n\t\n",
    "only comments, naming the trigger": b"# torch.cuda.amp.autocast()\r\n# eval(print('x'))\r\n",
    "only a coding line": b"# -*- coding: latin-1 -*-\n# caf\xe9\n",
    "comments without a trailing newline": b"# a\n# torch.cuda.amp.autocast()",
}


@pytest.mark.parametrize("name", FIXABLE)
def test_fixable_file_is_found_and_fixed_byte_for_byte(project: Path, name: str) -> None:
    text, encoding = FIXABLE[name]
    data = text.encode(encoding)
    (project / "m.py").write_bytes(data)
    row, line = next((i, line) for i, line in enumerate(data.splitlines(), 1) if CALL.encode() in line)
    column = line.decode(encoding).index(CALL) + 1
    checked = invoke("check", "--no-cache", "-q")
    assert (checked.exit_code, checked.stdout) == (1, f"m.py:{row}:{column}: TL701 [*] `torch.cuda.amp.autocast` is deprecated\n")
    assert invoke("fix", "--write", "--no-cache").exit_code == 0
    assert (project / "m.py").read_bytes() == text.replace(CALL, FIXED_CALL).encode(encoding)
    assert invoke("check", "--no-cache").exit_code == 0


@pytest.mark.parametrize("name", NOTHING_TO_FIX)
def test_file_without_findings_is_checked_and_never_rewritten(project: Path, name: str) -> None:
    path = project / "m.py"
    path.write_bytes(NOTHING_TO_FIX[name])
    os.utime(path, ns=(10**9, 10**9))
    before = path.stat()
    assert (invoke("check", "--no-cache").exit_code, invoke("fix", "--write", "--no-cache").exit_code) == (0, 0)
    after = path.stat()
    assert path.read_bytes() == NOTHING_TO_FIX[name]
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_fix_the_declared_encoding_cannot_hold_is_not_written(project: Path, broken_registry: None) -> None:
    source = "# -*- coding: latin-1 -*-\nname = 'café'\nto_ellipsis()\n".encode("latin-1")
    (project / "m.py").write_bytes(source)
    result = invoke("fix", "--write", "--no-cache")
    assert result.exit_code == 2
    assert (project / "m.py").read_bytes() == source
    assert result.stdout.startswith("m.py:3:1: TL796 [*] `to_ellipsis` found\n")
    assert "error: m.py: the fixed code cannot be written as iso-8859-1 (ordinal not in range(256)); left as it is" in result.stderr
