"""Static tests for TL404 eval-without-no-grad beyond the fixtures.

Each ok trap is shown next to its twin without the guard, which must be
reported: the trap is silent for the reason it claims, not by accident.
What makes a loop an evaluation loop, where the finding goes, and the fix's
safety and spelling are checked on small cases.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from trainlint.engine import RuleSettings, fix_source, lint_source

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "TL404_eval_without_no_grad"
SETTINGS = RuleSettings(frozenset({"TL404"}))


def findings(text: str) -> List[Tuple[int, str, Optional[str]]]:
    result = lint_source(text, "case.py", SETTINGS)
    assert not result.errors, result.errors
    return [(d.location.row, d.message, d.fix.applicability.value if d.fix else None) for d in result.diagnostics]


def fixed(text: str) -> str:
    result = fix_source(text, "case.py", SETTINGS, unsafe_fixes=True)
    assert not result.errors, result.errors
    return result.text


@pytest.mark.parametrize(
    "fixture, correct, broken, reported",
    [
        ("ok_no_grad_functions.py", "@torch.no_grad()\n", "", "model(...)"),
        ("ok_no_grad_functions.py", "@torch.inference_mode\n", "", "model(...)"),
        ("ok_no_grad_functions.py", "    with torch.no_grad():\n        return", "    if True:\n        return", "model(...)"),
        ("ok_no_grad_functions.py", "@smart_inference_mode()\n", "", "model(...)"),
        ("ok_loops_without_grad.py", "    with torch.no_grad():\n        for", "    if True:\n        for", "model(...)"),
        ("ok_loops_without_grad.py", "with inference_mode():", "if True:", "model(...)"),
        ("ok_loops_without_grad.py", "        with torch.no_grad():\n            features", "        if True:\n            features", "encoder(...)"),
        ("ok_loops_without_grad.py", "    torch.set_grad_enabled(False)\n    tokens", "    tokens", "model(...)"),
        ("ok_lightning_evaluation_hooks.py", "def validation_step(", "def shared_step(", "self.backbone(...)"),
        ("ok_needs_gradients.py", "adv_images = atk(images, labels)", "adv_images = images", "model(...)"),
        ("ok_not_evaluation.py", "model.generate(**batch, max_new_tokens=64)", "model(**batch)", "model(...)"),
        ("ok_not_evaluation.py", "    model.eval()\n    model.train()\n", "    model.eval()\n", "model(...)"),
        ("ok_forward_in_callee_under_no_grad.py", "        with torch.no_grad():\n            loss", "        if True:\n            loss", "model(...)"),
        ("ok_loop_that_runs_once.py", "        break\n", "        print(batch_idx)\n", "model(...)"),
        ("ok_unit_test_comparison.py", "def test_scripted_model_matches_eager(", "def compare_scripted(", "scripted(...)"),
        ("ok_unit_test_comparison.py", "import unittest\n", "", "scripted(...)"),
        ("ok_handful_of_passes.py", "    for i in range(SHOWN):\n        image, label = test_images[i]", "    for i in range(len(test_images)):\n        image, label = test_images[i]", "model(...)"),
        ("ok_handful_of_passes.py", "attempts = 2\n", "attempts = 20\n", "model(...)"),
        ("ok_handful_of_passes.py", "        attempts -= 1\n", "", "model(...)"),
        ("ok_handful_of_passes.py", "for i, ax in enumerate(axes.flat):", "for i, ax in enumerate(test_images):", "model(...)"),
        ("ok_handful_of_passes.py", "fig, axes = plt.subplots(rows, cols, ", "fig, axes = make_grid(rows, cols, ", "model(...)"),
        ("ok_handful_of_passes.py", "        if (j >= 9):\n", "        if (j >= 99):\n", "model(...)"),
        ("ok_agent_acting_in_environment.py", "envs.step(actions)", "envs.step(envs.action_space.sample())", "model(...)"),
        ("ok_frozen_model_predictions.py", "    param.requires_grad = False\nmodel =", "    if param.ndim > 1:\n        param.requires_grad = False\nmodel =", "model(...)"),
        ("ok_frozen_model_predictions.py", "model = model.eval()\n", "model = model.eval()\nfor param in model.parameters():\n    param.requires_grad = True\n", "model(...)"),
        ("ok_frozen_model_predictions.py", "backbone.requires_grad_(False)", "backbone.requires_grad_(True)", "backbone(...)"),
        ("ok_sampling_generation_loop.py", "torch.multinomial(probs, num_samples=1)", "probs.argmax(dim=-1, keepdim=True)", "model(...)"),
        (
            "ok_sampling_generation_loop.py",
            "    for _ in range(new_tokens):\n        logits = model(ids)",
            "    for ids in test_loader:\n        logits = model(ids)",
            "model(...)",
        ),
        ("ok_launcher_unwraps_for_generate.py", "accelerator.unwrap_model(", "wrapper.unwrap_model(", "wrapper.unwrap_model(...)"),
        (
            "ok_parameter_free_model_helper_in_loop.py",
            "trg_pad_mask = (trg != self.trg_pad_idx)",
            "trg_pad_mask = (self.embedding(trg) != self.trg_pad_idx)",
            "model.make_trg_mask(...)",
        ),
    ],
)
def test_ok_fixture_is_reported_once_its_guard_is_removed(fixture: str, correct: str, broken: str, reported: str) -> None:
    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    assert correct in text and findings(text) == []
    assert [f"runs `{reported}`" in message for _, message, _ in findings(text.replace(correct, broken))] == [True]


SCRIPT = """
import torch

