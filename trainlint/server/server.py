"""The protocol glue: LSP requests and notifications in, the engine's results out (pygls 2.x).

The event loop only schedules work and talks to the editor. Linting, fixing and
reading configuration run on one engine thread (see findings.py for why one),
so the server keeps answering while a lint runs. An edit in a burst of edits
waits a short debounce before its lint, and a newer edit cancels it, whether it
still waits or already runs (the engine stops between the nodes it visits); a
result is published only if its document version is still the newest, so an
editor never shows findings of text it no longer holds. A notebook is one document (its
URI and version) whose findings are published per cell (notebooks.py).
"""

from __future__ import annotations

import asyncio
import os
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from trainlint import __version__
from trainlint.config import ConfigError
from trainlint.engine import LintCancelled, LintResult, RuleSettings
from trainlint.diagnostics import Diagnostic
from trainlint.server import actions, notebooks
from trainlint.server.configuration import WorkspaceConfiguration, is_config_file, overrides_from_options
from trainlint.server.convert import hover_markdown, lsp_diagnostic
from trainlint.server.findings import Findings, lint_document
from trainlint.server.notebooks import Cell
from trainlint.server.positions import UTF16, LineIndex, Position, TextEdit, apply_edits

if TYPE_CHECKING:
    from trainlint.incremental_parse import IncrementalParser

# An edit that follows another within this time waits as long before its lint, so that a burst of
# changes (a paste, an editor's change-then-reindent) is linted once; an edit after a pause is linted
# at once, and edits that arrive while a lint runs are collapsed into the newest anyway.
DEBOUNCE_SECONDS = 0.03
CONFIG_GLOBS = ("**/pyproject.toml", "**/trainlint.yaml", "**/.trainlint.yaml")
PYTHON_SUFFIXES = (".py", ".pyi")
# Notebooks whatever their type (Jupyter, VS Code's interactive window): their Python cells are synced.
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage(language="python")])],
    save=True,
)

# What a lint reads: a text document's text, or a notebook's cells in order.
Source = Union[str, Tuple[Cell, ...]]


