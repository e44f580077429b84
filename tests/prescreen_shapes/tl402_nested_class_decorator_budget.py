# TL402 edge of StepMemoryQuestions._may_run_every_step (_class_around): the append sits in the decorator of a class nested in a method; the decorator lies before the nested class's `class` line, so by position the screen takes the budgeted outer class for its owner, while TL402's `enclosing_class` (ancestors) gives the nested class, whose family stores no step budget
import torch


def tag(_):
    return lambda cls: cls


class ProbeBase:
    def __init__(self):
        self.norms = []


class LRFinder:
    def __init__(self, model, optimizer, num_training=100):
        self.model = model
        self.optimizer = optimizer
        self.num_training = num_training

    def training_step(self, batch):
        loss = self.model(batch).mean()
        loss.backward()
        self.optimizer.step()

        @tag(self.norms.append(loss.detach()))
        class Probe(ProbeBase):
            pass

        return loss
