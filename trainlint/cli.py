"""The command line: ``trainlint check|fix|rule|rules|clean|completion|server`` (click; options in arguments.py).

Exit codes follow Ruff: 0 clean (or everything fixed), 1 findings (or, for a
dry-run fix, changes), 2 usage, configuration or internal error. A run stopped
by SIGINT or SIGTERM exits 128 + the signal number (130, 143), as a shell
reports a process killed by it; every file is then either as it was or
completely fixed.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Dict, FrozenSet, Iterator, List, NamedTuple, NoReturn, Optional, Sequence, TextIO, Tuple

# As mypy does: a linter allocates many long-lived objects (LibCST's ~200 node classes,
# the trees, the analyses) and little cyclic garbage, so the collector's default pass
# every 700 allocations mostly re-scans live objects. Set before the imports below,
# which allocate the most: ~15 ms (6%) of checking one training script.
gc.set_threshold(200_000, 30, 30)

import click  # noqa: E402 - after the collector's threshold

from trainlint import __version__  # noqa: E402
from trainlint.arguments import COMMAND_CONTEXT, SHELLS, Choice, Command, Group, UserError, check_paths, complete_rules, run_options  # noqa: E402
from trainlint.config import ConfigError  # noqa: E402
from trainlint.diagnostics import Diagnostic  # noqa: E402
from trainlint.registry import split_selectors  # noqa: E402

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
COMPLETE_VARIABLE = "_TRAINLINT_COMPLETE"  # click's shell completion: _TRAINLINT_COMPLETE=bash_source trainlint


def _error(message: str) -> None:
    print(f"trainlint: error: {message}", file=sys.stderr)


def _comma_list(values: Optional[Sequence[str]]) -> Optional[Tuple[str, ...]]:
    return tuple(split_selectors(values)) if values else None


# --- the commands: each returns its exit code -----------------------------------------------------


@click.group(cls=Group, context_settings=COMMAND_CONTEXT, invoke_without_command=True, subcommand_metavar="COMMAND [ARGS]...")
@click.version_option(__version__, "-V", "--version", prog_name="trainlint", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> int:
    """trainlint: find and fix the defects that make training runs fail late."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
    return EXIT_CLEAN


# Each command is built by its builder when it is invoked (see arguments.Group): the ~30
# options of `check` or `fix` cost as much to build again as their neighbours'.


@cli.lazy("check")
def _check() -> click.Command:
    @click.command("check", cls=Command, context_settings=COMMAND_CONTEXT)
    @run_options
    @click.option("--fix", is_flag=True, help="Apply fixes in place (same as `trainlint fix --write`).")
    @click.option("--diff", is_flag=True, help="Print the fixes as a diff and write nothing; exit 1 if there is one.")
    @click.option("--fix-only", is_flag=True, help="Apply fixes in place and report only what was fixed (exit 0).")
    @click.option("--show-fixes", is_flag=True, help="With --fix, list what was fixed, per file and rule.")
    @click.option("--exit-non-zero-on-fix", is_flag=True, help="With --fix, exit 1 when a file was changed.")
    @click.option("-w", "--watch", is_flag=True, help="Check again whenever a Python or configuration file changes (Ctrl-C stops).")
    def check(**options) -> int:
        """Report findings in PATHS (default: the current directory)."""
        args = SimpleNamespace(**options)
        mode = "diff" if args.diff else "write" if args.fix or args.fix_only else "check"
        return _watch(mode, args) if args.watch else _run(mode, args)

    return check


@cli.lazy("fix")
def _fix() -> click.Command:
    @click.command("fix", cls=Command, context_settings=COMMAND_CONTEXT)
    @run_options
    @click.option("--write", is_flag=True, help="Apply the fixes in place (default: print a diff).")
    @click.option("--diff", is_flag=True, help="Print the fixes as a diff (the default).")
    @click.option("--show-fixes", is_flag=True, help="With --write, list what was fixed, per file and rule.")
    @click.option("--exit-non-zero-on-fix", is_flag=True, help="With --write, exit 1 when a file was changed.")
    def fix(**options) -> int:
        """Fix PATHS: print a diff, or apply it with --write."""
        args = SimpleNamespace(fix_only=False, **options)
        return _run("write" if args.write and not args.diff else "diff", args)

    return fix


