"""A fixed file differs from the original only inside the fixed statements (and the import a fix adds)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.shell.support import invoke

pytestmark = pytest.mark.usefixtures("project", "demo_registry")

# Everything a formatter would touch: comments, blank runs, both quotes, trailing blanks, `;`, `\` continuations,
# odd spacing, CRLF and CR lines among LF ones. Only the two marked statements may change.
MESSY = (
    b'#!/usr/bin/env python\n'
    b"'''Module docstring, single-quoted.'''   \n"
    b"from __future__ import annotations  # keep me\r\n"
    b"import torch\n"
    b"\n\n\n"
    b"x = {'a':1,  \"b\" :2}   ;  y = x\r"
    b"total = 1 + \\\n"
    b"    2\t\n"
    b"with  torch.cuda.amp.autocast() :   # fixed here\r\n"
    b"\tpass\n"
    b"def f( a ,b ):\n"
    b"    # a comment   \n"
    b"    return a+b\n"
    b"print( 'hi' , f(1,2) )  # and here\n"
    b"z = [\n"
    b"    1,  # one\n"
    b"]\n"
)
FIXED_LINES = {
    b"with  torch.cuda.amp.autocast() :   # fixed here\r\n": b'with  torch.autocast("cuda") :   # fixed here\r\n',
    b"print( 'hi' , f(1,2) )  # and here\n": b"logging.info( 'hi' , f(1,2) )  # and here\n",
}


def test_only_the_fixed_statements_and_the_added_import_change(project: Path) -> None:
    """Where the import goes (and its blank line) is the fix's business (fixes.py); that nothing else moves is checked here."""
    (project / "m.py").write_bytes(MESSY)
    result = invoke("fix", "--write", "--unsafe-fixes", "--no-cache")
    assert (result.exit_code, result.stdout) == (0, "Fixed 2 findings.\n")
    before, after = MESSY.splitlines(keepends=True), (project / "m.py").read_bytes().splitlines(keepends=True)
    replaced, inserted = {}, []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if tag == "replace":
            assert i2 - i1 == j2 - j1, (before[i1:i2], after[j1:j2])
            replaced.update(zip(before[i1:i2], after[j1:j2]))
        elif tag == "insert":
            inserted.extend(after[j1:j2])
        else:
            assert tag == "equal", (tag, before[i1:i2])
    assert replaced == FIXED_LINES
    assert b"import logging\n" in inserted and set(inserted) <= {b"import logging\n", b"\n"}
