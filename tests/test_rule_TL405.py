"""Static tests for TL405 missing-zero-grad beyond the fixtures.

Each ok trap is shown next to its twin without the guard, which must be
reported: the trap is silent for the reason it claims, not by accident.
Loop shapes, the finding's place and wording, and when no fix is offered
are checked on small cases.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from trainlint.engine import RuleSettings, fix_source, lint_source

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "TL405_missing_zero_grad"
SETTINGS = RuleSettings(frozenset({"TL405"}))


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
        ("ok_gradient_accumulation.py", "            optimizer.zero_grad(set_to_none=True)\n", "", "optimizer.step()"),
        (
            "ok_distributed_autograd.py",
            "with dist_autograd.context() as context_id:",
            "if True:",
            None,  # the distributed backward alone still keeps it silent
        ),
        ("ok_accelerate_accumulate.py", "                optimizer.zero_grad()\n", "", "optimizer.step()"),
        ("ok_deepspeed_engine.py", "model_engine.step()", "optimizer.step()", "optimizer.step()"),
        ("ok_gan_each_network_cleared.py", "            netG.zero_grad()\n", "", "optimizerG.step()"),
        ("ok_gan_each_network_cleared.py", "            netD.zero_grad()\n", "", "optimizerD.step()"),
        ("ok_step_helpers_clear.py", "            self.reset_grad()\n", "", "self.d_optimizer.step()"),
        ("ok_step_helpers_clear.py", "            p.grad = None", "            p.requires_grad_(True)", "optimizer.step()"),
        ("ok_step_helpers_clear.py", "            optimizer.zero_grad()\n", "", "optimizer.step(closure)"),
        ("ok_fresh_optimizer_each_iteration.py", "SGD([delta]", "SGD(model.parameters()", "delta_optimizer.step()"),
        ("ok_fresh_optimizer_each_iteration.py", "        x_in = latents.detach().clone()\n", "", "opt.step()"),
    ],
)
def test_ok_fixture_is_reported_once_its_guard_is_removed(fixture: str, correct: str, broken: str, reported: Optional[str]) -> None:
    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    assert correct in text and findings(text) == []
    twin = text.replace(correct, broken)
    if reported is None:
        assert findings(twin) == []
        twin = twin.replace("dist_autograd.backward(context_id, [loss])", "loss.backward()")
        reported = "dist_optim.step(context_id)"
    assert any(message.startswith(f"`{reported}`") for _, message, _ in findings(twin))


LOOP = """
import torch

