# TL401 accumulates_per_step misses: _may_be_a_loader_loop strips a wrapper only when it has a positional argument (iterable.args), so tqdm(iterable=unlabeled_loader) is judged by the callee 'tqdm', no loader, and _dies_with_its_call drops the local; steps.iterated strips it through LibCST's args (a keyword argument is args[0]), TrainingLoops.is_loader(unlabeled_loader) holds, and TL401._step_region/_outlives_step report
import torch.nn.functional as F
from tqdm import tqdm


def training_step(student, teacher, unlabeled_loader):
    consistency = 0.0
    for x in tqdm(iterable=unlabeled_loader):
        consistency += F.mse_loss(student(x), teacher(x))
    return consistency
