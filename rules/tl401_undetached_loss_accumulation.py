"""TL401 undetached-loss-accumulation: placeholder until the rule is written."""

from __future__ import annotations

from trainlint.rule import Rule


class UndetachedLossAccumulation(Rule):
    """Not yet implemented."""
