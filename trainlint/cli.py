"""The command line: ``trainlint check|fix|rule|rules``.

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
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

# As mypy does: a linter allocates many long-lived objects (LibCST's ~200 node classes,
# the trees, the analyses) and little cyclic garbage, so the collector's default pass
# every 700 allocations mostly re-scans live objects. Set before the imports below,
# which allocate the most: ~15 ms (6%) of checking one training script.
gc.set_threshold(200_000, 30, 30)

import click  # noqa: E402

from trainlint import __version__
from trainlint.config import ConfigError
from trainlint.diagnostics import Diagnostic
from trainlint.registry import split_selectors
from trainlint.report import FORMATS

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UserError(click.ClickException):
    """A problem the user can fix (bad config, bad selector); exit code 2."""

    exit_code = EXIT_ERROR

    def show(self, file=None) -> None:
        click.echo(f"trainlint: error: {self.message}", err=True)


def _comma_list(values: Tuple[str, ...]) -> Optional[Tuple[str, ...]]:
    return tuple(split_selectors(values)) if values else None


def common_options(command: Callable) -> Callable:
    options = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=str)),
        click.option("--select", multiple=True, metavar="CODES", help="Rules to enable (codes, prefixes like TL2, names, ALL); replaces the configured selection."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Rules to disable."),
        click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to enable on top of the selection."),
        click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Include fixes that may change behaviour."),
        click.option("--output-format", type=click.Choice(FORMATS), envvar="TRAINLINT_OUTPUT_FORMAT", default="text", show_default=True),
        click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True), help="Write the report to this file."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding."),
        click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary."),
        click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Use this configuration file for every path."),
        click.option("--exclude", multiple=True, metavar="GLOBS", help="Replace the exclude patterns."),
        click.option("--extend-exclude", multiple=True, metavar="GLOBS", help="Add exclude patterns."),
        click.option("--force-exclude", is_flag=True, help="Apply exclusions to paths named on the command line too (for pre-commit)."),
        click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files matched by .gitignore (default: on)."),
        click.option("--stdin-filename", metavar="PATH", help="The path of the code read from stdin (for config and messages)."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: CPU count)."),
        click.option("--no-cache", is_flag=True, envvar="TRAINLINT_NO_CACHE", help="Neither read nor write the cache."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), envvar="TRAINLINT_CACHE_DIR", help="Where to keep the cache."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainlint")
def cli() -> None:
    """trainlint: find and fix the defects that make training runs fail late."""


@cli.command()
@common_options
@click.option("--fix", is_flag=True, help="Apply fixes in place (same as `trainlint fix --write`).")
@click.option("--diff", is_flag=True, help="Print the fixes as a diff and write nothing; exit 1 if there is one.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="With --fix, exit 1 when a file was changed.")
def check(fix: bool, diff: bool, exit_non_zero_on_fix: bool, **options) -> None:
    """Report findings in PATHS (default: the current directory)."""
    mode = "diff" if diff else "write" if fix else "check"
    sys.exit(_run(mode, exit_non_zero_on_fix=exit_non_zero_on_fix, **options))


@cli.command()
@common_options
@click.option("--write", is_flag=True, help="Apply the fixes in place (default: print a diff).")
@click.option("--diff", is_flag=True, help="Print the fixes as a diff (the default).")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="With --write, exit 1 when a file was changed.")
def fix(write: bool, diff: bool, exit_non_zero_on_fix: bool, **options) -> None:
    """Fix PATHS: print a diff, or apply it with --write."""
    mode = "write" if write and not diff else "diff"
    sys.exit(_run(mode, exit_non_zero_on_fix=exit_non_zero_on_fix, **options))


@cli.command()
@click.argument("code_or_name")
def rule(code_or_name: str) -> None:
    """Show a rule's documentation."""
    from trainlint.docs import rule_markdown, unknown_rule_message

    text = rule_markdown(code_or_name)
    if text is None:
        raise UserError(unknown_rule_message(code_or_name))
    click.echo(text)