@cli.lazy("rule")
def _rule() -> click.Command:
    @click.command("rule", cls=Command, context_settings=COMMAND_CONTEXT)
    @click.argument("code_or_name", required=False, shell_complete=complete_rules)
    @click.option("--all", "all_rules", is_flag=True, help="Every rule's documentation.")
    @click.option("--output-format", type=Choice(("text", "json")), default="text", show_default=True, help="Markdown text, or JSON records.")
    def rule(code_or_name: Optional[str], all_rules: bool, output_format: str) -> int:
        """Show a rule's documentation (by code or name), or every rule's with --all."""
        import json

        from trainlint.docs import all_codes, find_code, rule_page, rule_record, unknown_rule_message

        if all_rules == (code_or_name is not None):
            raise click.UsageError("name one rule (CODE_OR_NAME) or give --all")
        if all_rules:
            codes = all_codes()
        else:
            code = find_code(code_or_name)
            if code is None:
                raise UserError(unknown_rule_message(code_or_name))
            codes = [code]
        if output_format == "json":
            records = [rule_record(code) for code in codes]
            click.echo(json.dumps(records if all_rules else records[0], indent=2))
        else:
            click.echo("\n".join(rule_page(code) for code in codes))
        return EXIT_CLEAN

    return rule


@cli.lazy("rules")
def _rules() -> click.Command:
    @click.command("rules", cls=Command, context_settings=COMMAND_CONTEXT)
    def list_rules() -> int:
        """List every rule: code, name, fix availability, summary."""
        from trainlint.docs import rules_listing

        click.echo(rules_listing())
        return EXIT_CLEAN

    return list_rules


@cli.lazy("clean")
def _clean() -> click.Command:
    @click.command("clean", cls=Command, context_settings=COMMAND_CONTEXT)
    @click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=False, path_type=Path))
    def clean(paths: Tuple[Path, ...]) -> int:
        """Remove trainlint's caches (.trainlint_cache) under PATHS (default: the current directory)."""
        from trainlint.cache import remove_caches
        from trainlint.discovery import display_path

        for path in paths or (Path("."),):
            for removed in remove_caches(path):
                click.echo(f"Removing cache at: {display_path(removed)}")
        return EXIT_CLEAN

    return clean


@cli.lazy("server")
def _server() -> click.Command:
    @click.command("server", cls=Command, context_settings=COMMAND_CONTEXT)
    def server() -> int:
        """Run the language server over stdio: findings, fixes and rule docs in the editor (needs `trainlint[server]`)."""
        from trainlint.server import main as serve

        return serve() or EXIT_CLEAN

    return server


@cli.lazy("completion")
def _completion() -> click.Command:
    @click.command("completion", cls=Command, context_settings=COMMAND_CONTEXT)
    @click.argument("shell", type=Choice(SHELLS))
    def completion(shell: str) -> int:
        """Print the shell completion script for SHELL.

        \b
        bash: eval "$(trainlint completion bash)"    (in ~/.bashrc)
        zsh:  eval "$(trainlint completion zsh)"     (in ~/.zshrc)
        fish: trainlint completion fish > ~/.config/fish/completions/trainlint.fish
        """
        from click.shell_completion import get_completion_class

        completer = get_completion_class(shell)
        click.echo(completer(cli, {}, "trainlint", COMPLETE_VARIABLE).source())
        return EXIT_CLEAN

    return completion


class _Totals(NamedTuple):
    """What the files of a run left (the lists and dicts fill up as outcomes arrive).

    Records here are NamedTuples, as in the engine: a dataclass costs ~0.5-1 ms to
    create at import, a noticeable share of the start-up of a one-file check.
    """

    diagnostics: List[Diagnostic]
    applied: Counter
    diffs: List[bytes]
    errors: List[str]
    warnings: List[str]
    fixed_by_file: Dict[str, Counter]  # for --show-fixes


class _ReportOptions(NamedTuple):
    """How the outcome of a run is shown and turned into an exit code."""

    output_format: str
    output_file: Optional[str]
    exit_zero: bool
    statistics: bool
    quiet: bool
    exit_non_zero_on_fix: bool
    color: str = "auto"  # auto | always | never
    fix_only: bool = False
    show_fixes: bool = False
    fixable: Optional[FrozenSet[str]] = None  # None: every rule's fixes


