"""TL401 on patterns found by a survey of real training code.

Functions that return a call of themselves (fairseq's ``train_step`` retries
itself after an out-of-memory error) or of each other must neither crash the
graph analysis nor hide the loss they return. ``model.backward(loss)`` of a
DeepSpeed engine backpropagates ``loss``: ``model`` is not a tensor given a
gradient, so what is read off it carries no graph. A list local to a function
called every step, filled by a nested helper, dies with the call; a list whose
items are popped again (a pipeline schedule keeping outputs for a later
backward) is a queue, not a history.
"""

from __future__ import annotations

import textwrap
from typing import List

from trainlint.engine import RuleSettings, lint_source


def reported_rows(text: str) -> List[int]:
    result = lint_source(textwrap.dedent(text), "case.py", RuleSettings(frozenset({"TL401"})))
    assert not result.errors, result.errors
    return [d.location.row for d in result.diagnostics]


# ----- functions returning calls of themselves -----------------------------------------

def test_a_step_retrying_itself_does_not_crash_and_its_loss_is_reported() -> None:
    text = """
    def step(batch, tries=3):
        if tries:
            return step(batch, tries - 1)
        return batch, 0


    def train(model, loader, opt):
        history = []
        for batch in loader:
            loss, n = step(batch)
            loss.backward()
            opt.step()
            history.append(loss)
        return history
    """
    assert reported_rows(text) == [14]


MUTUAL = """
def forward_step(model, batch, tries):
    if tries:
        return retry(model, batch, tries)
    output = model(batch)
    return output.loss, len(batch)


def retry(model, batch, tries):
    return forward_step(model, batch, tries - 1)


def train(model, loader, opt):
    losses, sizes = [], []
    for batch in loader:
        loss, size = forward_step(model, batch, 2)
        loss.backward()
        opt.step()
        sizes.append(size)
        losses.append(loss)
    return losses, sizes
"""


def test_mutually_recursive_functions_do_not_crash_and_the_returned_loss_is_reported() -> None:
    assert reported_rows(MUTUAL) == [20]


def test_the_returned_loss_carries_a_graph_before_backward_is_called_on_it() -> None:
    """The loss is known from the returns through the cycle, not only from ``loss.backward()``."""
    assert reported_rows(MUTUAL.replace("loss.backward()", "(2 * loss).backward()")) == [20]


def test_a_cycle_with_nothing_else_returned_carries_nothing() -> None:
    text = """
    def ping(batch):
        return pong(batch)


    def pong(batch):
        return ping(batch)


    def train(model, loader, opt):
        seen = []
        for batch in loader:
            loss = model(batch).mean()
            loss.backward()
            opt.step()
            first, second = ping(batch)
            seen.append(first)
        return seen
    """
    assert reported_rows(text) == []


# ----- engines' backward(loss) ---------------------------------------------------------

ENGINE = """
{imports}

def train(model, loader, args):
    {engine}
    tokens, history = 0, []
    for batch in loader:
        loss = {loss}
        model.backward(loss)
        model.step()
        tokens += model.seq_scheduler.get_current_seq() * args.batch_size
        history.append(loss)
    return tokens, history
"""


def engine_case(loss: str, engine: str = "model = wrap(model)", imports: str = "") -> str:
    return ENGINE.format(imports=imports, engine=engine, loss=loss)


def test_backward_of_a_graph_carrying_loss_is_an_engines() -> None:
    """Only the kept loss is reported (line 12), not what is read off the engine (line 11)."""
    assert reported_rows(engine_case("model(batch).mean()")) == [12]


def test_an_engine_from_deepspeed_initialize_backpropagates_a_loss_of_unknown_origin() -> None:
    text = engine_case(
        "compute(model, batch)", engine="model, optimizer, _, _ = deepspeed.initialize(model=model)", imports="import deepspeed"
    )
    assert reported_rows(text) == [12]


def test_backward_with_a_plain_gradient_still_marks_its_receiver() -> None:
    """``y.backward(torch.ones_like(y))``: ``y`` is a tensor differentiated with a gradient, and kept here."""
    text = """
    import torch

    def train(model, loader, opt):
        kept = []
        for batch in loader:
            y = project(model, batch)
            y.backward(torch.ones_like(y))
            opt.step()
            kept.append(y)
        return kept
    """
    assert reported_rows(text) == [10]


# ----- closures and queues ---------------------------------------------------------------

PER_CALL_LOGS = """
from collections import defaultdict


class Task:
    def {name}(self, samples, model, criterion, optimizer):
        total = defaultdict(float)

        def forward_backward(sample):
            loss = criterion(model(sample))
            loss.backward()
            total["loss"] += loss

        for sample in samples:
            forward_backward(sample)
        optimizer.step()
        return total
"""


def test_a_closure_variable_of_a_per_step_function_does_not_outlive_the_step() -> None:
    assert reported_rows(PER_CALL_LOGS.format(name="train_step")) == []


def test_a_closure_variable_of_a_function_that_holds_the_training_loop_does() -> None:
    text = """
    def train(model, loader, optimizer):
        losses = []

        def train_step(batch):
            loss = model(batch).sum()
            loss.backward()
            optimizer.step()
            losses.append(loss)

        for batch in loader:
            train_step(batch)
        return losses
    """
    assert reported_rows(text) == [9]


PIPELINE = """
def run_schedule(model, microbatches):
    outputs = []

    def forward_step(batch):
        out = model(batch).sum()
        outputs.append(out)
        return out

    def backward_step():
        out = outputs.{take}
        out.backward()

    for batch in microbatches:
        forward_step(batch)
    for _ in microbatches:
        backward_step()
"""


def test_outputs_popped_for_a_later_backward_are_a_queue() -> None:
    assert reported_rows(PIPELINE.format(take="pop(0)")) == []
    assert reported_rows(PIPELINE.format(take="__getitem__(0)")) == [7]

