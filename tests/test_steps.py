"""The one loop model of trainlint/analysis/steps.py: what an iteration runs, which loops train, which evaluate."""

from __future__ import annotations

import textwrap

import libcst as cst

from trainlint.analysis import ModuleFacts
from trainlint.analysis.steps import EvaluationLoops, Loops, TrainingLoops

SOURCE = textwrap.dedent(
    """
    def clear(model):
        model.zero_grad()

    def fit(model, optimizer, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            for x, y in train_loader:
                def closure():
                    clear(model)
                    return model(x).sum()
                loss = model(x).sum()
                loss.backward()
                optimizer.step(closure)
            model.eval()
            with tqdm(val_loader) as bar:
                for x, y in bar:
                    model(x)
    """
)


def _facts() -> ModuleFacts:
    return ModuleFacts(cst.parse_module(SOURCE), SOURCE)


def _called(facts: ModuleFacts, nodes) -> set:
    return {facts.code(n.func) for n in nodes}


def test_an_iteration_runs_its_closure_and_its_callees_but_executing_the_body_does_not_define_them() -> None:
    facts = _facts()
    loops = facts.fact(Loops)
    epoch, batch, _ = loops.loops
    assert {"clear", "model.zero_grad"} <= _called(facts, loops.nodes_in(batch, cst.Call))
    run = _called(facts, loops.run_by_body(batch, (cst.Call,), nested_loops=True))
    assert "clear" not in run and {"loss.backward", "optimizer.step"} <= run
    assert "loss.backward" not in _called(facts, loops.run_by_body(epoch, (cst.Call,), nested_loops=False))


def test_an_epoch_loop_trains_but_only_the_batch_loop_is_a_step_loop() -> None:
    facts = _facts()
    loops = facts.fact(Loops)
    epoch, batch, validation = loops.loops
    assert loops.trains(epoch) and loops.trains(batch) and not loops.trains(validation)
    assert loops.running(lambda call: facts.code(call.func) == "loss.backward") == [epoch, batch]
    step_loops = [loop.node for loop in facts.fact(TrainingLoops).loops if loop.is_training]
    assert step_loops == [batch]


def test_an_evaluation_loop_is_a_loop_that_does_not_train_and_runs_a_model_in_eval_mode() -> None:
    facts = _facts()
    _, _, validation = facts.fact(Loops).loops
    found = facts.fact(EvaluationLoops).loops
    assert [(e.loop, [facts.code(c) for c in e.forwards]) for e in found] == [(validation, ["model(x)"])]
