"""Reference trainer: the ground truth that auto-fixed trainlint fixtures are compared against.

``run(task, seed=...)`` trains one of the tasks in ``TASKS`` with a known-good
loop; a fixed fixture built from the same seed, data, model and
hyper-parameters must reproduce its per-step losses. See README.md.
"""

from .runner import RunResult, run
from .seeding import seed_everything
from .tasks import TASKS

__all__ = ["TASKS", "RunResult", "run", "seed_everything"]