def _run(mode: str, args: SimpleNamespace) -> int:
    """Check or fix: ``args`` holds the options of ``check`` or ``fix`` by name."""
    from trainlint.config import parse_inline_overrides
    from trainlint.settings import Overrides, SettingsResolver

    args.paths = list(args.paths)
    check_paths(args.paths)
    config_file, inline_texts = _config_arguments(args.config, args.isolated)
    report = _ReportOptions(
        args.output_format, args.output_file, args.exit_zero, args.statistics, args.quiet, args.exit_non_zero_on_fix,
        color=args.color, fix_only=args.fix_only, show_fixes=args.show_fixes, fixable=_fixable_codes(args.fixable, args.unfixable),
    )
    _check_statistics_format(report)
    if args.output_file:
        _check_report_file(args.output_file)
    from trainlint.runner import sigterm_interrupts

    try:
        inline, inline_keys = parse_inline_overrides(inline_texts)
        overrides = Overrides(
            select=_comma_list(args.select),
            ignore=_comma_list(args.ignore) or (),
            extend_select=_comma_list(args.extend_select) or (),
            exclude=_comma_list(args.exclude),
            extend_exclude=_comma_list(args.extend_exclude) or (),
            unsafe_fixes=args.unsafe_fixes,
            respect_gitignore=args.respect_gitignore,
            per_file_ignores=args.per_file_ignores or None,
            extend_per_file_ignores=args.extend_per_file_ignores,
            inline=inline,
            inline_keys=inline_keys,
        )
        with sigterm_interrupts():
            resolver = SettingsResolver(overrides, Path.cwd(), config_file, args.isolated)
            if args.show_files or args.show_settings:
                return _show(args.paths or ["."], resolver, args.force_exclude, args.show_settings)
            use_stdin = args.paths == ["-"] or (not args.paths and args.stdin_filename is not None)
            if use_stdin:
                return _run_stdin(mode, resolver, args.stdin_filename, args.force_exclude, report)
            paths = args.paths or ["."]
            totals, unsafe = _run_files(mode, paths, resolver, args.force_exclude, args.jobs, args.no_cache, args.cache_dir, report)
    except ConfigError as error:
        raise UserError(str(error)) from None
    except KeyboardInterrupt as interrupt:
        return _interrupted(mode, interrupt)
    return _report(mode, totals, unsafe, report)


def _watch(mode: str, args: SimpleNamespace) -> int:
    """--watch: the same check (or fix) now and after every change, each run with fresh settings."""
    from trainlint.watch import watch

    if "-" in args.paths or args.stdin_filename is not None:
        raise click.UsageError("--watch checks files, not stdin")
    return watch(lambda: _run(mode, SimpleNamespace(**vars(args))), list(args.paths) or ["."])


def _config_arguments(values: Sequence[Tuple[str, object]], isolated: bool) -> Tuple[Optional[Path], List[str]]:
    """The ``--config`` file (one at most, and not with ``--isolated``) and the inline overrides."""
    files = [value for kind, value in values if kind == "file"]
    if len(files) > 1:
        raise click.UsageError("--config names one configuration file at most (inline `key = value` overrides may be repeated)")
    if files and isolated:
        raise click.UsageError("--config FILE cannot be combined with --isolated, which ignores every configuration file")
    return (files[0] if files else None), [str(value) for kind, value in values if kind == "inline"]


def _fixable_codes(fixable: Sequence[str], unfixable: Sequence[str]) -> Optional[FrozenSet[str]]:
    """The rules whose fixes may be applied or offered; None when neither option was given."""
    from trainlint.registry import ALL_CODES, SelectorError, expand_selectors

    if not fixable and not unfixable:
        return None
    try:
        allowed = expand_selectors(split_selectors(fixable), "`--fixable`") if fixable else ALL_CODES
        return frozenset(allowed - expand_selectors(split_selectors(unfixable), "`--unfixable`"))
    except SelectorError as error:
        raise UserError(str(error)) from None


def _check_statistics_format(report: _ReportOptions) -> None:
    """--statistics prints a table (the human formats) or a JSON list; never text inside SARIF, as Ruff refuses."""
    from trainlint.report import HUMAN_FORMATS

    if report.statistics and report.output_format not in HUMAN_FORMATS + ("json",):
        allowed = ", ".join(HUMAN_FORMATS + ("json",))
        raise click.UsageError(f"--statistics cannot be shown as --output-format {report.output_format} (use {allowed})")


