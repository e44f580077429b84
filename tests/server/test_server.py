"""``trainlint server`` driven as an editor drives it: a subprocess speaking LSP over stdio."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from tests.server.client import EDITOR_CAPABILITIES, TIMEOUT, LspClient, apply_text_edits
from tests.server.conftest import Start
from tests.test_fixtures import FIXTURE_TARGET_TORCH, SETTINGS as FIXTURE_SETTINGS
from trainlint.engine import LintCancelled, RuleSettings, lint_source
from trainlint.registry import ALL_CODES

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "fixtures" / "TL201_cuda_amp_on_other_device" / "bad_seed_training_loop.py"

# The README's example: TL101, TL201 twice and TL401.
EXAMPLE = """import torch
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
X = torch.randn(512, 8).to(device)
y = torch.randn(512, 1).to(device)
loader = DataLoader(TensorDataset(X, y), batch_size=32, pin_memory=True)
model = torch.nn.Linear(8, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = GradScaler()

total_loss = 0.0
for xb, yb in loader:
    with autocast():
        loss = torch.nn.functional.mse_loss(model(xb), yb)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    total_loss += loss
print(f"mean loss {total_loss / len(loader):.4f}")
"""

# TL101 and nothing TL401 could look at (no training).
PINNED_GPU_TENSORS = """import torch
from torch.utils.data import DataLoader, TensorDataset

X = torch.randn(8, 2).to("cuda")
loader = DataLoader(TensorDataset(X), pin_memory=True)
"""


def _codes(diagnostics: List[Dict]) -> List[str]:
    return [d["code"] for d in diagnostics]


def _start(diagnostic: Dict) -> tuple:
    return (diagnostic["range"]["start"]["line"], diagnostic["range"]["start"]["character"])


def _edits(action: Dict, uri: str, version: int) -> List[Dict]:
    """The action's edits, checked to be tied to the document version they were computed for."""
    (change,) = action["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": uri, "version": version}
    return change["edits"]


def _actions(client: LspClient, uri: str, at: Dict, only: Optional[List[str]] = None) -> List[Dict]:
    context: Dict = {"diagnostics": []}
    if only is not None:
        context["only"] = only
    return client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": at, "context": context}) or []


def test_an_editor_session_diagnostics_quick_fix_edit_fix_all_and_shutdown(start: Start, tmp_path: Path) -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    path = tmp_path / "train.py"
    path.write_text(text, encoding="utf-8")
    # the project runs the torch the fixture's snapshot was written for
    (tmp_path / "pyproject.toml").write_text(f'[tool.trainlint]\ntarget-torch = "{FIXTURE_TARGET_TORCH}"\n', encoding="utf-8")
    uri = path.as_uri()
    client = start()
    client.open(uri, text)
    diagnostics = client.diagnostics(uri, version=1)

    # the same findings as the engine, at 0-based lines and characters
    expected = lint_source(text, "train.py", FIXTURE_SETTINGS).diagnostics
    assert [(d["code"], _start(d), d["message"]) for d in diagnostics] == [
        (e.code, (e.location.row - 1, e.location.column - 1), e.message) for e in expected
    ]
    assert _codes(diagnostics) == ["TL201", "TL201"]
    first = diagnostics[0]
    assert first["range"]["end"] == {"line": expected[0].end_location.row - 1, "character": expected[0].end_location.column - 1}
    assert first["severity"] == 2 and first["source"] == "trainlint"
    assert first["codeDescription"]["href"] == (REPO / "trainlint" / "rule_docs" / "TL201.md").as_uri()  # shipped in the package

    # the finding's quick fix first, then its ignore comment, then "fix all"; edits come on resolve
    actions = _actions(client, uri, first["range"])
    assert [(a["title"].split(":")[0], a["kind"]) for a in actions] == [
        ("Fix TL201", "quickfix"),
        ("Add `# trainlint", "quickfix"),
        ("trainlint", "source.fixAll.trainlint"),
    ]
    assert actions[0]["isPreferred"] is True and "edit" not in actions[0]
    fixed = client.request("codeAction/resolve", actions[0])
    text2 = apply_text_edits(text, _edits(fixed, uri, 1))
    assert "torch.amp.GradScaler(" in text2 and "torch.cuda.amp.GradScaler" not in text2
    client.change(uri, text2, version=2)
    remaining = client.diagnostics(uri, version=2)
    assert [d["message"] for d in remaining] == [diagnostics[1]["message"]]

    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": remaining[0]["range"]["start"]})
    assert hover["contents"]["kind"] == "markdown"
    assert "# cuda-amp-on-other-device (TL201)" in hover["contents"]["value"]
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}) is None

    (fix_all,) = _actions(client, uri, remaining[0]["range"], only=["source.fixAll"])
    text3 = apply_text_edits(text2, _edits(client.request("codeAction/resolve", fix_all), uri, 2))
    assert text3 == FIXTURE.with_suffix(".fixed.py").read_text(encoding="utf-8")  # what `trainlint fix --write` writes
    client.change(uri, text3, version=3)
    assert client.diagnostics(uri, version=3) == []

    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []
    assert client.close() == 0


