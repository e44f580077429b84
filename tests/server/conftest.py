"""The servers the tests start: each in the test's temporary folder (the workspace root), killed at the end."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional

import pytest

from tests.server.client import LspClient

CRASH_SITE = Path(__file__).resolve().parent / "crash_site"

Start = Callable[..., LspClient]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    """Start servers in ``tmp_path`` (the workspace root); each is killed at the end if still running."""
    clients: List[LspClient] = []

    def started(
        options: object = None, crash_site: bool = False, capabilities: Optional[Dict] = None, slow_site: bool = False
    ) -> LspClient:
        """``crash_site``: TL401 crashes on every call it visits; ``slow_site``: it sleeps at each
        (see crash_site/sitecustomize.py)."""
        env = None
        if crash_site or slow_site:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(CRASH_SITE), os.environ.get("PYTHONPATH")])))
            env["TRAINLINT_TEST_TL401"] = "slow" if slow_site else "crash"
        client = LspClient(tmp_path, env=env)
        clients.append(client)
        client.initialize(tmp_path, options, capabilities)
        return client

    yield started
    for client in clients:
        client.kill()
