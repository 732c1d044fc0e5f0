"""The pre-commit hook definition points at the lint command and matches launch files."""

from __future__ import annotations

import re

import yaml

from tests.lint.helpers import ROOT


def test_pre_commit_hook_definition() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "flagscan-lint" and hook["entry"] == "flagscan lint" and hook["language"] == "python"
    pattern = re.compile(hook["files"])
    assert pattern.search("deploy/sglang-qwen.service") and pattern.search("launch.sh")
    assert not pattern.search("README.md")
