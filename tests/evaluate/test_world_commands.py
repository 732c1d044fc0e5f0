"""evaluate: GPU query commands (nvidia-smi, rocminfo) answered from the GPU profile as rules/world.toml describes them."""

from __future__ import annotations

from dataclasses import replace

from flagscan.evaluate.interp.values import Unknown
from flagscan.evaluate.world import World
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load

COMMANDS = load("world")["commands"]


def _world(spec: str, **changes) -> World:
    return World(replace(profile_from_spec(spec), **changes), {})


def test_every_command_entry_has_a_vendor_and_one_way_to_answer() -> None:
    assert COMMANDS
    for key, spec in COMMANDS.items():
        assert spec["vendor"] in ("nvidia", "amd"), key
        assert ("line" in spec) != ("query_option" in spec), key
        if "query_option" in spec:
            assert spec["fields"] and set(spec.get("units", {})) <= set(spec["fields"]), key


def test_nvidia_smi_query_fields_units_and_count() -> None:
    world = _world("h200", count=2)
    gpu = world.gpu
    out = world._subprocess([["nvidia-smi", "--query-gpu=memory.total,name,compute_cap", "--format=csv,noheader"]],
                            {}, as_result=False)
    line = f"{gpu.memory_mib} MiB, {gpu.name}, {gpu.capability[0]}.{gpu.capability[1]}"
    assert out == f"{line}\n{line}\n"
    bare = world._subprocess(["nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits"], {}, as_result=False)
    assert bare == f"{gpu.memory_mib}\n{gpu.memory_mib}\n"


def test_what_the_profile_does_not_say_is_unknown() -> None:
    no_memory = _world("h200", memory_mib=None)
    assert isinstance(no_memory._subprocess([["nvidia-smi", "--query-gpu=memory.total"]], {}, as_result=False), Unknown)
    assert isinstance(_world("h200")._subprocess([["nvidia-smi", "--query-gpu=power.draw"]], {}, as_result=False),
                      Unknown)
    assert isinstance(_world("h200")._subprocess([["nvidia-smi"]], {}, as_result=False), Unknown)
    assert isinstance(_world("mi300x")._subprocess([["nvidia-smi", "--query-gpu=name"]], {}, as_result=False), Unknown)


def test_rocminfo_line_for_amd_only() -> None:
    world = _world("mi300x")
    out = world._subprocess(["rocminfo | grep -i 'size:' | head -1"], {}, as_result=True)
    assert out.data["stdout"].splitlines() == [f"{world.gpu.memory_mib * 1024}(0x0) KB"] * world.gpu.count
    assert isinstance(_world("h200")._subprocess(["rocminfo | grep size"], {}, as_result=False), Unknown)
