"""The command line as click reads it: the group, the option sets, value types and environment variables.

Only the console script (``trainlint.cli``) imports this module, so click stays off the
import path of the library (engine, runner, reports). Environment variables are
declared on the options that read them; click reads them only when the command that
has the option runs, so a bad variable is an error for that command alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any, Callable, Dict, List, NoReturn, Optional, Sequence, Tuple

import click

from trainlint.report import DEFAULT_FORMAT, FORMATS

COMMAND_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
SHELLS = ("bash", "zsh", "fish")


class UserError(click.ClickException):
    """A problem the user can fix (bad config, bad selector, bad report file); exit code 2."""

    exit_code = 2

    def show(self, file: Optional[IO[str]] = None) -> None:
        click.echo(f"trainlint: error: {self.message}", err=True)


class Group(click.Group):
    """trainlint's command group, whose commands are built only when asked for.

    A one-file check is mostly start-up, and building every command's ~30 options costs
    as much again as building the one that runs (issue 18: the click CLI may cost
    click's import and no more), so commands are registered as builders (:meth:`lazy`)
    and built on first use: the invoked command for a run, all of them for the group's
    help and for completing a command name. A command's return value is its exit code,
    and commands are listed in the order they were added (click sorts them), so
    ``check`` comes first.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.builders: Dict[str, Callable[[], click.Command]] = {}

    def lazy(self, name: str) -> Callable[[Callable[[], click.Command]], Callable[[], click.Command]]:
        """Register the decorated function as the builder of the command ``name``."""

        def register(builder: Callable[[], click.Command]) -> Callable[[], click.Command]:
            self.builders[name] = builder
            return builder

        return register

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name not in self.commands and cmd_name in self.builders:
            self.add_command(self.builders[cmd_name](), cmd_name)
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> List[str]:
        return list(self.builders)

    def resolve_command(self, ctx: click.Context, args: List[str]) -> Tuple[Optional[str], Optional[click.Command], List[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as error:
            # click suggests from the commands built so far; the names of all of them are known
            raise click.exceptions.NoSuchCommand(error.command_name, possibilities=self.list_commands(ctx), ctx=ctx) from None

    def invoke(self, ctx: click.Context) -> NoReturn:
        # click exits 0 after a command in standalone mode, whatever it returned (CliRunner runs that way)
        ctx.exit(super().invoke(ctx))


class Command(click.Command):
    """A command whose did-you-mean for a mistyped option names the closest option, as Ruff's tip does:
    click lists every close match in alphabetical order (``--selct``: '--extend-select', '--help', '--select')."""

    def parse_args(self, ctx: click.Context, args: List[str]) -> List[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            if not error.possibilities or len(error.possibilities) == 1:
                raise
            raise click.NoSuchOption(error.option_name, possibilities=error.possibilities[:1], ctx=ctx) from None


class Choice(click.Choice):
    """click's choice with a did-you-mean for a mistyped value (``--output-format sarf``)."""

    def get_invalid_choice_message(self, value: Any, ctx: Optional[click.Context]) -> str:
        import difflib

        message = super().get_invalid_choice_message(value, ctx)
        close = difflib.get_close_matches(str(value), [str(choice) for choice in self.choices], n=1)
        return f"{message} Did you mean {close[0]!r}?" if close else message


class ConfigArgument(click.ParamType):
    """``--config``: a configuration file, or an inline ``KEY = VALUE`` override in TOML, as Ruff takes it.

    A value naming an existing file is that file; anything else with ``=`` in it is an
    override (``--config 'select = ["TL2"]'``), checked later as a file's keys are.
    Returns ``("file", Path)`` or ``("inline", text)``.
    """

    name = "FILE | KEY=VALUE"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> Tuple[str, Any]:
        if isinstance(value, tuple):
            return value
        text = str(value)
        if "=" in text and not Path(text).is_file():
            return ("inline", text)
        return ("file", click.Path(exists=True, dir_okay=False, path_type=Path).convert(text, param, ctx))


class PerFileIgnore(click.ParamType):
    """``PATTERN:CODES`` (codes comma-separated), as ``--per-file-ignores`` takes it in Ruff."""

    name = "PATTERN:CODES"

    def convert(self, value: Any, param: Optional[click.Parameter], ctx: Optional[click.Context]) -> Tuple[str, Tuple[str, ...]]:
        if isinstance(value, tuple):
            return value
        pattern, _, codes = str(value).rpartition(":")
        selectors = tuple(code.strip() for code in codes.split(",") if code.strip())
        if not pattern or not selectors:
            self.fail(f"{value!r} is not PATTERN:CODES (for example 'tests/*:TL401')", param, ctx)
        return (pattern, selectors)


def complete_rules(ctx: click.Context, param: click.Parameter, incomplete: str) -> List[Any]:
    """Shell completion of rule selectors: codes (the rule's name as help) and names, ``ALL`` where a
    selector may be given; in a comma-separated list, the last item (``TL101,TL2<TAB>``)."""
    from click.shell_completion import CompletionItem

    from trainlint.registry import ENTRIES_BY_CODE

    done, comma, last = incomplete.rpartition(",")
    head = done + comma
    candidates = [(code, entry.name) for code, entry in sorted(ENTRIES_BY_CODE.items())]
    candidates += [(entry.name, code) for code, entry in sorted(ENTRIES_BY_CODE.items())]
    if param.name != "code_or_name":
        candidates.append(("ALL", "every rule"))
    return [CompletionItem(head + value, help=help) for value, help in candidates if value.lower().startswith(last.lower())]


def run_options(command: Callable) -> Callable:
    """The options ``check`` and ``fix`` share."""
    options = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=str, allow_dash=True)),
        click.option("--select", multiple=True, metavar="CODES", shell_complete=complete_rules, help="Rules to enable (codes, prefixes like TL2, names, ALL); replaces the configured selection."),
        click.option("--ignore", multiple=True, metavar="CODES", shell_complete=complete_rules, help="Rules to disable."),
        click.option("--extend-select", multiple=True, metavar="CODES", shell_complete=complete_rules, help="Rules to enable on top of the selection."),
        click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Include fixes that may change behaviour."),
        click.option("--fixable", multiple=True, metavar="CODES", shell_complete=complete_rules, help="Only these rules' fixes are applied or offered (default: all)."),
        click.option("--unfixable", multiple=True, metavar="CODES", shell_complete=complete_rules, help="These rules' fixes are never applied or offered."),
        click.option("--per-file-ignores", multiple=True, type=PerFileIgnore(), help="Rules to ignore in matching files; replaces the configured ones (repeatable)."),
        click.option("--extend-per-file-ignores", multiple=True, type=PerFileIgnore(), help="Like --per-file-ignores, on top of the configured ones."),
        click.option("--output-format", type=Choice(FORMATS), envvar="TRAINLINT_OUTPUT_FORMAT", show_envvar=True, default=DEFAULT_FORMAT, show_default=True, help="Report format (text is the old name of concise)."),
        click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True, path_type=str), envvar="TRAINLINT_OUTPUT_FILE", show_envvar=True, help="Write the report to this file."),
        click.option("--color", type=Choice(("auto", "always", "never")), default="auto", show_default=True, help="Colour the human formats (auto: on a terminal, unless NO_COLOR is set)."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding (concise, full or json)."),
        click.option("--show-files", is_flag=True, help="List the files that would be checked, and exit."),
        click.option("--show-settings", is_flag=True, help="Show the settings that apply to each PATH (one block per configuration file under a folder), and exit."),
        click.option("-q", "--quiet", is_flag=True, help="Print findings and errors only: no summary, no warnings."),
        click.option("--config", "config", multiple=True, type=ConfigArgument(), help="A configuration file for every path, or a `KEY = VALUE` override (repeatable)."),
        click.option("--isolated", is_flag=True, help="Ignore every configuration file (inline --config overrides still apply)."),
        click.option("--exclude", multiple=True, metavar="GLOBS", help="Replace the exclude patterns."),
        click.option("--extend-exclude", multiple=True, metavar="GLOBS", help="Add exclude patterns."),
        click.option("--force-exclude", is_flag=True, help="Apply exclusions to paths named on the command line too (for pre-commit)."),
        click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files matched by .gitignore (default: on)."),
        click.option("--stdin-filename", metavar="PATH", help="The path of the code read from stdin (for config and messages)."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N", help="Worker processes (default: CPU count)."),
        click.option("-n", "--no-cache", is_flag=True, envvar="TRAINLINT_NO_CACHE", show_envvar=True, help="Neither read nor write the cache."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), envvar="TRAINLINT_CACHE_DIR", show_envvar=True, metavar="DIRECTORY", help="Where to keep the cache."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def check_paths(paths: Sequence[str]) -> None:
    """`-` is stdin only as the sole path: beside others it would be looked up as a file named `-`."""
    if len(paths) > 1 and "-" in paths:
        raise click.UsageError(
            "`-` (read the code from stdin) cannot be combined with other paths (a file of that name is `./-`)",
            click.get_current_context(silent=True),
        )
