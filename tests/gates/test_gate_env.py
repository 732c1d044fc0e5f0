"""gates: environment variables the resolution certainly sets or removes are known to the runtime
gates (flagscan.evaluate.gates.run.runtime_env); what it may have set stays unknown."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from flagscan.evaluate.gates.evaluator import Status
from flagscan.evaluate.gates.run import evaluate_gpu, runtime_env
from flagscan.evaluate.interp.envwrites import EnvCause, EnvSetting
from flagscan.extract.reads import load_reads
from flagscan.hardware import profile_from_spec
from tests.conftest import TREES

ROOT = TREES / "gates"
INVENTORY = SimpleNamespace(flags=[SimpleNamespace(dest="env_gated")])
CAUSE = (EnvCause("sglang/srt/server_args.py:1", "_handle_env", "", "setitem", True),)


@pytest.fixture(scope="module")
def reads(tmp_path_factory):
    return load_reads(ROOT, tmp_path_factory.mktemp("cache"), workers=1)


def _status(reads, written: dict[str, EnvSetting], given: dict[str, str]):
    env = runtime_env(SimpleNamespace(env=written), given)
    v = evaluate_gpu(ROOT, None, INVENTORY, reads, profile_from_spec("h200"), env=env).verdicts["env_gated"]
    return v.status, v.needs


@pytest.mark.parametrize("setting, given, status", [
    (EnvSetting("FIXTURE_ENV_GATE", "1", True, CAUSE), {}, Status.EFFECTIVE),      # set by the resolution
    (EnvSetting("FIXTURE_ENV_GATE", "0", True, CAUSE), {"FIXTURE_ENV_GATE": "1"}, Status.NO_OP),  # overwritten
    (EnvSetting("FIXTURE_ENV_GATE", None, True, CAUSE), {"FIXTURE_ENV_GATE": "1"}, Status.NO_OP),  # removed
])
def test_certain_writes_decide_the_gate(reads, setting, given, status) -> None:
    assert _status(reads, {setting.name: setting}, given)[0] is status


def test_a_write_that_may_happen_leaves_the_gate_conditional(reads) -> None:
    maybe = EnvSetting("FIXTURE_ENV_GATE", None, False, CAUSE)
    status, needs = _status(reads, {maybe.name: maybe}, {"FIXTURE_ENV_GATE": "1"})
    assert status is Status.CONDITIONAL and "env:FIXTURE_ENV_GATE" in needs