@cli.command(name="rules")
def list_rules() -> None:
    """List every rule: code, name, fix availability, summary."""
    from trainlint.docs import rules_table

    click.echo(rules_table())


@dataclass
class _Totals:
    diagnostics: List[Diagnostic]
    applied: Counter
    diffs: List[bytes]
    errors: List[str]
    warnings: List[str]


@dataclass(frozen=True)
class _ReportOptions:
    """How the outcome of a run is shown and turned into an exit code."""

    output_format: str
    output_file: Optional[str]
    exit_zero: bool
    statistics: bool
    quiet: bool
    exit_non_zero_on_fix: bool


def _run(
    mode: str,
    paths: Sequence[str],
    select,
    ignore,
    extend_select,
    unsafe_fixes: Optional[bool],
    output_format: str,
    output_file: Optional[str],
    exit_zero: bool,
    statistics: bool,
    quiet: bool,
    config_file: Optional[Path],
    exclude,
    extend_exclude,
    force_exclude: bool,
    respect_gitignore: Optional[bool],
    stdin_filename: Optional[str],
    jobs: Optional[int],
    no_cache: bool,
    cache_dir: Optional[Path],
    exit_non_zero_on_fix: bool,
) -> int:
    from trainlint.settings import Overrides, SettingsResolver

    overrides = Overrides(
        select=_comma_list(select),
        ignore=_comma_list(ignore) or (),
        extend_select=_comma_list(extend_select) or (),
        exclude=_comma_list(exclude),
        extend_exclude=_comma_list(extend_exclude) or (),
        unsafe_fixes=unsafe_fixes,
        respect_gitignore=respect_gitignore,
    )
    report = _ReportOptions(output_format, output_file, exit_zero, statistics, quiet, exit_non_zero_on_fix)
    from trainlint.runner import sigterm_interrupts

    try:
        with sigterm_interrupts():
            resolver = SettingsResolver(overrides, Path.cwd(), config_file)
            use_stdin = list(paths) == ["-"] or (not paths and stdin_filename is not None)
            if use_stdin:
                return _run_stdin(mode, resolver, stdin_filename, force_exclude, report)
            totals, unsafe = _run_files(mode, paths or ["."], resolver, force_exclude, jobs, no_cache, cache_dir, report)
    except ConfigError as error:
        raise UserError(str(error)) from None
    except KeyboardInterrupt as interrupt:
        return _interrupted(mode, interrupt)
    return _report(mode, totals, unsafe, report)


def _interrupted(mode: str, interrupt: KeyboardInterrupt) -> int:
    """Nothing is reported for a run cut short; say what state the files are in."""
    import signal

    state = ": every file is either as it was or completely fixed" if mode == "write" else ""
    click.echo(f"trainlint: interrupted{state}", err=True)
    return 128 + getattr(interrupt, "signum", signal.SIGINT)


def _run_files(mode, paths, resolver, force_exclude, jobs, no_cache, cache_dir, report: _ReportOptions):
    from trainlint.cache import CACHE_DIRNAME, ResultCache
    from trainlint.discovery import discover
    from trainlint.runner import FileTask, collect, default_jobs, run_tasks

    found = discover([Path(p) for p in paths], resolver, force_exclude=force_exclude)
    totals = _Totals([], Counter(), [], [], [])
    totals.errors.extend(found.warnings)
    unsafe = resolver.defaults().unsafe_fixes
    roots = tuple(sorted({os.path.realpath(path) for path in paths}))  # fixes are written only inside these
    tasks = []
    for path in found.files:
        settings = resolver.for_path(path)
        unsafe = settings.unsafe_fixes
        rule_settings = replace(settings.rule_settings_for(path), describe_fixes=_describes_fixes(mode, report.output_format))
        tasks.append(FileTask(_display_path(path), rule_settings, mode, settings.unsafe_fixes, roots))
    if not tasks and not found.warnings:
        click.echo("warning: No Python files found under the given path(s)", err=True)
    cache = None if no_cache else ResultCache(cache_dir or _project_root(resolver) / CACHE_DIRNAME)
    with _progress(len(tasks), report.quiet) as advance:
        # closing(): an interrupted run stops its worker pool before it exits
        with contextlib.closing(run_tasks(tasks, jobs or default_jobs(), cache, advance)) as running:
            outcomes = collect(running)
    for outcome in outcomes:
        totals.diagnostics.extend(outcome.diagnostics)
        totals.applied.update(outcome.applied)
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


