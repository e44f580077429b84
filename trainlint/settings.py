"""Effective settings: a configuration file with the command line layered on top."""

from __future__ import annotations

import fnmatch
import functools
import re
from pathlib import Path
from typing import Dict, FrozenSet, Mapping, NamedTuple, Optional, Pattern, Tuple

from trainlint.config import NO_OPTIONS, Config, ConfigError, find_config_file, load_config
from trainlint.engine import RuleSettings
from trainlint import registry
from trainlint.registry import SelectorError, expand_selectors, resolve_selection

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", "__pycache__", "__pypackages__",
    "build", "dist", "node_modules", "site-packages", ".eggs", "*.egg-info", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".trainlint_cache", ".ipynb_checkpoints",
)
# Tests run training code for a handful of steps on tiny models and data: a defect
# whose cost grows with the length of the run or the size of the data is true
# there by the letter and costs nothing (Lightning's test doubles record every
# batch of a 4-step run; transformers-style model tests run one forward per model
# class in eval mode without no_grad). The rules whose findings crash or corrupt
# a run whatever its size (TL101, TL102, TL104, TL2xx, TL3xx) still check tests.
# Setting `per-file-ignores` replaces this default, as `exclude` replaces its own.
RULES_THAT_SCALE_WITH_THE_RUN = ("TL103", "TL401", "TL402", "TL403", "TL404", "TL405")
DEFAULT_PER_FILE_IGNORES = tuple(
    (pattern, RULES_THAT_SCALE_WITH_THE_RUN)
    for pattern in ("tests/*", "*/tests/*", "test/*", "*/test/*", "test_*.py", "*_test.py", "conftest.py")
)
# The files a folder's walk checks (Ruff's default less pyproject.toml): Python sources and Jupyter notebooks.
DEFAULT_INCLUDE = ("*.py", "*.pyi", "*.ipynb")


class Overrides(NamedTuple):
    """What the command line says; None means "not given"."""

    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    unsafe_fixes: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    per_file_ignores: Optional[Tuple[Tuple[str, Tuple[str, ...]], ...]] = None  # replaces the configured ones
    extend_per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    inline: Config = Config()  # `--config 'key = value'`: its keys win over every configuration file's
    inline_keys: Tuple[str, ...] = ()


def with_inline(config: Config, overrides: Overrides) -> Config:
    """``config`` with the keys set by ``--config 'key = value'`` replaced, as Ruff layers them."""
    if not overrides.inline_keys:
        return config
    fields = {key.replace("-", "_"): getattr(overrides.inline, key.replace("-", "_")) for key in overrides.inline_keys}
    return config._replace(**fields)