class TrainlintServer(LanguageServer):
    """Per-document state: the newest version the editor sent, the findings of the newest linted
    version, and the lint waiting to run."""

    def __init__(self) -> None:
        # Full sync: the editor sends the whole text with each change. pygls applies incremental
        # changes on str.splitlines() lines, which break at form feeds and U+2028 where LSP lines do not.
        super().__init__(
            "trainlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trainlint-engine")
        self.configuration: Optional[WorkspaceConfiguration] = None
        self.versions: Dict[str, int] = {}  # by text document URI, and by notebook URI for a notebook's cells
        # Each notebook cell's (version, text, language), kept here: editors send cell edits as ranges even
        # to a full-sync server, and pygls applies those only under incremental sync.
        self.cell_texts: Dict[str, Tuple[int, str, str]] = {}
        self.findings: Dict[str, Findings] = {}
        # each document's parser (used on the engine thread only): it parses again only what an edit changed
        self.parsers: Dict[str, "IncrementalParser"] = {}
        self.pending: Dict[str, asyncio.Task] = {}  # lints waiting for their debounce, by document
        self.changed_at: Dict[str, float] = {}  # when each document last changed (time.monotonic)
        # the lint under way for each document, by (version, configuration generation)
        self.running: Dict[str, Tuple[Tuple[int, int], asyncio.Future]] = {}
        self.generation = 0  # counts configuration reloads: findings of an older one are never kept
        self.shown: Set[str] = set()  # messages shown to the user, each once until the configuration changes
        self.logged: Set[str] = set()  # rule crashes logged, each once
        self.startup_problems: List[str] = []
        self.resolve_edits = False  # the client asks for a code action's edit only when one is chosen
        self.versioned_edits = False  # the client takes edits tied to a document version
        self.shutdown_requested = False

    # --- documents and their findings -------------------------------------------------------

    def encoding(self) -> str:
        return str(getattr(self.workspace.position_encoding, "value", self.workspace.position_encoding) or UTF16)

    def debounce(self, uri: str) -> float:
        """How long the lint of an edit waits: DEBOUNCE_SECONDS in a burst of edits, else nothing."""
        now = time.monotonic()
        previous, self.changed_at[uri] = self.changed_at.get(uri), now
        return DEBOUNCE_SECONDS if previous is not None and now - previous < DEBOUNCE_SECONDS else 0.0

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the document after ``delay`` seconds, replacing a lint of it that has not started."""
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.pending[uri] = asyncio.ensure_future(self._lint_and_publish(uri, delay))

    async def _lint_and_publish(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        findings = await self.current_findings(uri)
        if findings is None or self.versions.get(uri) != findings.version:
            return
        if findings.notebook is None:
            self.publish(uri, findings.version, self.shown_in(findings.text, findings.result.diagnostics))
            return
        for number, cell in enumerate(findings.notebook.cells, start=1):
            self.publish(cell.uri, cell.version, self.shown_in(cell.text, [d for _, d in notebooks.in_cell(findings, number)]))

    def shown_in(self, text: str, diagnostics: Sequence[Diagnostic]) -> List[types.Diagnostic]:
        """The findings as diagnostics of the document (or cell) whose text is ``text``."""
        index = LineIndex(text, self.encoding())
        return [lsp_diagnostic(d, index) for d in diagnostics]

    def publish(self, uri: str, version: Optional[int], diagnostics: List[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    async def current_findings(self, uri: str) -> Optional[Findings]:
        """The findings for the document's newest version: known, or linted now on the engine thread
        (once: a code action or hover asked for while that version's lint runs waits for the same lint).
        None when the document is closed, its configuration is broken, the lint failed, or a newer
        version arrived meanwhile. A version whose text is the one linted last (an edit undone, a
        notebook change to another cell's outputs) takes its findings: a lint would give the same."""
        version = self.versions.get(uri)
        if version is None:
            return None
        known = self.findings.get(uri)
        if known is not None and known.version == version:
            return known
        source = self.source(uri)
        if known is not None and _linted_from(known, source):
            state = None if known.notebook is None else known.notebook._replace(cells=source)  # the cells' new versions
            known = self.findings[uri] = known._replace(version=version, notebook=state)
            return known
        key = (version, self.generation)
        running = self.running.get(uri)
        if running is None or running[0] != key:
            running = self.running[uri] = (key, asyncio.ensure_future(self._compute(uri, key, source)))
        # shielded: a caller cancelled by a newer edit must not cancel the lint others wait for
        return await asyncio.shield(running[1])

    def source(self, uri: str) -> Source:
        """What the lint of the document reads now."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return self.workspace.get_text_document(uri).source
        cells = []
        for cell in notebook.cells:
            version, text, language = self.cell_texts.get(cell.document, (0, "", ""))
            is_python = cell.kind == types.NotebookCellKind.Code and language == "python"
            cells.append(Cell(cell.document, version, text, is_python))
        return tuple(cells)

    async def _compute(self, uri: str, key: Tuple[int, int], source: Source) -> Optional[Findings]:
        """Lint on the engine thread, and report what went wrong, once per lint. The result is kept only
        if the document and the configuration are still those it was computed for."""
        version, generation = key
        loop = asyncio.get_running_loop()
        try:
            findings = await loop.run_in_executor(self.engine, self._lint, uri, key, source)
        except ConfigError as error:
            self.show_once(f"trainlint: configuration error: {error}", types.MessageType.Error)
            documents = [(uri, version)] if isinstance(source, str) else [(cell.uri, cell.version) for cell in source]
            for document, document_version in documents:
                self.publish(document, document_version, [])
            return None
        except Exception as error:  # noqa: BLE001 - a trainlint bug must cost one lint, not the server
            trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            self.log(f"trainlint: internal error linting {uri}: {trace}")
            return None
        finally:
            if self.running.get(uri, (None,))[0] == key:
                del self.running[uri]
        if findings is None or self.versions.get(uri) != version or self.generation != generation:
            return None
        self.findings[uri] = findings
        for error in findings.result.errors:  # a rule that crashed, or LibCST failing on the file
            if error not in self.logged:
                self.logged.add(error)
                self.log(f"trainlint: {error}")
        return findings

    def _lint(self, uri: str, key: Tuple[int, int], source: Source) -> Optional[Findings]:
        """On the engine thread. None when a newer version (or configuration) arrived while this one
        waited its turn or while it ran: the engine asks between the nodes it visits, so a lint of a
        replaced version stops within one analysis instead of delaying the lint of the newest."""
        version, generation = key

        def superseded() -> bool:  # read from the engine thread: one dictionary look-up, atomic under the GIL
            return self.versions.get(uri) != version or self.generation != generation

        if superseded():
            return None
        try:
            return self._lint_version(uri, version, source, superseded)
        except LintCancelled:
            return None

    def _lint_version(self, uri: str, version: int, source: Source, cancelled: Callable[[], bool]) -> Findings:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        name = uri.rstrip("/").rsplit("/", 1)[-1] or "untitled.py"
        assert self.configuration is not None
        settings = self.configuration.for_document(Path(path) if path else None, name)
        display = _relative(path, self.configuration.root) if path else name
        parser = self.parser(uri)
        if not isinstance(source, str):
            return notebooks.lint_notebook(uri, version, source, display, settings, cancelled, parser)
        if settings is None:  # excluded, as --force-exclude would skip it
            return Findings(uri, version, source, display, RuleSettings(frozenset()), False, LintResult([]))
        return lint_document(uri, version, source, display, settings.rules, settings.unsafe_fixes, cancelled, parser)

    def parser(self, uri: str) -> "IncrementalParser":
        """The document's parser, made at its first lint (on the engine thread: LibCST is imported there)."""
        parser = self.parsers.get(uri)
        if parser is None:
            from trainlint.incremental_parse import IncrementalParser

            parser = self.parsers[uri] = IncrementalParser()
        return parser

    async def located_findings(self, uri: str) -> Optional[Tuple[Findings, LineIndex, List[Tuple[int, Diagnostic]]]]:
        """For a request about a text document or a notebook cell: the findings it belongs to, an index of
        its text, and its findings located in it, each with its index in the findings' result."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        findings = await self.current_findings(uri if notebook is None else notebook.uri)
        if findings is None:
            return None
        if findings.notebook is None:
            return findings, LineIndex(findings.text, self.encoding()), list(enumerate(findings.result.diagnostics))
        found = findings.notebook.cell(uri)
        if found is None:
            return None
        number, cell = found
        return findings, LineIndex(cell.text, self.encoding()), notebooks.in_cell(findings, number)

    def edit_cells(self, cells: Sequence[types.TextDocumentItem]) -> None:
        for cell in cells:
            self.cell_texts[cell.uri] = (cell.version, cell.text, cell.language_id)

    def change_cell(self, cell: types.VersionedTextDocumentIdentifier, changes: Sequence[Any]) -> None:
        """Apply an editor's changes to a cell's text, each to the result of the one before (as LSP orders them)."""
        _, text, language = self.cell_texts.get(cell.uri, (0, "", "python"))
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start, end = change.range.start, change.range.end
                edit = TextEdit(Position(start.line, start.character), Position(end.line, end.character), change.text)
                text = apply_edits(text, [edit], self.encoding())
            else:
                text = change.text
        self.cell_texts[cell.uri] = (cell.version, text, language)

    def forget(self, uri: str, cells: Sequence[str] = ()) -> None:
        """Drop a closed document (a notebook with its cells)."""
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.versions.pop(uri, None)
        self.findings.pop(uri, None)
        self.parsers.pop(uri, None)
        self.changed_at.pop(uri, None)
        for cell in cells:
            self.cell_texts.pop(cell, None)

    async def reload_configuration(self) -> None:
        """A configuration file changed: read every configuration again and lint every open document."""
        assert self.configuration is not None
        self.generation += 1
        self.findings.clear()
        await asyncio.get_running_loop().run_in_executor(self.engine, self.configuration.reload)
        self.shown.clear()
        for uri in list(self.versions):
            self.schedule(uri, 0)

    # --- messages ---------------------------------------------------------------------------

    def show_once(self, message: str, kind: types.MessageType) -> None:
        """Show the message's first line and log all of it (a configuration error's source line and
        caret follow), unless it was shown since the configuration last changed: a broken
        configuration is met again at every keystroke."""
        if message not in self.shown:
            self.shown.add(message)
            self.window_show_message(types.ShowMessageParams(type=kind, message=message.split("\n", 1)[0]))
            self.log(message, kind)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # --- code actions -----------------------------------------------------------------------

    def workspace_edit(self, changes: Sequence[actions.DocumentChange]) -> Optional[types.WorkspaceEdit]:
        """Minimal edits of each document (a notebook's cells) against the version the fix was computed for;
        a client that checks versions refuses it once a document has changed, so a late edit never lands on
        other text. None if any change cannot be expressed in LSP positions."""
        edited = [(change, actions.text_edits(change.before, change.after, self.encoding())) for change in changes]
        if any(edits is None for _, edits in edited):
            return None
        if self.versioned_edits:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=change.uri, version=change.version),
                        edits=edits,
                    )
                    for change, edits in edited
                ]
            )
        return types.WorkspaceEdit(changes={change.uri: edits for change, edits in edited})


def _linted_from(findings: Findings, source: Source) -> bool:
    """Were the findings computed from this very text (these cells' texts)?"""
    if findings.notebook is None:
        return findings.text == source
    return not isinstance(source, str) and notebooks.same_cells(findings, source)


def _relative(path: str, root: Path) -> str:
    """The path as the engine's messages name it: relative to the workspace, as the CLI shows it."""
    try:
        return os.path.relpath(path, root)
    except ValueError:  # another drive, on Windows
        return path


def create_server() -> TrainlintServer:
    """The server with its handlers registered."""
    server = TrainlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: TrainlintServer, params: types.InitializeParams) -> None:
        overrides, ls.startup_problems = overrides_from_options(params.initialization_options)
        root = ls.workspace.root_path or os.getcwd()
        ls.configuration = WorkspaceConfiguration(Path(root), overrides)
        capabilities = params.capabilities
        code_action = capabilities.text_document.code_action if capabilities.text_document else None
        resolve = code_action.resolve_support if code_action else None
        ls.resolve_edits = resolve is not None and "edit" in resolve.properties
        edit = capabilities.workspace.workspace_edit if capabilities.workspace else None
        ls.versioned_edits = bool(edit and edit.document_changes)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: TrainlintServer, params: types.InitializedParams) -> None:
        for problem in ls.startup_problems:
            ls.show_once(f"trainlint: {problem}", types.MessageType.Warning)
        watched = ls.client_capabilities.workspace.did_change_watched_files if ls.client_capabilities.workspace else None
        if watched and watched.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in CONFIG_GLOBS]
            )
            registration = types.Registration(
                id="trainlint-config-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
            )
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TrainlintServer, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        # Only Python is linted: some editors open every file with every server (pyproject.toml too).
        if document.language_id == "python" or document.uri.endswith(PYTHON_SUFFIXES):
            ls.versions[document.uri] = document.version
            ls.schedule(document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TrainlintServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.versions:
            ls.versions[params.text_document.uri] = params.text_document.version
            ls.schedule(params.text_document.uri, ls.debounce(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(ls: TrainlintServer, params: types.DidSaveTextDocumentParams) -> None:
        path = to_fs_path(params.text_document.uri)
        if path and is_config_file(Path(path)):
            await ls.reload_configuration()
        elif params.text_document.uri in ls.versions:
            ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TrainlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)
        ls.publish(params.text_document.uri, None, [])

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open_notebook(ls: TrainlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.edit_cells(params.cell_text_documents)
        ls.versions[params.notebook_document.uri] = params.notebook_document.version
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change_notebook(ls: TrainlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        if uri not in ls.versions:
            return
        cells = params.change.cells
        structure = cells.structure if cells else None
        if structure is not None:
            ls.edit_cells(structure.did_open or [])
            for removed in structure.did_close or []:
                ls.cell_texts.pop(removed.uri, None)
                ls.publish(removed.uri, None, [])
        for content in (cells.text_content if cells else None) or []:
            ls.change_cell(content.document, content.changes)
        ls.versions[uri] = params.notebook_document.version
        ls.schedule(uri, ls.debounce(uri))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def did_save_notebook(ls: TrainlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        if params.notebook_document.uri in ls.versions:
            ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close_notebook(ls: TrainlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        cells = [cell.uri for cell in params.cell_text_documents]
        ls.forget(params.notebook_document.uri, cells)
        for cell in cells:
            ls.publish(cell, None, [])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(ls: TrainlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(is_config_file(Path(to_fs_path(change.uri) or change.uri)) for change in params.changes):
            await ls.reload_configuration()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL_KIND], resolve_provider=True
        ),
    )
    async def code_action(ls: TrainlintServer, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
        located = await ls.located_findings(params.text_document.uri)
        if located is None:
            return None
        offered = actions.offered(*located, params.range, params.context.only)
        if not ls.resolve_edits:
            offered = [await resolve(ls, action) for action in offered]
            offered = [action for action in offered if action.edit is not None]
        return offered or None

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: TrainlintServer, action: types.CodeAction) -> types.CodeAction:
        data: Any = action.data if isinstance(action.data, dict) else {}  # it comes back from the editor
        findings = ls.findings.get(data.get("uri", ""))
        if findings is None or findings.version != data.get("version") or ls.versions.get(findings.uri) != findings.version:
            return action  # the document changed since the action was offered: no edit, nothing applied
        loop = asyncio.get_running_loop()
        changes, problem = await loop.run_in_executor(ls.engine, actions.document_changes, findings, data)
        if problem:
            ls.show_once(f"trainlint: cannot apply \"{action.title}\": {problem}", types.MessageType.Warning)
            return action
        action.edit = ls.workspace_edit(changes)
        if action.edit is None:
            problem = "its edit cannot be expressed in LSP positions"
            ls.show_once(f"trainlint: cannot apply \"{action.title}\": {problem}", types.MessageType.Error)
        return action

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: TrainlintServer, params: types.HoverParams) -> Optional[types.Hover]:
        located = await ls.located_findings(params.text_document.uri)
        if located is None:
            return None
        _, index, diagnostics = located
        here = [d for _, d in diagnostics if actions.covers(index, d, params.position)]
        text = hover_markdown(here)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TrainlintServer, params: Any = None) -> None:
        ls.shutdown_requested = True
        for uri in list(ls.pending):
            ls.forget(uri)
        ls.engine.shutdown(wait=False, cancel_futures=True)

    return server


def serve() -> int:
    """Speak LSP over stdin/stdout until the editor says ``exit``; 0 if it asked to shut down first, else 1."""
    server = create_server()
    server.start_io()
    return 0 if server.shutdown_requested else 1