def _display_path(path: Path) -> str:
    """Paths under the working directory are shown (and put in diff headers) relative to it, as Ruff does."""
    if path.is_absolute():
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            pass
    return str(path)


@contextlib.contextmanager
def _progress(total: int, quiet: bool):
    """A progress bar on stderr for long runs, only on a terminal and never with --quiet."""
    if quiet or total < 200 or not sys.stderr.isatty() or os.environ.get("CI"):
        yield None
        return
    with click.progressbar(length=total, label="Checking", file=sys.stderr, show_pos=True) as bar:
        yield bar.update


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
    task = FileTask(display, rule_settings, mode, settings.unsafe_fixes)
    data = sys.stdin.buffer.read()
    if force_exclude and stdin_filename is not None and is_force_excluded(Path(stdin_filename), settings):
        outcome, new_data = FileOutcome(display), None
    else:
        outcome, new_data = process_source(display, data, task)
    totals = _Totals(outcome.diagnostics, outcome.applied, [outcome.diff] if outcome.diff else [], outcome.errors, [])
    sources = _source_reader({display: data})
    if mode == "write":
        sys.stdout.buffer.write(new_data if new_data is not None else data)
        sys.stdout.flush()
    return _report(mode, totals, settings.unsafe_fixes, report, sources, stream_err=mode == "write")


def _describes_fixes(mode: str, output_format: str) -> bool:
    """Fixes are rendered as text edits only for the reports that show them."""
    return mode == "check" and output_format in ("json", "full")


def _use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


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
    from trainlint.summary import statistics_table, summary_lines

    output_format, output_file = options.output_format, options.output_file
    out = open(output_file, "w", encoding="utf-8") if output_file else (sys.stderr if stream_err else sys.stdout)
    try:
        color = output_file is None and output_format in HUMAN_FORMATS and _use_color(out)
        context = ReportContext(unsafe_fixes=unsafe, color=color, cwd=os.getcwd(), sources=sources or _source_reader())
        if mode == "diff":
            _write_bytes(out, b"".join(totals.diffs))
        elif options.statistics:
            out.write(statistics_table(totals.diagnostics, unsafe, output_format))
        else:
            out.write(render(output_format, totals.diagnostics, context))
        if output_format in HUMAN_FORMATS and not options.quiet:
            # After a diff the summary goes to stderr, so that `trainlint fix > fixes.patch` is a clean patch.
            summary_out = sys.stderr if mode == "diff" and not output_file else out
            for line in summary_lines(mode, totals.diagnostics, totals.applied, bool(totals.diffs), unsafe):
                summary_out.write(line + "\n")
    finally:
        if output_file:
            out.close()
    for warning in totals.warnings:
        click.echo(f"warning: {warning}", err=True)
    for error in totals.errors:
        click.echo(f"error: {error}", err=True)
    if totals.errors:
        return EXIT_ERROR
    if options.exit_zero:
        return EXIT_CLEAN
    if mode == "diff":
        return EXIT_FINDINGS if totals.diffs else EXIT_CLEAN
    if mode == "write" and options.exit_non_zero_on_fix and sum(totals.applied.values()):
        return EXIT_FINDINGS
    return EXIT_FINDINGS if totals.diagnostics else EXIT_CLEAN


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


def main() -> None:
    """The console script. An unexpected exception is a trainlint bug: exit 2, never 1 (findings)."""
    try:
        cli(prog_name="trainlint")
    except Exception:  # noqa: BLE001 - click handles usage errors and exits itself
        import traceback

        traceback.print_exc()
        click.echo("trainlint: error: internal error (the traceback above); this is a trainlint bug, please report it", err=True)
        sys.exit(EXIT_ERROR)