def _show(paths: Sequence[str], resolver, force_exclude: bool, settings: bool) -> int:
    """--show-files: the files a run would check; --show-settings: the settings that apply to each PATH.
    A PATH that cannot be checked (missing, say) is an error, exit 2, as in a check."""
    from trainlint.discovery import discover
    from trainlint.show import files_listing, settings_listing, settings_targets

    if not settings:
        found = discover([Path(path) for path in paths], resolver, force_exclude=force_exclude)
        sys.stdout.write(files_listing(found.files))
        return _show_errors(found.warnings)
    found_under = [(Path(path), discover([Path(path)], resolver, force_exclude=force_exclude)) for path in paths]
    shown = [(given, found.files) for given, found in found_under if found.files or given.exists()]
    targets = settings_targets(shown, resolver.for_path)
    sys.stdout.write("\n".join(settings_listing(target, resolver.for_path(target)) for target in targets))
    return _show_errors([problem for _, found in found_under for problem in found.warnings])


def _show_errors(problems: Sequence[str]) -> int:
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return EXIT_ERROR if problems else EXIT_CLEAN


def _interrupted(mode: str, interrupt: KeyboardInterrupt) -> int:
    """Nothing is reported for a run cut short; say what state the files are in."""
    import signal

    state = ": every file is either as it was or completely fixed" if mode == "write" else ""
    print(f"trainlint: interrupted{state}", file=sys.stderr)
    return 128 + getattr(interrupt, "signum", signal.SIGINT)


def _run_files(mode, paths, resolver, force_exclude, jobs, no_cache, cache_dir, report: _ReportOptions):
    from trainlint.cache import CACHE_DIRNAME, ResultCache
    from trainlint.discovery import discover, display_path
    from trainlint.runner import FileTask, collect, default_jobs, run_tasks

    found = discover([Path(p) for p in paths], resolver, force_exclude=force_exclude)
    totals = _Totals([], Counter(), [], [], [], {})
    totals.errors.extend(found.warnings)
    unsafe = resolver.defaults().unsafe_fixes
    roots = tuple(sorted({os.path.realpath(path) for path in paths}))  # fixes are written only inside these
    tasks = []
    for path in found.files:
        settings = resolver.for_path(path)
        unsafe = settings.unsafe_fixes
        rule_settings = replace(settings.rule_settings_for(path), describe_fixes=_describes_fixes(mode, report.output_format))
        tasks.append(FileTask(display_path(path), rule_settings, mode, settings.unsafe_fixes, roots, report.fixable))
    if not tasks and not found.warnings:
        _warn("No Python files found under the given path(s)", report)
    cache = None if no_cache else ResultCache(cache_dir or _project_root(resolver) / CACHE_DIRNAME)
    with _progress(len(tasks), report.quiet) as advance:
        # closing(): an interrupted run stops its worker pool before it exits
        with contextlib.closing(run_tasks(tasks, jobs or default_jobs(), cache, advance)) as running:
            outcomes = collect(running)
    for outcome in outcomes:
        totals.diagnostics.extend(outcome.diagnostics)
        totals.applied.update(outcome.applied)
        if outcome.applied:
            totals.fixed_by_file[outcome.path] = outcome.applied
        totals.errors.extend(outcome.errors)
        totals.warnings.extend(outcome.warnings)
        if outcome.diff:
            totals.diffs.append(outcome.diff)
    totals.diagnostics.sort(key=lambda d: d.sort_key)
    return totals, unsafe


def _project_root(resolver) -> Path:
    """The folder of the configuration that applies to the working directory (or the working
    directory itself): the cache lives there, as Ruff's does, so that runs from subfolders share it."""
    return resolver.for_path(Path.cwd()).root


class _ProgressLine:
    """``Checking  123/456 files`` on one line of a terminal, redrawn at most ten times a
    second: with a warm cache files finish far faster than a terminal is worth repainting."""

    INTERVAL = 0.1

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream = total, stream
        self.done, self.drawn_at = 0, 0.0

    def advance(self, count: int) -> None:
        self.done += count
        now = time.monotonic()
        if now - self.drawn_at >= self.INTERVAL:
            self.drawn_at = now
            self.draw()

    def draw(self, end: str = "") -> None:
        self.stream.write(f"\rChecking  {self.done:>{len(str(self.total))}}/{self.total} files{end}")
        self.stream.flush()


@contextlib.contextmanager
def _progress(total: int, quiet: bool) -> Iterator[Optional[Callable[[int], None]]]:
    """A progress line on stderr for long runs, only on a terminal and never with --quiet."""
    if quiet or total < 200 or not sys.stderr.isatty() or os.environ.get("CI"):
        yield None
        return
    line = _ProgressLine(total, sys.stderr)
    try:
        yield line.advance
    finally:
        line.draw(end="\n")  # the last count, and what follows (a report, an interruption) on a line of its own


