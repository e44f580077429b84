"""``trainlint server``: the Language Server Protocol server (stdio), installed with ``trainlint[server]``.

    server.py         the protocol glue (pygls): documents in, diagnostics and code actions out
    configuration.py  each document's settings, found as the CLI finds a file's
    findings.py       linting one version of a document with the engine
    notebooks.py      a notebook's cells linted as one module, findings and fixes per cell
    fixes.py          the verified text after a fix, "fix all" or an ignore comment
    actions.py        which code actions a range gets, and their edits
    convert.py        findings and rule docs as LSP diagnostics and hover text
    positions.py      1-based code-point locations <-> LSP positions; minimal text edits

Nothing here is imported by the other commands: pygls is an optional dependency.
"""

from __future__ import annotations


def main() -> int:
    """Run the server until the editor ends it; the exit code the CLI returns."""
    from trainlint.arguments import UserError

    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        raise UserError('`trainlint server` needs the server extra: pip install "trainlint[server]"') from None
    from trainlint.server.server import serve

    return serve()
