"""TL102 device-dataset-in-workers: placeholder until the rule is written."""

from __future__ import annotations

from trainlint.rule import Rule


class DeviceDatasetInWorkers(Rule):
    """Not yet implemented."""
