"""Which files to check: walk the given paths, skipping what the user excluded.

Directories named in ``exclude`` (by default virtualenvs, VCS and build
folders) and paths ignored as git ignores them are pruned while walking;
a file named explicitly is always checked unless ``--force-exclude`` is given.
Ignore patterns come from ``.gitignore`` and ``.ignore`` files (``.ignore``, as
ripgrep and Ruff read it, wins over the ``.gitignore`` beside it), the
repository's ``info/exclude`` and the user's ``core.excludesFile``
(``trainlint.git_files``), with git's precedence: deeper files over outer ones,
and every ``.gitignore`` over ``info/exclude`` over ``core.excludesFile``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

from trainlint.git_files import exclude_files
from trainlint.settings import DEFAULT_INCLUDE, Settings, SettingsResolver

# A file named on the command line with one of these suffixes is checked whatever `include` says, as Ruff does.
SOURCE_SUFFIXES = tuple(pattern[1:] for pattern in DEFAULT_INCLUDE)  # "*.py" -> ".py"
IGNORE_FILES = (".gitignore", ".ignore")  # in one folder, later files win
_UNQUOTED_TRAILING_SPACE = re.compile(r"(?<!\\)\s+$")  # git drops trailing spaces unless a backslash quotes one


class _IgnoreRule(NamedTuple):
    regex: "re.Pattern[str]"
    negated: bool
    directory_only: bool


def _translate(glob: str) -> str:
    """One ``.gitignore`` pattern as a regular expression, with git's wildmatch rules: ``*`` and
    ``?`` stop at ``/``, ``**`` crosses folders, ``[!a-z]`` negates, a backslash quotes the next character."""
    out, index = [], 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("/**", index) and index + 3 == len(glob):
            out.append("/.*")
            index += 3
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            bracket, end = _bracket(glob, index)
            if bracket is not None:
                out.append(bracket)
                index = end
                continue
            out.append(re.escape(char))
        elif char == "\\" and index + 1 < len(glob):
            index += 1
            out.append(re.escape(glob[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _bracket(glob: str, start: int) -> Tuple[Optional[str], int]:
    """The class opened at ``glob[start] == "["`` as a regular expression and the index after it;
    None when it is never closed (the ``[`` is then literal). A ``]`` right after the opening is a
    member, and ``!`` or ``^`` there negates (never matching ``/``), as in git."""
    index = start + 1
    negated = glob[index : index + 1] in ("!", "^")
    index += 1 if negated else 0
    members: List[str] = []
    while index < len(glob):
        char = glob[index]
        if char == "]" and members:
            return f"[{'^/' if negated else ''}{''.join(members)}]", index + 1
        if char == "\\" and index + 1 < len(glob):
            index += 1
            char = glob[index]
        members.append(char if char == "-" else re.escape(char))
        index += 1
    return None, start


class GitIgnore:
    """The rules of one ``.gitignore`` file, matched relative to its directory."""

    def __init__(self, base: Path, lines: Sequence[str]) -> None:
        self.base = base
        self.rules: List[_IgnoreRule] = []
        for raw in lines:
            line = _UNQUOTED_TRAILING_SPACE.sub("", raw.rstrip("\n"))
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line[1:] if negated else line
            directory_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            line = line.lstrip("/")
            prefix = "" if anchored else "(?:.*/)?"
            self.rules.append(_IgnoreRule(re.compile(f"^{prefix}{_translate(line)}$"), negated, directory_only))

    @classmethod
    def load(cls, directory: Path) -> Optional["GitIgnore"]:
        """The rules of the ignore files in ``directory`` (None when it has none)."""
        lines: Optional[List[str]] = None
        for name in IGNORE_FILES:
            found = _read_lines(directory / name)
            if found is not None:
                lines = (lines or []) + found
        return None if lines is None else cls(directory, lines)

    def verdict(self, path: Path, is_dir: bool) -> Optional[bool]:
        """True (ignored), False (re-included) or None (no rule speaks)."""
        try:
            relative = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        verdict = None
        for rule in self.rules:
            if rule.directory_only and not is_dir:
                continue
            if rule.regex.match(relative):
                verdict = not rule.negated
        return verdict


def _ignored(ignores: Sequence[GitIgnore], path: Path, is_dir: bool) -> bool:
    verdict = None
    for ignore in ignores:  # outermost first; deeper files override
        found = ignore.verdict(path, is_dir)
        if found is not None:
            verdict = found
    return bool(verdict)


def _read_lines(path: Path) -> Optional[List[str]]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def _ancestor_ignores(directory: Path) -> List[GitIgnore]:
    """What applies to ``directory`` from above, outermost first: the repository's own ignore files
    (``core.excludesFile``, ``info/exclude``), then the ignore files of the folders above it up to the
    repository root. (``directory``'s own ignore files are loaded by whoever walks it.)"""
    found: List[GitIgnore] = []
    for folder in (directory, *directory.parents):
        ignore = GitIgnore.load(folder) if folder != directory else None
        if ignore is not None:
            found.append(ignore)
        if (folder / ".git").exists():
            for excludes in reversed(exclude_files(folder)):
                found.append(GitIgnore(folder, _read_lines(excludes) or []))
            break
    return list(reversed(found))


@dataclass
class Discovery:
    files: List[Path]
    warnings: List[str]


def discover(paths: Sequence[Path], resolver: SettingsResolver, force_exclude: bool = False) -> Discovery:
    files: List[Path] = []
    warnings: List[str] = []
    seen: Set[Path] = set()
    for given in paths:
        if not given.exists():
            warnings.append(f"{given}: No such file or directory")
            continue
        if force_exclude and is_force_excluded(given, resolver.for_path(given)):
            continue
        if not given.is_dir():  # a FIFO or device too: reading it says what it is
            problem = _not_checkable(given, resolver.for_path(given))
            if problem:
                warnings.append(problem)
            else:
                _add(files, seen, given, given.resolve())
            continue
        for path, real in _walk(given.resolve(), given, resolver, warnings):
            _add(files, seen, path, real)
    return Discovery(files, warnings)


def _not_checkable(path: Path, settings: Settings) -> str:
    """Why a file named on the command line cannot be checked ("" when it can). A file is read as what
    its name says (``.ipynb`` as a notebook), so one whose suffix is neither Python's nor a notebook's
    (``.json``, ``.txt``) is an error, never a silent pass; a script without a suffix is read as Python."""
    if settings.is_included(path) or path.name.endswith(SOURCE_SUFFIXES) or not path.suffix:
        return ""
    return f"{path}: not a Python file or a Jupyter notebook (add a pattern to `include` to check it as Python)"


def is_force_excluded(path: Path, settings: Settings) -> bool:
    """What ``--force-exclude`` drops although it was named explicitly (a file, a folder, or code
    on stdin named with ``--stdin-filename``): excluded itself or through a folder, or ignored by git."""
    return settings.is_excluded_with_parents(path) or _explicitly_ignored(path, settings)


def _explicitly_ignored(path: Path, settings: Settings) -> bool:
    """Ignored by a ``.gitignore`` itself or through a folder above it (git never looks inside an ignored folder)."""
    if not settings.respect_gitignore:
        return False
    absolute = path.resolve()
    ignores = _ancestor_ignores(absolute.parent) + [i for i in [GitIgnore.load(absolute.parent)] if i]
    candidates = [(absolute, absolute.is_dir())] + [(folder, True) for folder in absolute.parents]
    return any(
        _ignored([i for i in ignores if i.base in candidate.parents], candidate, is_dir) for candidate, is_dir in candidates
    )


def _add(files: List[Path], seen: Set[Path], path: Path, real: Path) -> None:
    """Each file once, under the first path that reached it (``real`` is its resolved path)."""
    if real not in seen:
        seen.add(real)
        files.append(path)


def _walk(start: Path, shown: Path, resolver: SettingsResolver, warnings: List[str]) -> Iterator[Tuple[Path, Path]]:
    """Each Python file as (path to show, resolved path): depth-first, sorted, pruning
    excluded and ignored directories; never follows a symlink loop.

    Symlinked directories are walked last, so a folder reachable both directly
    and through a link is shown under its real path. Resolved paths are built
    from the resolved folder (``start`` is resolved) and resolved anew only
    through a link: resolving each file would cost a system call per component.
    """
    visited: Set[Tuple[int, int]] = set()
    stack: List[Tuple[Path, Path, Path, List[GitIgnore]]] = [(start, shown, start, _ancestor_ignores(start))]
    linked: List[Tuple[Path, Path, Path, List[GitIgnore]]] = []
    while stack or linked:
        directory, display, real, ignores = stack.pop() if stack else linked.pop(0)
        try:
            info = directory.stat()
        except OSError as error:
            warnings.append(f"{display}: {error.strerror}")
            continue
        if (info.st_dev, info.st_ino) in visited:
            continue
        visited.add((info.st_dev, info.st_ino))
        settings = resolver.for_path(directory)
        local = GitIgnore.load(directory) if settings.respect_gitignore else None
        active = ignores + [local] if local else ignores
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            warnings.append(f"{display}: {error.strerror}")
            continue
        subdirectories = []
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if settings.is_excluded(path) or (settings.respect_gitignore and _ignored(active, path, is_dir)):
                continue
            is_link = entry.is_symlink()
            resolved = path.resolve() if is_link else real / entry.name
            if is_dir:
                if not (path / "pyvenv.cfg").exists():
                    (linked if is_link else subdirectories).append((path, display / entry.name, resolved, active))
            elif settings.is_included(path):
                yield display / entry.name, resolved
        stack.extend(reversed(subdirectories))


def display_path(path: Path) -> str:
    """Paths under the working directory are shown (and put in diff headers) relative to it, as Ruff does."""
    if path.is_absolute():
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            pass
    return str(path)