class Settings(NamedTuple):
    """The effective settings of one folder (NamedTuples like Config: cheap to define at start-up)."""

    root: Path  # relative patterns are resolved against this directory
    config_path: Optional[Path]
    codes: FrozenSet[str]
    per_file_ignores: Tuple[Tuple[str, FrozenSet[str]], ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    include: Tuple[str, ...] = DEFAULT_INCLUDE
    unsafe_fixes: bool = False
    respect_gitignore: bool = True
    options: Mapping[str, Mapping[str, object]] = NO_OPTIONS  # by rule code

    def rule_settings_for(self, path: Path) -> RuleSettings:
        codes = self.codes
        place = _PlaceUnderRoot(path, self.root)
        for pattern, ignored in self.per_file_ignores:
            if place.matches(pattern):
                codes = codes - ignored
        return RuleSettings(codes=codes, options=self.options)

    def is_excluded(self, path: Path) -> bool:
        return _matches(path, self.root, self.exclude)

    def is_included(self, path: Path) -> bool:
        """Is this a file to check (by ``include``, patterns as for ``exclude``)? Asked of every file a walk meets."""
        return _matches(path, self.root, self.include)

    def is_excluded_with_parents(self, path: Path) -> bool:
        """For explicitly named paths: excluded themselves or inside an excluded folder under the root.
        The root and the folders above it never are: a project may live in ``~/build/project``."""
        absolute = path.resolve()
        root = self.root.resolve()
        if absolute == root or absolute in root.parents:
            return False
        candidates = [absolute] + [p for p in absolute.parents if root in p.parents]
        return any(self.is_excluded(candidate) for candidate in candidates)


def _matches(path: Path, root: Path, patterns: Tuple[str, ...]) -> bool:
    names, paths = _pattern_matchers(patterns)
    if names is not None and names.match(path.name):
        return True
    if not paths:
        return False
    place = _PlaceUnderRoot(path, root)
    return any(place.matches(pattern) for pattern in paths)


@functools.lru_cache(maxsize=None)
def _pattern_matchers(patterns: Tuple[str, ...]) -> Tuple[Optional[Pattern[str]], Tuple[str, ...]]:
    """The name patterns as one compiled expression, and the path patterns as they are.

    Discovery asks about every file and folder, and the default exclude list alone
    has 21 name patterns: one expression instead of 21 ``fnmatch`` calls halves a
    warm run over 10,000 files.
    """
    names = [fnmatch.translate(p.rstrip("/")) for p in patterns if "/" not in p.rstrip("/")]
    paths = tuple(p for p in patterns if "/" in p.rstrip("/"))
    return (re.compile("|".join(names)) if names else None), paths


class _PlaceUnderRoot:
    """One path as the patterns see it, Ruff-like: a pattern without ``/`` matches its name, one with ``/`` its
    path under the root. That path is resolved once, when a first pattern asks, for all of the patterns: every
    file is asked about each default per-file-ignore, and two ``resolve()`` calls per pattern (each an ``lstat``
    of every folder above the file) were a tenth of the CPU of a cold check of pytorch-lightning (issue 19)."""

    __slots__ = ("path", "root", "_relative")

    def __init__(self, path: Path, root: Path) -> None:
        self.path = path
        self.root = root
        self._relative: Optional[Tuple[str, bool]] = None

    def matches(self, pattern: str) -> bool:
        pattern = pattern.rstrip("/")
        if "/" not in pattern:
            return fnmatch.fnmatchcase(self.path.name, pattern)
        relative, under_root = self._relative_path()
        # Outside the root only a pattern that may start anywhere (``*/tests/*``) can match, as Ruff joins
        # patterns to the project root and ``*`` crosses folders.
        if not under_root and not pattern.startswith("*"):
            return False
        return fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern + "/*")

    def _relative_path(self) -> Tuple[str, bool]:
        """The resolved path under the root, or the whole resolved path and False where it lies outside."""
        if self._relative is None:
            resolved = self.path.resolve()
            try:
                self._relative = (resolved.relative_to(_resolved(self.root)).as_posix(), True)
            except ValueError:
                self._relative = (resolved.as_posix(), False)
        return self._relative


@functools.lru_cache(maxsize=None)
def _resolved(root: Path) -> Path:
    """A settings root, resolved once per run (a run has a handful of roots)."""
    return root.resolve()


def _check_selectors(overrides: Overrides) -> None:
    """Expand the command line's selectors once with their exact origin, so an unknown one names its option.
    (A configuration file's are checked where it is read, with a caret under the selector.)"""
    for key in ("select", "extend-select", "ignore"):
        expand_selectors(getattr(overrides, key.replace("-", "_")) or (), f"`--{key}` on the command line")


