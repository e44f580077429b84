"""Configuration: ``[tool.trainlint]`` in pyproject.toml, ``trainlint.yaml`` or ``.trainlint.yaml``.

The nearest configuration file above a checked path applies to it, so a
monorepo can carry one per project. Every key and value is validated when the
file is loaded; a mistake is a :class:`ConfigError` naming the file, the key
and what is allowed, never a traceback. Its first line is
``path:line:col: message``, followed by the line with carets under the key or
value, as Ruff shows it; where the place cannot be found, ``path: message``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

CONFIG_FILENAMES = (".trainlint.yaml", "trainlint.yaml", "pyproject.toml")  # first found in a directory wins

KNOWN_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "include",
    "extend-include",
    "unsafe-fixes",
    "respect-gitignore",
    "target-torch",
    "options",
)

KeyPath = Tuple[Any, ...]  # keys from the trainlint table down (an int is a list index); () is the table itself


class ConfigError(ValueError):
    """A configuration mistake, phrased for the user."""


NO_OPTIONS: Mapping[str, Mapping[str, Any]] = MappingProxyType({})  # a shared default that cannot be changed


class Config(NamedTuple):
    """One configuration file's validated content (every key optional).

    A NamedTuple, as the project's other immutable records: a frozen dataclass costs
    ~0.5-1 ms to create at import, on the start-up path of every check.
    """

    path: Optional[Path] = None
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    per_file_ignores: Optional[Tuple[Tuple[str, Tuple[str, ...]], ...]] = None  # None: not set, the default applies
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    include: Optional[Tuple[str, ...]] = None
    extend_include: Tuple[str, ...] = ()
    unsafe_fixes: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    target_torch: Optional[str] = None  # "2.3"; None: read from the project's dependency on torch
    options: Mapping[str, Mapping[str, Any]] = NO_OPTIONS  # by rule code

    @property
    def root(self) -> Optional[Path]:
        return self.path.parent if self.path else None


def tomllib_module():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on old Pythons only
        import tomli as tomllib
    return tomllib


def _read_table(path: Path) -> Optional[Dict[str, Any]]:
    """The raw trainlint table of a file, or None when a pyproject.toml has none."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise _config_error(path, f"cannot read the configuration file: {error.strerror}") from None
    if path.suffix == ".toml":
        tomllib = tomllib_module()
        try:
            document = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise _config_error(path, f"invalid TOML: {error}") from None
        tool = document.get("tool", {})
        table = tool.get("trainlint") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise _config_error(path, "[tool.trainlint] must be a table", (), at_value=True)
        return table
    if path.suffix not in (".yaml", ".yml"):
        raise _config_error(path, "unsupported configuration file (use pyproject.toml, trainlint.yaml or .trainlint.yaml)")
    import yaml

    try:
        document = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise _config_error(path, f"invalid YAML: not UTF-8 ({error.reason})") from None
    except yaml.YAMLError as error:
        raise _config_error(path, f"invalid YAML: {_yaml_problem(error)}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise _config_error(path, "the top level must be a mapping of settings", (), at_value=True)
    return document


def _yaml_problem(error) -> str:
    """PyYAML's multi-line message as one line: what is wrong and where."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None)
    if mark is None or problem is None:
        return " ".join(str(error).split())
    return f"{problem} (at line {mark.line + 1}, column {mark.column + 1})"


def find_config_file(directory: Path) -> Optional[Path]:
    """The configuration file that lives in ``directory`` itself, if any."""
    for name in CONFIG_FILENAMES:
        candidate = directory / name
        if candidate.is_file() and (name != "pyproject.toml" or _read_table(candidate) is not None):
            return candidate
    return None


def load_config(path: Path) -> Config:
    table = _read_table(path)
    if table is None:
        raise _config_error(path, "no [tool.trainlint] table")
    return parse_config(table, path)


def _did_you_mean(word: str, choices) -> str:
    import difflib  # only for a bad configuration: not on every run's start-up path

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean `{close[0]}`?" if close else ""


def parse_config(table: Mapping[str, Any], path: Optional[Path]) -> Config:
    """Validate the raw table read from ``path``: selectors too, so that an unknown one is shown where it is written."""
    section = "[tool.trainlint]" if path and path.name == "pyproject.toml" else "the top level"
    for key in table:
        if key not in KNOWN_KEYS:
            valid = f"{_did_you_mean(str(key), KNOWN_KEYS)} (valid keys: {', '.join(KNOWN_KEYS)})"
            raise _config_error(path, f"unknown key `{key}` in {section}{valid}", (key,))

    def strings(key: str) -> Optional[Tuple[str, ...]]:
        if key not in table:
            return None
        value = _string_list(table[key])
        if value is None:
            raise _config_error(path, f"`{key}` must be a list of strings, got {table[key]!r}", (key,), at_value=True)
        return value

    def selectors(key: str) -> Optional[Tuple[str, ...]]:
        value = strings(key)
        _check_selectors(path, (key,), table.get(key, []), f"`{key}`")
        return value

    def boolean(key: str) -> Optional[bool]:
        if key not in table:
            return None
        value = table[key]
        if not isinstance(value, bool):
            raise _config_error(path, f"`{key}` must be true or false, got {value!r}", (key,), at_value=True)
        return value

    def torch_version(key: str) -> Optional[str]:
        from trainlint.target_torch import parse_torch_version

        value = table.get(key)
        if value is not None and (not isinstance(value, str) or parse_torch_version(value) is None):
            message = f'`{key}` must be a torch version written as a string, such as "2.3", got {value!r}'
            raise _config_error(path, message, (key,), at_value=True)
        return value

    return Config(
        path=path,
        select=selectors("select"),
        ignore=selectors("ignore") or (),
        extend_select=selectors("extend-select") or (),
        per_file_ignores=_per_file_ignores(table["per-file-ignores"], path) if "per-file-ignores" in table else None,
        exclude=strings("exclude"),
        extend_exclude=strings("extend-exclude") or (),
        include=strings("include"),
        extend_include=strings("extend-include") or (),
        unsafe_fixes=boolean("unsafe-fixes"),
        respect_gitignore=boolean("respect-gitignore"),
        target_torch=torch_version("target-torch"),
        options=_rule_options(table.get("options", {}), path),
    )


def parse_inline_overrides(texts: Sequence[str]) -> Tuple[Config, Tuple[str, ...]]:
    """``--config 'key = value'`` overrides, as Ruff takes them: each a TOML line of the trainlint
    table, checked as a configuration file's keys are. Returns them as a Config and the keys they set."""
    if not texts:
        return Config(), ()
    tomllib = tomllib_module()
    table: Dict[str, Any] = {}
    for text in texts:
        try:
            table.update(tomllib.loads(text))
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"`--config {text}` is neither a file nor a `key = value` override in TOML ({error})") from None
    try:
        config = parse_config(table, None)
    except ConfigError as error:
        raise ConfigError(f"`--config` override: {str(error).split(': ', 1)[-1]}") from None
    return config, tuple(table)