def test_an_ignore_comment_suppresses_the_finding(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start()
    client.open(uri, EXAMPLE)
    diagnostics = client.diagnostics(uri, version=1)
    assert sorted(_codes(diagnostics)) == ["TL101", "TL201", "TL201", "TL401"]
    tl401 = next(d for d in diagnostics if d["code"] == "TL401")
    ignore = next(a for a in _actions(client, uri, tl401["range"], only=["quickfix"]) if a["title"].startswith("Add"))
    assert ignore["title"] == "Add `# trainlint: ignore[TL401]`"
    text = apply_text_edits(EXAMPLE, _edits(client.request("codeAction/resolve", ignore), uri, 1))
    assert "    total_loss += loss  # trainlint: ignore[TL401]\n" in text
    client.change(uri, text, version=2)
    assert sorted(_codes(client.diagnostics(uri, version=2))) == ["TL101", "TL201", "TL201"]


def test_an_unsafe_fix_is_labelled_and_offered_after_the_safe_ones(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start()
    client.open(uri, EXAMPLE)
    diagnostics = client.diagnostics(uri, version=1)
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 30, "character": 0}}
    fixes = [a for a in _actions(client, uri, whole, only=["quickfix"]) if a["title"].startswith("Fix")]
    assert len(fixes) == sum(1 for d in diagnostics if d["data"]["fix"] != "none")
    labels = [a["title"].endswith("(unsafe)") for a in fixes]
    assert labels == sorted(labels)  # safe ones first
    assert all(a["isPreferred"] is not label for a, label in zip(fixes, labels))


def test_a_document_that_does_not_parse_is_one_TL001_and_recovers(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "broken.py").as_uri()
    client = start()
    client.open(uri, "import torch\n\ndef f(:\n    pass\n")
    (error,) = client.diagnostics(uri, version=1)
    assert error["code"] == "TL001" and error["severity"] == 1
    assert error["range"] == {"start": {"line": 2, "character": 6}, "end": {"line": 2, "character": 7}}
    assert _actions(client, uri, error["range"]) == []
    client.change(uri, "import torch\n\ndef f():\n    pass\n", version=2)
    assert client.diagnostics(uri, version=2) == []
    assert client.close() == 0


def test_malformed_input_leaves_the_server_up(start: Start, tmp_path: Path) -> None:
    client = start()
    nulls = (tmp_path / "nulls.py").as_uri()
    client.open(nulls, "import torch\x00\nx = 1\n")
    (error,) = client.diagnostics(nulls, version=1)
    assert error["code"] == "TL001" and "null bytes" in error["message"]

    client.send_raw(b"{this is not json")  # a broken message
    client.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.py"}})  # missing fields
    bogus = {"title": "Fix", "data": {"uri": nulls, "version": 1, "action": "fix", "index": 99}}
    assert "edit" not in client.request("codeAction/resolve", bogus)

    # an unsaved buffer (not a file) is linted with the workspace's settings
    untitled = "untitled:Untitled-1"
    client.open(untitled, EXAMPLE)
    assert len(client.diagnostics(untitled, version=1)) == 4
    assert client.close() == 0


