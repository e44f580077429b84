"""TL402 unbounded-step-history: placeholder until the rule is written."""

from __future__ import annotations

from trainlint.rule import Rule


class UnboundedStepHistory(Rule):
    """Not yet implemented."""
