# TL401 accumulates_per_step misses: _may_be_a_loader_loop strips iteration wrappers by last name (_ITERATION_WRAPPERS) only, so progress(unlabeled_loader) with 'from tqdm import tqdm as progress' is judged by the callee 'progress' (alias tqdm), no loader, and _dies_with_its_call drops the local; steps.iterated strips the wrapper by qualified name (tqdm.tqdm), TrainingLoops.is_loader(unlabeled_loader) holds, and TL401._step_region/_outlives_step report
import torch.nn.functional as F
from tqdm import tqdm as progress


def training_step(student, teacher, unlabeled_loader):
    consistency = 0.0
    for x in progress(unlabeled_loader):
        consistency += F.mse_loss(student(x), teacher(x))
    return consistency
