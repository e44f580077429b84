"""Tests of the product shell (CLI, configuration, discovery, reports, suppression, source I/O, cache, pre-commit).

They run against the test-only rules of ``demo_rules.py``, never the real
registry, so that they state exact findings while the real rules evolve.
"""
