"""target-torch: read from the project's dependency on torch, overridable in [tool.trainlint], and what TL201's
fixes write for it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from trainlint.config import ConfigError, parse_config
from trainlint.engine import fix_source
from trainlint.settings import Overrides, build_settings
from trainlint.target_torch import declared_torch, parse_torch_version

SCRIPT = textwrap.dedent(
    """
    import torch
    def step(device: torch.device):
        return torch.cuda.amp.GradScaler()
    """
).lstrip()
OLD_SCALER = 'torch.cuda.amp.GradScaler(enabled=device.type == "cuda")'
NEW_SCALER = 'torch.amp.GradScaler("cuda", enabled=device.type == "cuda")'


@pytest.mark.parametrize("text, version", [("2.3", (2, 3)), ("2.3.1", (2, 3)), ("1.13", (1, 13)), ("2", None), ("", None), ("v2.3", None)])
def test_versions_are_major_dot_minor(text: str, version) -> None:
    assert parse_torch_version(text) == version


@pytest.mark.parametrize(
    "files, declared",
    [
        ({"pyproject.toml": '[project]\ndependencies = ["numpy", "torch>=2.1,<3"]\n'}, "2.1"),
        ({"requirements.txt": "torchvision>=0.20\ntorch==1.13.1  # pinned\n"}, "1.13"),
        ({"requirements-dev.txt": 'torch[opt-einsum] ~= 2.4 ; python_version >= "3.9"\n'}, "2.4"),
        ({"pyproject.toml": '[project]\ndependencies = ["torch>=2.2"]\n', "requirements.txt": "torch>=2.0\n"}, "2.0"),
        ({"requirements.txt": "torch\ntorch<2.3\n"}, None),  # nothing bounds it from below
        ({"pyproject.toml": "[project\n"}, None),  # unreadable: says nothing
        ({}, None),
    ],
)
def test_the_lowest_torch_the_project_allows_is_declared(tmp_path: Path, files: dict, declared) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert declared_torch(tmp_path) == declared


def _fixed_in(folder: Path, config: dict) -> str:
    settings = build_settings(parse_config(config, folder / "pyproject.toml"), Overrides(select=("TL201",)), folder)
    return fix_source(SCRIPT, "m.py", settings.rule_settings_for(folder / "m.py"), unsafe_fixes=True).text


def test_the_dependency_decides_the_fix_and_the_setting_overrides_it(tmp_path: Path) -> None:
    assert OLD_SCALER in _fixed_in(tmp_path, {})  # nothing known: torch 1.10 is assumed
    (tmp_path / "requirements.txt").write_text("torch>=2.3\n")
    assert NEW_SCALER in _fixed_in(tmp_path, {})
    assert OLD_SCALER in _fixed_in(tmp_path, {"target-torch": "2.2"})
    assert OLD_SCALER in _fixed_in(tmp_path, {"options": {"TL201": {"target-torch": "1.13"}}})  # the rule's own wins


def test_a_bad_target_names_the_key() -> None:
    with pytest.raises(ConfigError, match='`target-torch` must be a torch version written as a string, such as "2.3"'):
        parse_config({"target-torch": "newest"}, None)
    with pytest.raises(ConfigError, match=r"`options.TL201.target-torch` must be a torch version such as \"2.3\""):
        parse_config({"options": {"TL201": {"target-torch": "2.x"}}}, None)