def build_settings(config: Config, overrides: Overrides, cwd: Path, pinned: bool = False) -> Settings:
    """Layer the command line over ``config``. Patterns are relative to the configuration's folder, or,
    for a file named with ``--config``, to the working directory (as with Ruff)."""
    config = with_inline(config, overrides)
    try:
        _check_selectors(overrides)
        codes = resolve_selection(
            [
                (str(config.path), config.select, config.extend_select, config.ignore),
                ("the command line", overrides.select, overrides.extend_select, overrides.ignore),
            ]
        )
        configured = config.per_file_ignores if overrides.per_file_ignores is None else overrides.per_file_ignores
        if configured is None:  # the default, for the rules this registry has
            default = tuple((pattern, frozenset(codes) & registry.ALL_CODES) for pattern, codes in DEFAULT_PER_FILE_IGNORES)
        else:
            default = ()
        per_file = default + tuple(
            (pattern, expand_selectors(selectors, f"`per-file-ignores` (\"{pattern}\") of {config.path or 'the command line'}"))
            for pattern, selectors in (configured or ()) + overrides.extend_per_file_ignores
        )
    except SelectorError as error:
        raise ConfigError(str(error)) from None
    exclude = overrides.exclude if overrides.exclude is not None else config.exclude
    exclude = (exclude if exclude is not None else DEFAULT_EXCLUDE) + config.extend_exclude + overrides.extend_exclude
    include = (config.include if config.include is not None else DEFAULT_INCLUDE) + config.extend_include
    unsafe = overrides.unsafe_fixes if overrides.unsafe_fixes is not None else bool(config.unsafe_fixes)
    gitignore = overrides.respect_gitignore if overrides.respect_gitignore is not None else config.respect_gitignore
    return Settings(
        root=cwd if pinned or config.root is None else config.root,
        config_path=config.path,
        codes=codes,
        per_file_ignores=per_file,
        exclude=exclude,
        include=include,
        unsafe_fixes=unsafe,
        respect_gitignore=True if gitignore is None else gitignore,
        options=_with_target_torch(config, cwd if pinned or config.root is None else config.root),
    )


def _with_target_torch(config: Config, root: Path) -> Dict[str, Dict[str, object]]:
    """Each rule's options, with ``target-torch`` (the setting, else the project's dependency on torch) for every
    rule that did not set its own; rules that declare no such option never read it."""
    from trainlint.registry import ALL_CODES
    from trainlint.target_torch import declared_torch

    options = {code: dict(values) for code, values in config.options.items()}
    target = config.target_torch or declared_torch(root)
    for code in ALL_CODES if target else ():
        options.setdefault(code, {}).setdefault("target-torch", target)
    return options


class SettingsResolver:
    """The settings of each directory: those of the nearest configuration file above it.

    ``--config FILE`` pins one configuration for every path, and ``--isolated`` pins none
    (the defaults and the command line). Results are memoised per directory, so a tree is
    configured once, not once per file.
    """

    def __init__(self, overrides: Overrides, cwd: Path, config_file: Optional[Path] = None, isolated: bool = False) -> None:
        self.overrides = overrides
        self.cwd = cwd
        self._pinned: Optional[Settings] = None
        if config_file is not None:
            self._pinned = build_settings(load_config(config_file.resolve()), overrides, cwd, pinned=True)
        elif isolated:
            self._pinned = build_settings(Config(), overrides, cwd, pinned=True)
        self._by_directory: Dict[Path, Settings] = {}  # by real path
        self._by_given_directory: Dict[Path, Settings] = {}  # by the path as given
        self._default: Optional[Settings] = None

    def for_path(self, path: Path) -> Settings:
        if self._pinned is not None:
            return self._pinned
        directory = path if path.is_dir() else path.parent
        found = self._by_given_directory.get(directory)
        if found is None:  # resolving costs a system call per path component: once per folder, not per file
            found = self._by_given_directory[directory] = self._for_directory(directory.resolve())
        return found

    def _for_directory(self, directory: Path) -> Settings:
        found = self._by_directory.get(directory)
        if found is not None:
            return found
        config_file = find_config_file(directory)
        if config_file is not None:
            settings = build_settings(load_config(config_file), self.overrides, self.cwd)
        elif directory.parent != directory:
            settings = self._for_directory(directory.parent)
        else:
            settings = self.defaults()
        self._by_directory[directory] = settings
        return settings

    def defaults(self) -> Settings:
        if self._default is None:
            self._default = build_settings(Config(), self.overrides, self.cwd)
        return self._default