def evaluate(model, loader, criterion):
{body}
"""


def _source(body: str, header: str = SCRIPT) -> str:
    return header.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))


@pytest.mark.parametrize(
    "body",
    [
        """
        model.train(False)
        for x, y in loader:
            print(criterion(model(x), y).item())
        """,
        """
        for x, y in loaders["val"]:
            print(criterion(model(x), y).item())
        """,
        """
        model.eval()
        for step in range(100):
            print(model.encoder(torch.randn(2, 3)).sum().item())
        """,
        # `volatile=True` stopped disabling autograd in PyTorch 0.4; `Variable` differentiates nothing
        """
        model.eval()
        for data, target in loader:
            data = torch.autograd.Variable(data, volatile=True)
            print(criterion(model(data), target).item())
        """,
    ],
)
def test_evaluation_loops_are_recognised_by_mode_or_held_out_data(body: str) -> None:
    found = findings(_source(body))
    assert len(found) == 1 and found[0][2] == "safe"


def test_a_loop_over_training_data_without_eval_mode_is_no_evaluation() -> None:
    assert findings(_source("for x, y in loader:\n    print(criterion(model(x), y).item())")) == []


def test_nested_evaluation_loops_give_one_finding_on_the_outer_loop() -> None:
    source = _source(
        """
        model.eval()
        for batch in loader:
            tokens = batch
            for _ in range(16):
                tokens = torch.cat([tokens, model(tokens)[:, -1:].argmax(-1)], 1)
            print(tokens.tolist())
        """
    )
    found = findings(source)
    assert [row for row, _, _ in found] == [6]


@pytest.mark.parametrize(
    "store",
    ["outputs.append(model(x))", "self_cache[len(outputs)] = model(x)", "yield model(x)", "total = total + model(x)"],
)
def test_an_output_kept_beyond_its_iteration_makes_the_fix_unsafe(store: str) -> None:
    body = f"""
    model.eval()
    outputs, self_cache, total = [], {{}}, 0
    for x, y in loader:
        {store}
    """
    assert [applicability for _, _, applicability in findings(_source(body))] == ["unsafe"]


def test_fix_wraps_the_loop_keeps_its_comment_and_uses_the_modules_spelling_of_torch() -> None:
    source = _source(
        """
        model.eval()
        # score every batch
        for x, y in loader:
            print(criterion(model(x), y).item())
        """,
        header="import torch as th\n\ndef evaluate(model, loader, criterion):\n{body}\n",
    )
    expected = (
        "    # score every batch\n    with th.no_grad():\n        for x, y in loader:\n"
        "            print(criterion(model(x), y).item())\n"
    )
    assert expected in fixed(source)
    assert findings(fixed(source)) == []


def test_fix_imports_torch_where_the_module_does_not() -> None:
    source = "from torch import nn\n\n\ndef evaluate(model, val_loader):\n    model.eval()\n    for x in val_loader:\n        print(model(x).sum().item())\n"
    result = fixed(source)
    assert result.startswith("import torch\n") and "    with torch.no_grad():\n        for x in val_loader:" in result


def test_a_loop_that_calls_an_evaluation_function_is_not_reported_in_place_of_the_evaluation_loop() -> None:
    source = (
        "import torch\n\n\ndef run(model, val_loader):\n    model.eval()\n    model.warmup()\n"
        "    for x in val_loader:\n        print(model(x).sum().item())\n\n\n"
        "def main(models, val_loader):\n    for model in models:\n        run(model, val_loader)\n"
    )
    assert [row for row, _, _ in findings(source)] == [7]


@pytest.mark.parametrize(
    "after, applicability",
    [
        ("", "safe"),  # each iteration's output is dropped by the next one
        ("print(output.shape)", "unsafe"),  # the last iteration's output is read after the loop
        ("output = None\nprint(output)", "safe"),  # read only after it is bound again
    ],
)
def test_a_local_output_escapes_only_when_read_after_the_loop(after: str, applicability: str) -> None:
    body = "model.eval()\nfor x, y in loader:\n    output = model(x)\n    print(criterion(output, y).item())\n" + after
    assert [a for _, _, a in findings(_source(body))] == [applicability]


@pytest.mark.parametrize(
    "statement, applicability",
    [
        ("correct = sum((model(x).argmax(1) == y).sum().item() for x, y in loader)", "safe"),
        ("outputs = [model(x) for x, _ in loader]", "unsafe"),  # the outputs are what the comprehension keeps
        ("scores = {i: model(x).max().item() for i, (x, _) in enumerate(loader)}", "safe"),
    ],
)
def test_a_comprehension_over_batches_is_an_evaluation_loop_and_its_statement_is_wrapped(statement: str, applicability: str) -> None:
    source = _source(f"model.eval()\n{statement}\nreturn {statement.split(' =')[0]}")
    assert [(row, a) for row, _, a in findings(source)] == [(6, applicability)]
    assert f"    with torch.no_grad():\n        {statement}\n    return" in fixed(source)


def test_a_comprehension_under_no_grad_or_in_a_header_is_handled() -> None:
    silent = _source("model.eval()\nwith torch.no_grad():\n    return [model(x) for x, _ in loader]")
    assert findings(silent) == []
    header = _source("model.eval()\nfor row in [model(x) for x, _ in loader]:\n    print(row.sum().item())")
    assert [a for _, _, a in findings(header)] == [None]  # reported, with no statement of its own to wrap


def test_a_handful_of_iterations_that_pull_batches_is_still_an_evaluation() -> None:
    source = _source(
        """
        model.eval()
        batches = iter(loader)
        for _ in range(4):
            x, y = next(batches)
            print(criterion(model(x), y).item())
        """
    )
    assert len(findings(source)) == 1
    assert findings(source.replace("        x, y = next(batches)\n", "        x, y = batches_held[0]\n")) == []


def test_the_fix_keeps_the_lines_that_close_the_loop_as_they_were() -> None:
    source = _source(
        """
        model.eval()
        for x, y in loader:
            print(criterion(model(x), y).item())

            # print("next batch")
        return None
        """
    )
    result = fixed(source)
    assert "    with torch.no_grad():\n        for x, y in loader:\n            print(" in result
    assert '        # print("next batch")\n' in source  # the comment closes the loop's body ...
    assert '\n\n        # print("next batch")\n    return None\n' in result  # ... and is the same line after the fix
    compile(result, "case.py", "exec")


@pytest.mark.parametrize(("after_loop", "applicability"), [("return correct", "safe"), ("return correct, _", "unsafe")])
def test_a_name_rebound_by_two_tuple_targets_is_written_not_read(after_loop: str, applicability: str) -> None:
    source = _source(
        f"""
        model.eval()
        correct = 0
        for x, x_shifted, y in loader:
            _, clean = model(x).max(dim=1)
            _, shifted = model(x_shifted).max(dim=1)
            correct += int(clean.eq(shifted).sum().item())
        {after_loop}
        """
    )
    assert [fix for _, _, fix in findings(source)] == [applicability]


def test_a_loop_that_drops_every_output_times_the_model() -> None:
    """A warm-up or timing loop (`model(x)` as a statement) evaluates nothing; keeping the output for a metric, or a
    forward hook registered in the module (which may keep what each forward computes), makes it an evaluation."""
    text = (FIXTURES / "ok_timing_loop_drops_outputs.py").read_text(encoding="utf-8")
    assert findings(text) == []
    kept = text.replace("            model(x)\n", "            logits = model(x)\n            timings.append(logits.argmax(-1))\n")
    assert [row for row, _, _ in findings(kept)] == [22]
    hooked = text.replace("    model.eval()\n", "    model.eval()\n    model.register_forward_hook(keep)\n")
    assert [row for row, _, _ in findings(hooked)] == [23]


def test_a_scheduler_stepped_with_an_evaluation_loss_is_no_environment() -> None:
    source = _source(
        """
        model.eval()
        for x, y in loader:
            loss = criterion(model(x), y)
            scheduler.step(loss.item())
        """
    )
    assert len(findings(source)) == 1
    assert findings(source.replace("scheduler.step(", "state = env.step(")) == []


def test_a_model_put_in_eval_mode_by_every_caller_is_evaluated_in_the_callee() -> None:
    """ssd.pytorch's `test_net`: the caller runs `net.eval()`, then the function loops over the test set.
    Every same-module call must pass a model its caller left in eval mode; one that does not, or a
    caller that puts it back in training mode, leaves the function's loop unknown (silent)."""
    text = (FIXTURES / "bad_model_put_in_eval_by_caller.py").read_text(encoding="utf-8")
    assert [row for row, _, _ in findings(text)] == [20]
    assert findings(text.replace("    model.eval()\n", "    model.train()\n")) == []
    another_call = "    evaluate_all(model.train(), inputs, targets, loss_fn, device)\n    model.eval()\n"
    assert findings(text.replace("    model.eval()\n", another_call)) == []