def test_a_configuration_error_is_shown_once_and_reloaded_when_fixed(start: Start, tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.trainlint]\nselekt = ["TL2"]\n', encoding="utf-8")
    uri = (tmp_path / "train.py").as_uri()
    client = start()
    client.open(uri, EXAMPLE)
    assert client.diagnostics(uri, version=1) == []
    message = client.wait_notification("window/showMessage")
    assert message["type"] == 1 and "unknown key `selekt`" in message["message"] and "pyproject.toml:2:1" in message["message"]
    log = client.wait_notification("window/logMessage", lambda p: "selekt" in p["message"])
    assert "\n2 | selekt" in log["message"]  # the whole error, with the line and its caret, goes to the log
    client.change(uri, EXAMPLE + "\n", version=2)
    client.change(uri, EXAMPLE + "\n\n", version=3)
    assert client.diagnostics(uri, version=3) == []
    assert not [n for n in client.notifications if n["method"] == "window/showMessage"]  # once, not per edit

    config.write_text('[tool.trainlint]\nselect = ["TL2"]\n', encoding="utf-8")
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": config.as_uri(), "type": 2}]})
    assert _codes(client.diagnostics(uri, version=3)) == ["TL201", "TL201"]

    config.write_text('[tool.trainlint]\nselect = ["TL4"]\n', encoding="utf-8")
    client.notify("textDocument/didSave", {"textDocument": {"uri": config.as_uri()}})
    assert _codes(client.diagnostics(uri, version=3)) == ["TL401"]
    assert any(r["method"] == "client/registerCapability" for r in client.server_requests)
    assert client.close() == 0


def test_each_document_takes_its_nearest_configuration_and_excluded_files_are_skipped(start: Start, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.trainlint]\nignore = ["TL101"]\n', encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "trainlint.yaml").write_text("select: [TL4]\n", encoding="utf-8")
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    client = start()
    top, sub, library = (p.as_uri() for p in (tmp_path / "train.py", tmp_path / "sub" / "train.py", tmp_path / ".venv" / "lib" / "x.py"))
    for uri in (top, sub, library):
        client.open(uri, EXAMPLE)
    assert sorted(_codes(client.diagnostics(top, version=1))) == ["TL201", "TL201", "TL401"]
    assert _codes(client.diagnostics(sub, version=1)) == ["TL401"]
    assert client.diagnostics(library, version=1) == []


