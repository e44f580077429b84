"""TL301 unfiltered-batch-kwargs: placeholder until the rule is written."""

from __future__ import annotations

from trainlint.rule import Rule


class UnfilteredBatchKwargs(Rule):
    """Not yet implemented."""
