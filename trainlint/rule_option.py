"""A rule's documented setting, in a module of its own: the settings read it (``target_torch``) on every run's
start-up path, where the rest of ``trainlint.rule`` (the base class, fixes) is not needed."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional


class Option(NamedTuple):
    """A documented per-rule setting, validated when the config is loaded."""

    default: Any
    help: str
    kind: type = int
    check: Optional[Callable[[Any], bool]] = None
    requirement: str = ""

    def validate(self, value: Any) -> Optional[str]:
        """Return why ``value`` is not acceptable, or None."""
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            return "an integer"
        if not isinstance(value, self.kind):
            return f"a {self.kind.__name__}"
        if self.check is not None and not self.check(value):
            return self.requirement or "a valid value"
        return None