def _string_list(value: Any) -> Optional[Tuple[str, ...]]:
    """A list of strings, or one string as a list of one; None for anything else."""
    items = [value] if isinstance(value, str) else value
    if isinstance(items, list) and all(isinstance(item, str) for item in items):
        return tuple(items)
    return None


def _check_selectors(path: Optional[Path], keys: KeyPath, value: Any, origin: str) -> None:
    """Expand each selector of a (validated) string or list of strings here, where the file is at hand,
    so that an unknown one gets a caret under it; building the settings expands them again."""
    from trainlint.registry import SelectorError, expand_selector

    listed = isinstance(value, list)
    for index, selector in enumerate(value if listed else [value]):
        try:
            expand_selector(selector, origin)
        except SelectorError as error:
            raise _config_error(path, str(error), keys + (index,) if listed else keys, at_value=True) from None


def _per_file_ignores(value: Any, path: Optional[Path]) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        message = "`per-file-ignores` must map glob patterns to lists of rule codes"
        raise _config_error(path, message, ("per-file-ignores",), at_value=True)
    result: List[Tuple[str, Tuple[str, ...]]] = []
    for pattern, codes in value.items():
        keys = ("per-file-ignores", pattern)
        selectors = _string_list(codes)
        if selectors is None:
            raise _config_error(path, f"`per-file-ignores` entry `{pattern}` must be a list of rule codes", keys, at_value=True)
        _check_selectors(path, keys, codes, f'`per-file-ignores` ("{pattern}")')
        result.append((str(pattern), selectors))
    return tuple(result)


def _rule_options(value: Any, path: Optional[Path]) -> Dict[str, Dict[str, Any]]:
    """Validate ``options.<code or name>.<option> = value`` against what each rule declares."""
    from trainlint.registry import ENTRIES_BY_CODE, ENTRIES_BY_NAME, find_entry, load_rule

    if not isinstance(value, dict):
        raise _config_error(path, "`options` must map rule codes to tables of options", ("options",), at_value=True)
    result: Dict[str, Dict[str, Any]] = {}
    for rule_key, settings in value.items():
        keys = ("options", rule_key)
        entry = find_entry(str(rule_key))
        if entry is None:
            known = list(ENTRIES_BY_CODE) + list(ENTRIES_BY_NAME)
            with_options = ", ".join(code for code in sorted(ENTRIES_BY_CODE) if load_rule(code).options)
            message = f"`options.{rule_key}` names no rule{_did_you_mean(str(rule_key), known)} (rules with options: {with_options})"
            raise _config_error(path, message, keys)
        if not isinstance(settings, dict):
            raise _config_error(path, f"`options.{rule_key}` must be a table of options", keys, at_value=True)
        declared = load_rule(entry.code).options
        for name, option_value in settings.items():
            option = declared.get(name)
            if option is None:
                valid = f"{_did_you_mean(str(name), declared)} (valid options: {', '.join(declared) or 'none'})"
                raise _config_error(path, f"unknown option `{name}` for {entry.code}{valid}", keys + (name,))
            problem = option.validate(option_value)
            if problem:
                message = f"`options.{rule_key}.{name}` must be {problem}, got {option_value!r}"
                raise _config_error(path, message, keys + (name,), at_value=True)
        result.setdefault(entry.code, {}).update(settings)
    return result


# --- Pointing at a mistake (trainlint.config_places). Only an error gets here: nothing of it is on a check's start-up path. ---


def _config_error(path: Optional[Path], message: str, keys: Optional[KeyPath] = None, at_value: bool = False) -> ConfigError:
    """``path:line:col: message`` and the line with carets under the key (or its value), as Ruff
    shows a mistake; ``path: message`` when there is no key to point at or it cannot be found."""
    if path is None:
        return ConfigError(f"configuration: {message}")
    from trainlint.config_places import locate, snippet
    from trainlint.discovery import display_path  # shown as every other path is: relative to the working directory

    shown = display_path(path)
    found = None if keys is None else locate(path, keys, at_value)
    if found is None:
        return ConfigError(f"{shown}: {message}")
    (line, start, end), source = found
    return ConfigError(f"{shown}:{line + 1}:{start + 1}: {message}\n{snippet(line + 1, source, start, end)}")