def test_initialization_options_override_the_selection(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start(options={"select": ["TL4", "TL101"], "ignore": ["TL101"], "colour": "blue"})
    client.open(uri, EXAMPLE)
    assert _codes(client.diagnostics(uri, version=1)) == ["TL401"]
    warning = client.wait_notification("window/showMessage")
    assert warning["type"] == 2 and "unknown initialization option `colour`" in warning["message"]


def test_a_bad_selector_in_the_initialization_options_is_an_error_shown_once(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start(options={"select": ["TL9"]})
    client.open(uri, EXAMPLE)
    assert client.diagnostics(uri, version=1) == []
    assert "TL9" in client.wait_notification("window/showMessage", lambda p: p["type"] == 1)["message"]
    assert client.close() == 0


def test_a_crashing_rule_is_a_log_message_and_the_other_rules_still_report(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start(crash_site=True)
    client.open(uri, EXAMPLE)
    assert sorted(_codes(client.diagnostics(uri, version=1))) == ["TL101", "TL201", "TL201"]
    log = client.wait_notification("window/logMessage", lambda p: "TL401" in p["message"])
    assert log["type"] == 1 and "crashed" in log["message"] and "deliberate crash" in log["message"]
    client.change(uri, EXAMPLE + "\n", version=2)
    assert len(client.diagnostics(uri, version=2)) == 3
    assert client.close() == 0


def test_a_version_whose_text_was_linted_already_is_not_linted_again(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start(crash_site=True)  # each lint logs one numbered crash of TL401
    edited = EXAMPLE.replace("lr=0.1", "lr=0.2")
    client.open(uri, EXAMPLE)
    for version, text in enumerate([EXAMPLE, edited, EXAMPLE, EXAMPLE], start=1):
        if version > 1:
            client.change(uri, text, version)
        diagnostics = client.diagnostics(uri, version=version)
        assert len(diagnostics) == 3
    # a lint logs its crash before it publishes: versions 1 to 3 were linted, version 4 was not
    crashes = [n["params"]["message"] for n in client.history if "deliberate crash" in n["params"].get("message", "")]
    assert [message.split("deliberate crash ")[1].split()[0] for message in crashes] == ["1", "2", "3"]
    # version 4 took the findings of version 3, and its code actions edit version 4
    fix = next(a for a in _actions(client, uri, diagnostics[0]["range"]) if a["title"].startswith("Fix"))
    assert fix["data"]["version"] == 4
    _edits(client.request("codeAction/resolve", fix), uri, 4)
    assert client.close() == 0


def test_a_burst_of_edits_publishes_nothing_older_than_the_newest_version(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start()
    client.open(uri, EXAMPLE)
    client.diagnostics(uri, version=1)
    lines = EXAMPLE.splitlines(keepends=True)
    for version in range(2, 12):  # each edit drops one more line from the end
        client.change(uri, "".join(lines[: len(lines) - version]), version=version)
    final = client.diagnostics(uri, version=11)
    client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    published = [n["params"]["version"] for n in client.history if n["method"] == "textDocument/publishDiagnostics"]
    assert published == sorted(published) and published[-1] == 11  # nothing older after anything newer
    newest = "".join(lines[: len(lines) - 11])
    assert _codes(final) == [d.code for d in lint_source(newest, "train.py", RuleSettings(ALL_CODES)).diagnostics]
    assert client.close() == 0


def test_the_engine_stops_a_lint_when_asked_and_a_callback_that_never_fires_changes_nothing() -> None:
    settings = RuleSettings(ALL_CODES)
    asked: List[int] = []

    def cancelled_at_the_fourth_question() -> bool:
        asked.append(1)
        return len(asked) == 4

    with pytest.raises(LintCancelled):
        lint_source(EXAMPLE, "train.py", settings, cancelled=cancelled_at_the_fourth_question)
    assert len(asked) == 4  # it stopped at once
    expected = lint_source(EXAMPLE, "train.py", settings).diagnostics
    assert lint_source(EXAMPLE, "train.py", settings, cancelled=lambda: False).diagnostics == expected


def _wait_for_stderr(client: LspClient, text: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while text not in client.stderr():
        if time.monotonic() > deadline:
            raise AssertionError(f"the server never wrote {text!r}; its stderr:\n{client.stderr()}")
        time.sleep(0.01)


def test_a_lint_under_way_stops_for_a_newer_version_and_requests_are_answered_meanwhile(start: Start, tmp_path: Path) -> None:
    # TL401 sleeps at each call it visits: a lint of EXAMPLE takes seconds, and says on stderr how far it got
    client = start(slow_site=True)
    other = (tmp_path / "other.py").as_uri()
    client.open(other, PINNED_GPU_TENSORS)  # TL401 has nothing to look at there: linted at once
    (pinned,) = client.diagnostics(other, version=1)
    uri = (tmp_path / "train.py").as_uri()
    client.open(uri, EXAMPLE)
    _wait_for_stderr(client, "slow TL401 visit: lint 1")
    edited = EXAMPLE.replace("lr=0.1", "lr=0.2")
    client.change(uri, edited, version=2)

    # while the lints of train.py run, requests about another document are answered
    hover = client.request("textDocument/hover", {"textDocument": {"uri": other}, "position": pinned["range"]["start"]})
    assert "TL101" in hover["contents"]["value"]
    assert _actions(client, other, pinned["range"])[0]["title"].startswith("Fix TL101")
    assert "slow TL401 visit: lint 2" not in client.stderr()  # answered before the newest version's lint was far along

    diagnostics = client.diagnostics(uri, version=2)
    assert _codes(diagnostics) == [d.code for d in lint_source(edited, "train.py", RuleSettings(ALL_CODES)).diagnostics]
    published = [n["params"]["version"] for n in client.history if n["params"].get("uri") == uri]
    assert published == [2]  # nothing for the replaced version
    visits = [line.rsplit(" ", 1)[1] for line in client.stderr().splitlines() if line.startswith("slow TL401 visit")]
    calls = visits.count("2")
    assert calls == 23  # the newest version's lint visited every call of the file
    assert 1 <= visits.count("1") < calls  # the replaced version's lint stopped when the edit arrived
    assert client.close() == 0


def test_an_editor_without_resolve_gets_the_edits_with_the_actions(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    capabilities = {"workspace": {}, "textDocument": {"codeAction": {}}}  # no resolve, no versioned edits
    client = start(capabilities=capabilities)
    client.open(uri, EXAMPLE)
    diagnostics = client.diagnostics(uri, version=1)
    actions = _actions(client, uri, diagnostics[0]["range"])
    assert actions and all(uri in a["edit"]["changes"] for a in actions)
    assert EDITOR_CAPABILITIES["textDocument"]["codeAction"]["resolveSupport"]  # the other tests do resolve


def test_without_the_server_extra_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from trainlint.cli import main

    monkeypatch.setitem(sys.modules, "pygls", None)  # what an install without the extra has
    with pytest.raises(SystemExit) as exited:
        main(["server"])
    assert exited.value.code == 2
    assert 'pip install "trainlint[server]"' in capsys.readouterr().err


def test_an_action_offered_for_an_older_version_resolves_to_no_edit(start: Start, tmp_path: Path) -> None:
    uri = (tmp_path / "train.py").as_uri()
    client = start()
    client.open(uri, EXAMPLE)
    diagnostics = client.diagnostics(uri, version=1)
    offered = _actions(client, uri, diagnostics[0]["range"])
    client.change(uri, "# a new first line\n" + EXAMPLE, version=2)
    client.diagnostics(uri, version=2)
    assert all("edit" not in client.request("codeAction/resolve", action) for action in offered)


def test_exit_without_shutdown_ends_the_server_with_1(start: Start) -> None:
    client = start()
    client.notify("exit")
    assert client.process.wait(timeout=30) == 1


@pytest.mark.parametrize("encoding, offset", [("utf-16", 2), ("utf-8", 4), ("utf-32", 1)])
def test_characters_are_counted_in_the_negotiated_position_encoding(
    start: Start, tmp_path: Path, encoding: str, offset: int
) -> None:
    uri = (tmp_path / "train.py").as_uri()
    capabilities = dict(EDITOR_CAPABILITIES, general={"positionEncodings": [encoding]})
    client = start(capabilities=capabilities)
    text = EXAMPLE.replace("scaler = GradScaler()", 'tag = "😋"; scaler = GradScaler()')
    client.open(uri, text)
    scaler = next(d for d in client.diagnostics(uri, version=1) if d["range"]["start"]["line"] == 10)
    # the emoji is one code point: 2 UTF-16 units, 4 UTF-8 bytes, 1 UTF-32 unit
    assert scaler["range"]["start"] == {"line": 10, "character": len('tag = "😋"; scaler = ') - 1 + offset}


def test_only_python_documents_are_linted(start: Start, tmp_path: Path) -> None:
    client = start()
    toml = (tmp_path / "pyproject.toml").as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": toml, "languageId": "toml", "version": 1, "text": "[tool]\n"}})
    uri = (tmp_path / "train.py").as_uri()
    client.open(uri, EXAMPLE)
    client.diagnostics(uri, version=1)
    assert not [n for n in client.history if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == toml]


def test_the_console_script_starts_the_server_as_the_editor_snippets_do(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("trainlint")
    if not script.exists():
        pytest.skip("no `trainlint` console script beside this interpreter")
    client = LspClient(tmp_path, command=[str(script), "server"])
    try:
        assert client.initialize(tmp_path)["serverInfo"]["name"] == "trainlint"
        uri = (tmp_path / "train.py").as_uri()
        client.open(uri, EXAMPLE)
        assert len(client.diagnostics(uri, version=1)) == 4
        assert client.close() == 0
    finally:
        client.kill()