def train(model, loader, optimizer, criterion, steps):
{body}
"""


def _source(body: str) -> str:
    return LOOP.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))


@pytest.mark.parametrize(
    "body",
    [
        # for over range, with the batch from an iterator
        """
        it = iter(loader)
        for step in range(steps):
            x, y = next(it)
            criterion(model(x), y).backward()
            optimizer.step()
        """,
        # zip of two loaders
        """
        for (x, y), (u, v) in zip(loader, loader):
            loss = criterion(model(x), y) + criterion(model(u), v)
            loss.backward()
            optimizer.step()
        """,
        # while True with a break
        """
        it = iter(loader)
        while True:
            batch = next(it, None)
            if batch is None:
                break
            criterion(model(batch[0]), batch[1]).backward()
            optimizer.step()
        """,
        # cleared once per epoch, outside the batch loop
        """
        for epoch in range(steps):
            optimizer.zero_grad()
            for x, y in loader:
                criterion(model(x), y).backward()
                optimizer.step()
        """,
    ],
)
def test_any_loop_shape_is_a_training_loop(body: str) -> None:
    found = findings(_source(body))
    assert len(found) == 1 and found[0][1].startswith("`optimizer.step()`") and found[0][2] == "unsafe"


def test_nested_loops_report_the_step_once_and_say_where_the_clearing_is() -> None:
    found = findings(_source(
        """
        for epoch in range(steps):
            optimizer.zero_grad()
            for x, y in loader:
                criterion(model(x), y).backward()
                optimizer.step()
        """
    ))
    assert len(found) == 1
    assert "(`optimizer.zero_grad()` runs outside the loop, not every step)" in found[0][1]


def test_fix_clears_the_stepping_optimizer_before_the_backward_and_keeps_comments() -> None:
    source = _source(
        """
        for x, y in loader:
            loss = criterion(model(x), y)
            # backpropagate
            loss.backward(); optimizer.step()
        """
    )
    assert "        # backpropagate\n        optimizer.zero_grad(set_to_none=True)\n        loss.backward(); optimizer.step()\n" in fixed(source)
    assert findings(fixed(source)) == []


def test_no_fix_where_the_backward_runs_in_another_function() -> None:
    source = _source(
        """
        def forward_backward(x, y):
            criterion(model(x), y).backward()

        for x, y in loader:
            forward_backward(x, y)
            optimizer.step()
        """
    )
    found = findings(source)
    assert len(found) == 1 and found[0][2] is None


@pytest.mark.parametrize(
    "clearing",
    [
        "optimizer.zero_grad()",
        "model.zero_grad(set_to_none=True)",
        "zero_grad(model)",
        "for p in model.parameters(): p.grad.zero_()",
        "for p in model.parameters(): p.grad.data.zero_()",
        "for p in model.parameters(): del p.grad",
    ],
)
def test_every_way_of_clearing_counts(clearing: str) -> None:
    body = f"""
    for x, y in loader:
        {clearing}
        criterion(model(x), y).backward()
        optimizer.step()
    """
    assert findings(_source(body)) == []


def test_one_optimizer_spelled_two_ways_is_one_optimizer() -> None:
    """``optimizers["model"]`` and ``optimizers['model']`` step one optimizer, which the loop clears; another key is
    another optimizer, which nothing clears."""
    loop = textwrap.dedent(
        """
        import torch


        def train(model, loader, optimizers, accumulate):
            for step, (x, y) in enumerate(loader):
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                if step % accumulate == 0:
                    optimizers["model"].step()
                    optimizers["model"].zero_grad()
                else:
                    optimizers[{key}].step()
        """
    )
    for screen in (True, False):  # the rule's own answer too: the pre-screen takes the two spellings for one
        rows = {key: [d.location.row for d in lint_source(loop.format(key=key), "case.py", SETTINGS, screen=screen).diagnostics] for key in ("'model'", "'head'")}
        assert rows == {"'model'": [], "'head'": [13]}


def test_without_an_optimizer_step_there_is_nothing_to_report() -> None:
    body = """
    for x, y in loader:
        criterion(model(x), y).backward()
    optimizer.step()
    """
    assert findings(_source(body)) == []


@pytest.mark.parametrize(
    "construction, stepped, reported",
    [
        ("adam = torch.optim.Adam(model.parameters())", "adam.step()", True),
        ("self_solver = optim.SGD(model.parameters(), lr=0.1)", "self_solver.step()", True),
        ("schedule = torch.optim.lr_scheduler.StepLR(optimizer, 10)", "schedule.step()", False),
        ("engine = make_engine(model)", "engine.step()", False),
    ],
)
def test_an_optimizer_is_known_by_its_construction_too(construction: str, stepped: str, reported: bool) -> None:
    source = (
        "import torch\nfrom torch import optim\n\n\ndef train(model, loader, optimizer, criterion):\n"
        f"    {construction}\n    for x, y in loader:\n        criterion(model(x), y).backward()\n        {stepped}\n"
    )
    assert [message.split("`")[1] for _, message, _ in findings(source)] == ([stepped] if reported else [])


GAN = '''
import torch


def train_gan(G, D, loader, {g}, {d}, bce, z_dim=64):
    for real, _ in loader:
        fake = G(torch.randn(real.size(0), z_dim))
        {d}.zero_grad()
        d_loss = bce(D(real), torch.ones(len(real), 1)) + bce(D(fake.detach()), torch.zeros(len(real), 1))
        d_loss.backward()
        {d}.step()
        g_loss = bce(D(fake), torch.ones(len(real), 1))
        g_loss.backward()
        {g}.step()
'''


@pytest.mark.parametrize(("g", "d"), [("opt_g", "opt_d"), ("optG", "optD"), ("opt_gen", "opt_disc"), ("optimizer_G", "optimizer_D")])
def test_a_gan_pair_named_opt_reports_the_optimizer_never_cleared(g: str, d: str) -> None:
    """Parameters named like a GAN's pair of optimizers are optimizers: the discriminator's is cleared before its
    backward, the generator's never is (its gradients pile up); clearing it too silences the loop."""
    source = GAN.format(g=g, d=d)
    assert [(row, f"`{g}.step()`" in message) for row, message, _ in findings(source)] == [(14, True)]
    cleared = source.replace("        g_loss.backward()", f"        {g}.zero_grad()\n        g_loss.backward()")
    assert findings(cleared) == []


DICT_OF_OPTIMIZERS = """
import torch

def train(G, D, loader):
    opts = {"g": torch.optim.Adam(G.parameters()), "d": torch.optim.Adam(D.parameters())}
    for z, real in loader:
        opts["d"].zero_grad()
        d_loss = D(real).mean() - D(G(z).detach()).mean()
        d_loss.backward()
        opts["d"].step()
CLEAR_G
        g_loss = -D(G(z)).mean()
        g_loss.backward()
        opts["g"].step()
"""


@pytest.mark.parametrize("container", ["opts", "optimizers", "self.optimizers"])
def test_optimizers_held_in_a_container_are_told_apart_by_their_key(container: str) -> None:
    """A GAN's optimizers in a dict: the discriminator's is cleared, the generator's never is, and only it is
    reported; clearing it too (by the same key) silences the loop."""
    source = DICT_OF_OPTIMIZERS.replace("opts", container)
    found = findings(source.replace("CLEAR_G\n", ""))
    assert [message.split("`")[1] for _, message, _ in found] == [f'{container}["g"].step()']
    assert f'        {container}["g"].zero_grad(set_to_none=True)\n        g_loss.backward()' in fixed(source.replace("CLEAR_G\n", ""))
    assert findings(source.replace("CLEAR_G", f'        {container}["g"].zero_grad()')) == []
