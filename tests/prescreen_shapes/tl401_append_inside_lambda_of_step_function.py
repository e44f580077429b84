# TL401 accumulates_per_step misses: _dies_with_its_call takes kept (a local of training_step, no loop around) as dying with the call, the lambda that appends being no function of the walk's place; but GraphValues.scope_of the append is the lambda, so TL401._step_region (the function) is not that scope, the 'locals die with the call' exit is skipped, and _outlives_step reports
import torch.nn.functional as F


def training_step(student, teacher, xs):
    kept = []
    list(map(lambda x: kept.append(F.mse_loss(student(x), teacher(x))), xs))
    return kept