@pytest.mark.parametrize(
    "correct, broken",
    [
        # the likeliest character instead of a drawn one: no sampler reads the forward pass's output
        ("char = np.random.choice(top_ch, p=p / p.sum())", "char = top_ch[0]"),
        # the hidden state carried from the last step with its graph: the sequence's graphs chain up
        ("    hidden = tuple([each.data for each in hidden])  # detach the hidden state from the last step's graph\n", ""),
    ],
)
def test_a_character_generator_is_reported_on_both_of_its_loops_once_its_guard_is_removed(correct: str, broken: str) -> None:
    """The char-RNN's priming loop and generating loop both call ``predict``, whose forward pass each reports."""
    text = (FIXTURES / "ok_sampling_generation_loop.py").read_text(encoding="utf-8")
    assert correct in text and findings(text) == []
    changed = text.replace(correct, broken)
    lines = changed.splitlines()
    loops = [row for row, line in enumerate(lines, start=1) if line.startswith("    for ") and "predict(" in lines[row]]
    assert len(loops) == 2
    assert [(row, "runs `net(...)`" in message) for row, message, _ in findings(changed)] == [(row, True) for row in loops]


@pytest.mark.parametrize("path, reported", [("test_model.py", False), ("model_test.py", False), ("train.py", True), ("notebook.ipynb", True)])
def test_a_test_function_is_a_test_only_in_a_file_of_tests(path: str, reported: bool) -> None:
    """pytest collects ``def test_*`` from ``test_*.py``/``*_test.py``; in a notebook (round 7: dataflowr's
    01_intro) or a script, ``def test_model(model, loader)`` is an evaluation."""
    text = "import torch\n\ndef test_model(model, test_loader):\n    model.eval()\n    for x, y in test_loader:\n        print(model(x).argmax(1))\n"
    result = lint_source(text, path, SETTINGS)
    assert [d.code for d in result.diagnostics] == (["TL404"] if reported else [])


