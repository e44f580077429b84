"""A small LSP client for the tests: starts ``python -m trainlint server`` and speaks JSON-RPC to it
over stdio (Content-Length framing), as an editor does.

Every wait is bounded: a server that hangs or dies fails the test with what it
wrote to stderr, instead of hanging CI.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

TIMEOUT = 30.0  # seconds; generous for a loaded 2-core machine, and still a bound


class ServerFailed(AssertionError):
    """The server did not answer in time, or answered with an error."""


class LspClient:
    def __init__(self, cwd: Path, env: Optional[Dict[str, str]] = None, command: Optional[List[str]] = None) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "trainlint", "server"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.messages: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self.notifications: List[Dict[str, Any]] = []  # notifications received and not yet waited for
        self.history: List[Dict[str, Any]] = []  # every notification received, in order
        self.server_requests: List[Dict[str, Any]] = []
        self.initialize_result: Dict[str, Any] = {}
        self._next_id = 0
        self._stderr: List[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self._stderr.extend(self.process.stderr), daemon=True).start()

    # --- the wire ---------------------------------------------------------------------------

    def send(self, message: Dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    def send_raw(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            self.messages.put(json.loads(stream.read(length)))

    # --- requests and notifications ---------------------------------------------------------

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> Any:
        self._next_id += 1
        request_id = self._next_id
        self.send({"id": request_id, "method": method, "params": params})
        reply = self._wait(lambda m: m.get("id") == request_id and "method" not in m, timeout, f"the reply to {method}")
        if "error" in reply:
            raise ServerFailed(f"{method} failed: {reply['error']}")
        return reply.get("result")

    def wait_notification(self, method: str, predicate: Callable[[Any], bool] = lambda p: True, timeout: float = TIMEOUT) -> Any:
        """The first notification of ``method`` (received before or after this call) whose params satisfy
        ``predicate``; it is consumed, so the next call waits for a later one."""
        for position, seen in enumerate(self.notifications):
            if seen["method"] == method and predicate(seen["params"]):
                del self.notifications[position]
                return seen["params"]
        found = self._wait(lambda m: m.get("method") == method and "id" not in m and predicate(m.get("params")), timeout, method)
        self.notifications.remove(found)
        return found["params"]

    def diagnostics(self, uri: str, version: Optional[int] = None, timeout: float = TIMEOUT) -> List[Dict[str, Any]]:
        """The next diagnostics published for the document (for ``version``, when given)."""
        params = self.wait_notification(
            "textDocument/publishDiagnostics",
            lambda p: p["uri"] == uri and (version is None or p.get("version") == version),
            timeout,
        )
        return params["diagnostics"]

    def _wait(self, wanted: Callable[[Dict[str, Any]], bool], timeout: float, what: str) -> Dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                message = self.messages.get(timeout=max(left, 0.001))
            except queue.Empty:
                raise ServerFailed(f"no {what} within {timeout:.0f} s; server stderr:\n{self.stderr()}") from None
            if "method" in message and "id" in message:  # a request from the server (registerCapability)
                self.server_requests.append(message)
                self.send({"id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)
                self.history.append(message)
            if wanted(message):
                return message

    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    # --- the session ------------------------------------------------------------------------

    def initialize(self, root: Path, options: Any = None, capabilities: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": capabilities if capabilities is not None else EDITOR_CAPABILITIES,
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        self.initialize_result = result
        return result

    def open(self, uri: str, text: str, version: int = 1) -> None:
        document = {"uri": uri, "languageId": "python", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})

    def change(self, uri: str, text: str, version: int) -> None:
        document = {"uri": uri, "version": version}
        self.notify("textDocument/didChange", {"textDocument": document, "contentChanges": [{"text": text}]})

    def open_notebook(self, uri: str, cells: List[Tuple[str, int, str]], version: int = 1) -> None:
        """Open a notebook of ``(cell URI, kind, text)`` cells (kind 1: markup, 2: code), as VS Code does:
        every cell in the notebook, the text of the Python ones."""
        notebook = {
            "uri": uri,
            "notebookType": "jupyter-notebook",
            "version": version,
            "cells": [{"kind": kind, "document": cell} for cell, kind, _ in cells],
        }
        documents = [{"uri": cell, "languageId": "python", "version": 1, "text": text} for cell, kind, text in cells if kind == 2]
        self.notify("notebookDocument/didOpen", {"notebookDocument": notebook, "cellTextDocuments": documents})

    def change_cell(self, uri: str, version: int, cell: str, cell_version: int, changes: List[Dict[str, Any]]) -> None:
        """Change one cell's text: ``changes`` as LSP content changes (ranges, or a whole text)."""
        change = {"cells": {"textContent": [{"document": {"uri": cell, "version": cell_version}, "changes": changes}]}}
        self.notify("notebookDocument/didChange", {"notebookDocument": {"uri": uri, "version": version}, "change": change})

    def close(self, timeout: float = TIMEOUT) -> int:
        """shutdown, exit, and the server's exit code."""
        self.request("shutdown")
        self.notify("exit")
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ServerFailed(f"the server did not exit within {timeout:.0f} s after `exit`") from None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


# What VS Code announces, as far as the server looks at it.
EDITOR_CAPABILITIES: Dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {
        "workspaceEdit": {"documentChanges": True},
        "didChangeWatchedFiles": {"dynamicRegistration": True},
    },
    "textDocument": {
        "synchronization": {"didSave": True},
        "publishDiagnostics": {"versionSupport": True},
        "codeAction": {"resolveSupport": {"properties": ["edit"]}, "dataSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
    "notebookDocument": {"synchronization": {}},
}


def apply_text_edits(text: str, edits: List[Dict[str, Any]]) -> str:
    """Apply LSP text edits (JSON, UTF-16 positions) to a text, as an editor does."""
    from trainlint.server.positions import Position, TextEdit, apply_edits

    def position(where: Dict[str, int]) -> Position:
        return Position(where["line"], where["character"])

    return apply_edits(text, [TextEdit(position(e["range"]["start"]), position(e["range"]["end"]), e["newText"]) for e in edits])