def _run_stdin(mode: str, resolver, stdin_filename: Optional[str], force_exclude: bool, report: _ReportOptions) -> int:
    """Check or fix the code on stdin; with a fix, the fixed code goes to stdout and the report to stderr.

    With ``--force-exclude``, code named after an excluded path is passed through untouched
    and unreported, as Ruff does: editors pipe every buffer with the flag set.
    """
    from trainlint.discovery import is_force_excluded
    from trainlint.runner import FileOutcome, FileTask, process_source

    display = stdin_filename or "-"
    settings = resolver.for_path(Path(display))  # "-" takes the configuration of the working directory
    rule_settings = replace(settings.rule_settings_for(Path(display)), describe_fixes=_describes_fixes(mode, report.output_format))
    task = FileTask(display, rule_settings, mode, settings.unsafe_fixes, fixable=report.fixable)
    data = sys.stdin.buffer.read()
    if force_exclude and stdin_filename is not None and is_force_excluded(Path(stdin_filename), settings):
        outcome, new_data = FileOutcome(display), None
    else:
        outcome, new_data = process_source(display, data, task)
    fixed_by_file = {display: outcome.applied} if outcome.applied else {}
    totals = _Totals(outcome.diagnostics, outcome.applied, [outcome.diff] if outcome.diff else [], outcome.errors, outcome.warnings, fixed_by_file)
    sources = _source_reader({display: data})
    if mode == "write":
        sys.stdout.buffer.write(new_data if new_data is not None else data)
        sys.stdout.flush()
    return _report(mode, totals, settings.unsafe_fixes, report, sources, stream_err=mode == "write")


def _describes_fixes(mode: str, output_format: str) -> bool:
    """Fixes are rendered as text edits only for the reports that show them."""
    return mode == "check" and output_format in ("json", "json-lines", "full")


def _use_color(stream, choice: str) -> bool:
    """--color always/never, else (auto) NO_COLOR, FORCE_COLOR, then whether ``stream`` is a terminal."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def _check_report_file(path: str) -> None:
    """Before the run, so that ``fix --write -o`` into a missing folder fails before it changes a file."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(path):
        problem = "it is a directory"
    elif not os.path.isdir(folder):
        problem = f"the folder {folder} does not exist"
    elif not os.access(path if os.path.exists(path) else folder, os.W_OK):
        problem = "permission denied"
    else:
        return
    raise UserError(f"cannot write the report to {path}: {problem}")


def _open_report(path: str) -> TextIO:
    """The file was checked before the run; opening it can still fail (its folder removed since, say)."""
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write the report to {path}: {error.strerror or error}") from None


def _report(
    mode: str,
    totals: _Totals,
    unsafe: bool,
    options: _ReportOptions,
    sources: Optional[Callable[[str], str]] = None,
    stream_err: bool = False,
) -> int:
    """Print the report and the summary; return the exit code."""
    from trainlint.report import HUMAN_FORMATS, ReportContext, render
    from trainlint.summary import fixes_listing, statistics_table, summary_lines

    output_format, output_file = options.output_format, options.output_file
    diagnostics = _offered_fixes(totals.diagnostics, options.fixable)
    out = _open_report(output_file) if output_file else (sys.stderr if stream_err else sys.stdout)
    try:
        human = output_format in HUMAN_FORMATS
        color = human and (output_file is None or options.color == "always") and _use_color(out, options.color)
        context = ReportContext(unsafe_fixes=unsafe, color=color, cwd=os.getcwd(), sources=sources or _source_reader())
        if mode == "diff":
            _write_bytes(out, b"".join(totals.diffs))
        elif options.statistics:
            out.write(statistics_table(diagnostics, unsafe, output_format))
        elif not options.fix_only:
            out.write(render(output_format, diagnostics, context))
        if human and options.show_fixes and mode == "write":
            out.write(fixes_listing(totals.fixed_by_file))
        if human and not options.quiet:
            # After a diff the summary goes to stderr, so that `trainlint fix > fixes.patch` is a clean patch.
            summary_out = sys.stderr if mode == "diff" and not output_file else out
            summary_mode = "fix-only" if options.fix_only else mode
            for line in summary_lines(summary_mode, diagnostics, totals.applied, bool(totals.diffs), unsafe, len(totals.errors)):
                summary_out.write(line + "\n")
    finally:
        if output_file:
            out.close()
    for warning in totals.warnings:
        _warn(warning, options)
    for error in totals.errors:
        print(f"error: {error}", file=sys.stderr)
    if totals.errors:
        return EXIT_ERROR
    if options.exit_zero:
        return EXIT_CLEAN
    if mode == "diff":
        return EXIT_FINDINGS if totals.diffs else EXIT_CLEAN
    if mode == "write" and options.exit_non_zero_on_fix and sum(totals.applied.values()):
        return EXIT_FINDINGS
    if options.fix_only:
        return EXIT_CLEAN
    return EXIT_FINDINGS if totals.diagnostics else EXIT_CLEAN


