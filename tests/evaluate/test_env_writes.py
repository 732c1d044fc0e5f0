"""evaluate: environment variables SGLang's code sets or clears are recorded with their cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from flagscan.evaluate.interp.base import Dead
from flagscan.evaluate.interp.envwrites import ENV_OID, collect, known_env
from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.interp.state import State
from flagscan.evaluate.interp.values import ModuleVal
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from tests.evaluate.helpers import write_tree

# The shape of 0.5.23's sglang/srt/environ.py: a descriptor-named field whose set() writes os.environ.
ENVIRON = '''
import os

class EnvField:
    def __init__(self, default):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def get(self):
        value = os.getenv(self.name)
        return self.default if value is None else value

    def set(self, value):
        os.environ[self.name] = str(value)

    def clear(self):
        os.environ.pop(self.name, None)

class Envs:
    SGLANG_A = EnvField("0")
    SGLANG_B = EnvField("0")

envs = Envs()
'''

HOOKS = '''
import os
from sglang.srt.environ import envs

def hook(flag, gpu_is_new):
    os.environ["PLAIN"] = "1"
    os.environ.setdefault("KEPT", "new")
    envs.SGLANG_A.set(True)
    if flag:
        envs.SGLANG_B.set(1)
    if gpu_is_new:
        os.environ["MAYBE"] = "x"
    del os.environ["GONE"]
    os.environ.pop("POPPED", None)
    os.environ.pop("NEVER_SET", None)
    return envs.SGLANG_A.get()
'''


def _run(tmp_path: Path, args: list, env: dict[str, str]):
    from flagscan.evaluate.interp.values import Unknown

    root = write_tree(tmp_path / "tree", {"sglang/srt/environ.py": ENVIRON, "sglang/srt/hooks.py": HOOKS})
    world = World(profile_from_spec("h200"), dict(env))
    interp = Interpreter(ModuleStore(root, tmp_path / "cache"), world)
    state = State({ENV_OID: {}}, {})
    module = interp.import_module("sglang.srt.hooks", state)
    assert isinstance(module, ModuleVal)
    fn = interp.deref(module.globals["hook"], state)
    args = [Unknown("gpu", {"gpu"}) if a == "?" else a for a in args]
    try:
        value = interp.call(fn, args, {}, state, module)
    except Dead:
        value = Dead
    return value, collect(state)


def test_writes_are_recorded_with_their_values_and_causes(tmp_path: Path) -> None:
    value, env = _run(tmp_path, [True, "?"], {"KEPT": "given", "GONE": "1", "POPPED": "2"})
    assert value == "True"   # the code reads back what it set
    assert env["PLAIN"].to_json()["value"] == "1" and env["PLAIN"].certain
    assert "KEPT" not in env  # setdefault of a variable the command gives changes nothing
    # envs.X.set(...) is attributed to the hook that called it, not to environ.py
    a = env["SGLANG_A"]
    assert (a.value, a.certain) == ("True", True)
    assert a.because[-1].location == "sglang/srt/hooks.py:8" and a.because[-1].handler == "hook"
    assert env["SGLANG_B"].value == "1" and env["SGLANG_B"].because[-1].condition == "flag"
    # a write on a path that assumed an unknown test is not certain
    assert env["MAYBE"].certain is False
    assert env["GONE"].to_json() == {"value": None, "certain": True, "because": [
        {"location": "sglang/srt/hooks.py:13", "handler": "hook", "condition": "", "how": "del", "certain": True}]}
    assert env["POPPED"].unset and env["POPPED"].because[-1].how == "pop"
    assert "NEVER_SET" not in env   # removing what is not there changes nothing


def test_setdefault_writes_when_not_given(tmp_path: Path) -> None:
    _, env = _run(tmp_path, [False, False], {"GONE": "1"})
    assert env["KEPT"].value == "new" and env["KEPT"].because[-1].how == "setdefault"
    assert "SGLANG_B" not in env and "MAYBE" not in env and "POPPED" not in env


@pytest.mark.parametrize("certain", [True, False])
def test_runtime_env_knows_only_certain_writes(tmp_path: Path, certain: bool) -> None:
    _, env = _run(tmp_path, [True, True if certain else "?"], {"GONE": "1"})
    seen = known_env({"MAYBE": "given"}, env)
    assert seen.get("PLAIN") == "1" and seen["GONE"] is None
    assert seen.get("MAYBE") == ("x" if certain else None)
    # the gates' world (open environment) answers a removed variable as unset, an unknown one as unknown
    world = World(profile_from_spec("h200"), seen, env_open=True)
    assert world.env_get("GONE", "dflt") == "dflt" and world.env_contains("GONE") is False
    assert world.env_get("PLAIN") == "1"
    assert (world.env_get("MAYBE") == "x") if certain else hasattr(world.env_get("MAYBE"), "needs")
