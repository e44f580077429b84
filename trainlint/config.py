"""Configuration: ``[tool.trainlint]`` in pyproject.toml, ``trainlint.yaml`` or ``.trainlint.yaml``.

The nearest configuration file above a checked path applies to it, so a
monorepo can carry one per project. Every key and value is validated when the
file is loaded; a mistake is a one-line :class:`ConfigError` naming the file,
the key and what is allowed, never a traceback.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

CONFIG_FILENAMES = (".trainlint.yaml", "trainlint.yaml", "pyproject.toml")  # first found in a directory wins

KNOWN_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "unsafe-fixes",
    "respect-gitignore",
    "options",
)


class ConfigError(ValueError):
    """A configuration mistake, phrased for the user."""


@dataclass(frozen=True)
class Config:
    """One configuration file's validated content (every key optional)."""

    path: Optional[Path] = None
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    unsafe_fixes: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # by rule code

    @property
    def root(self) -> Optional[Path]:
        return self.path.parent if self.path else None


def _read_table(path: Path) -> Optional[Dict[str, Any]]:
    """The raw trainlint table of a file, or None when a pyproject.toml has none."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the configuration file: {error.strerror}") from None
    if path.suffix == ".toml":
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - exercised on old Pythons only
            import tomli as tomllib
        try:
            document = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{path}: invalid TOML: {error}") from None
        tool = document.get("tool", {})
        table = tool.get("trainlint") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.trainlint] must be a table")
        return table
    if path.suffix not in (".yaml", ".yml"):
        raise ConfigError(f"{path}: unsupported configuration file (use pyproject.toml, trainlint.yaml or .trainlint.yaml)")
    import yaml

    try:
        document = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: invalid YAML: not UTF-8 ({error.reason})") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: invalid YAML: {_yaml_problem(error)}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of settings")
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
        raise ConfigError(f"{path}: no [tool.trainlint] table")
    return parse_config(table, path)


def _did_you_mean(word: str, choices) -> str:
    import difflib  # only for a bad configuration: not on every run's start-up path

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean `{close[0]}`?" if close else ""


def parse_config(table: Mapping[str, Any], path: Optional[Path]) -> Config:
    where = f"{path}" if path else "configuration"
    section = "[tool.trainlint]" if path and path.name == "pyproject.toml" else "the top level"
    for key in table:
        if key not in KNOWN_KEYS:
            raise ConfigError(
                f"{where}: unknown key `{key}` in {section}{_did_you_mean(str(key), KNOWN_KEYS)} "
                f"(valid keys: {', '.join(KNOWN_KEYS)})"
            )

    def strings(key: str) -> Optional[Tuple[str, ...]]:
        if key not in table:
            return None
        value = table[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}: `{key}` must be a list of strings, got {value!r}")
        return tuple(value)

    def boolean(key: str) -> Optional[bool]:
        if key not in table:
            return None
        value = table[key]
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: `{key}` must be true or false, got {value!r}")
        return value

    return Config(
        path=path,
        select=strings("select"),
        ignore=strings("ignore") or (),
        extend_select=strings("extend-select") or (),
        per_file_ignores=_per_file_ignores(table.get("per-file-ignores", {}), where),
        exclude=strings("exclude"),
        extend_exclude=strings("extend-exclude") or (),
        unsafe_fixes=boolean("unsafe-fixes"),
        respect_gitignore=boolean("respect-gitignore"),
        options=_rule_options(table.get("options", {}), where),
    )


def _per_file_ignores(value: Any, where: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must map glob patterns to lists of rule codes")
    result: List[Tuple[str, Tuple[str, ...]]] = []
    for pattern, codes in value.items():
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
            raise ConfigError(f"{where}: `per-file-ignores` entry `{pattern}` must be a list of rule codes")
        result.append((str(pattern), tuple(codes)))
    return tuple(result)


def _rule_options(value: Any, where: str) -> Dict[str, Dict[str, Any]]:
    """Validate ``options.<code or name>.<option> = value`` against what each rule declares."""
    from trainlint.registry import ENTRIES_BY_CODE, ENTRIES_BY_NAME, find_entry, load_rule

    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `options` must map rule codes to tables of options")
    result: Dict[str, Dict[str, Any]] = {}
    for rule_key, settings in value.items():
        entry = find_entry(str(rule_key))
        if entry is None:
            known = list(ENTRIES_BY_CODE) + list(ENTRIES_BY_NAME)
            raise ConfigError(f"{where}: `options.{rule_key}` names no rule{_did_you_mean(str(rule_key), known)}")
        if not isinstance(settings, dict):
            raise ConfigError(f"{where}: `options.{rule_key}` must be a table of options")
        declared = load_rule(entry.code).options
        for name, option_value in settings.items():
            option = declared.get(name)
            if option is None:
                allowed = ", ".join(declared) or "none"
                raise ConfigError(
                    f"{where}: unknown option `{name}` for {entry.code}{_did_you_mean(str(name), declared)} "
                    f"(valid options: {allowed})"
                )
            problem = option.validate(option_value)
            if problem:
                raise ConfigError(f"{where}: `options.{rule_key}.{name}` must be {problem}, got {option_value!r}")
        result.setdefault(entry.code, {}).update(settings)
    return result