def _offered_fixes(diagnostics: List[Diagnostic], fixable: Optional[FrozenSet[str]]) -> List[Diagnostic]:
    """With --fixable/--unfixable, the findings of rules whose fixes are not allowed carry no fix
    (no ``[*]``, ``"fix": null``), as Ruff shows an unfixable rule."""
    if fixable is None:
        return diagnostics
    return [d if d.fix is None or d.code in fixable else d._replace(fix=None) for d in diagnostics]


def _warn(message: str, options: _ReportOptions) -> None:
    """A warning on stderr, unless --quiet: as with Ruff's, it prints the findings and nothing
    else. Errors are still printed, since they explain an exit code of 2."""
    if not options.quiet:
        print(f"warning: {message}", file=sys.stderr)


def _write_bytes(out, data: bytes) -> None:
    """Write bytes that are not necessarily UTF-8 (diffs of files in other encodings) to a text stream."""
    out.flush()
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(data.decode("utf-8", errors="replace"))
        return
    buffer.write(data)
    buffer.flush()


def _source_reader(known: Optional[Dict[str, bytes]] = None) -> Callable[[str], str]:
    """Source text by path for the ``full`` format; ``known`` holds what is not on disk (stdin)."""
    from trainlint.source import DecodeError, decode

    def read(path: str) -> str:
        try:
            if known and path in known:
                return decode(known[path]).text
            with open(path, "rb") as handle:
                return decode(handle.read()).text
        except (OSError, DecodeError):
            return ""

    return read


def main(argv: Optional[Sequence[str]] = None) -> None:
    """The console script (``argv`` defaults to ``sys.argv[1:]``); always ends in ``sys.exit``.

    Usage errors are click's (its usage line, the problem, exit 2). An unexpected
    exception is a trainlint bug: exit 2, never 1 (findings).
    """
    try:
        code = cli.main(args=argv, prog_name="trainlint", complete_var=COMPLETE_VARIABLE, standalone_mode=False)
    except click.ClickException as error:  # a usage error, a UserError, or click's own (a file it could not open)
        error.show()
        code = EXIT_ERROR
    except click.Abort:  # Ctrl-C while click was still reading the command line
        code = 130
    except BrokenPipeError:
        code = _reader_went_away()
    except Exception:  # noqa: BLE001 - usage errors are click exceptions, handled above
        import traceback

        traceback.print_exc()
        _error("internal error (the traceback above); this is a trainlint bug, please report it")
        code = EXIT_ERROR
    sys.exit(code)


def console_main() -> NoReturn:
    """The ``trainlint`` executable and ``python -m trainlint``: :func:`main`, then leave at once.

    A normal interpreter exit tears down every module and object one by one (LibCST's
    ~200 classes, the parsed tree and its analyses), ~7-10% of a one-file check's CPU
    for a process that ends anyway (issue 19). Nothing of trainlint's waits for that:
    the worker pool is shut down and the cache and report file are written before
    :func:`main` returns, so once the standard streams are flushed the process exits
    with ``os._exit``. In-process callers (tests, editors) call :func:`main`, which
    exits normally.
    """
    try:
        main()
    except SystemExit as exited:  # main() always ends in sys.exit(int), click's completion too
        code = exited.code if isinstance(exited.code, int) else EXIT_ERROR
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _reader_went_away()
    except OSError as error:  # a full disk: the report is incomplete
        _error(f"cannot write the report: {error.strerror or error}")
        code = EXIT_ERROR
    except ValueError:  # stdout was closed
        pass
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


def _reader_went_away() -> int:
    """`trainlint check | head` closed the pipe: stop quietly with 1, as click did, and point
    stdout at /dev/null so that the interpreter's final flush does not fail a second time."""
    with contextlib.suppress(OSError, ValueError):  # a stdout without a file descriptor (in-process tests)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_FINDINGS
