# TL401 accumulates_per_step misses: _dies_with_its_call takes a local of a per-step function (training_step) as dying with the call because no loop around the sum trains (_training_loops); but TrainingLoops records every loader loop (a DataLoader iterated) as a step loop, so TL401._step_region is that loop and consistency, bound before it, outlives each of its steps; reported by TL401._outlives_step
import torch.nn.functional as F
from torch.utils.data import DataLoader


def training_step(student, teacher, unlabeled_set):
    consistency = 0.0
    for x in DataLoader(unlabeled_set, batch_size=32):
        consistency += F.mse_loss(student(x), teacher(x))
    return consistency