GLOBAL_MODELS = """
import torch

checkpoint = torch.load("checkpoint.pth")
encoder = checkpoint["encoder"]
decoder = checkpoint["decoder"]
encoder.eval()
decoder.eval()


def evaluate(loader):
LOCAL
    scores = []
    for images, captions in loader:
        scores.append(decoder(encoder(images)).argmax(-1).tolist())
    return scores


if __name__ == "__main__":
MAIN
"""


@pytest.mark.parametrize(
    "local, main, reported",
    [
        ("", "    print(evaluate(loader))", True),
        ("", "    encoder.train()\n    decoder.train()\n    print(evaluate(loader))", False),  # put back in training mode first
        ("    encoder, decoder = build_models()", "    print(evaluate(loader))", False),  # local models, mode unknown
        ("", "    pass", False),  # never called by module code: whoever calls it decides the mode
    ],
)
def test_global_models_put_in_eval_mode_by_module_code_evaluate_in_the_function_it_calls(local: str, main: str, reported: bool) -> None:
    """Round 7 (sgrvinod's captioning eval.py, a miss): module code puts the global models in eval mode, then
    calls evaluate(), whose loop runs them over the whole test set."""
    text = GLOBAL_MODELS.replace("LOCAL\n", local + "\n" if local else "").replace("MAIN", main)
    assert [message.split("`")[1] for _, message, _ in findings(text)] == (["decoder(...)"] if reported else [])
