"""Every rule data file parses and has the shape its reader expects."""

from __future__ import annotations

from importlib import resources

import pytest

from flagscan.ruledata import load

FILES = sorted(p.name[:-5] for p in resources.files("flagscan.rules").iterdir() if p.name.endswith(".toml"))


def test_every_file_is_documented() -> None:
    readme = (resources.files("flagscan.rules") / "README.md").read_text()
    for name in FILES:
        assert f"`{name}.toml`" in readme, name


@pytest.mark.parametrize("name", FILES)
def test_parses(name: str) -> None:
    assert isinstance(load(name), dict) and load(name)


def test_gpu_table_entries() -> None:
    data = load("gpus")
    assert {"cuda", "hip", "count"} <= set(data["defaults"])
    seen: set[str] = set()
    for key, entry in data["gpu"].items():
        assert entry["vendor"] in ("nvidia", "amd"), key
        assert isinstance(entry["name"], str) and entry["name"]
        major, minor = entry["capability"]
        assert 7 <= major <= 12 and 0 <= minor <= 9, key
        assert isinstance(entry["memory_mib"], int) and entry["memory_mib"] > 8000, key
        for alias in [key, *entry.get("aliases", [])]:
            assert alias not in seen, alias
            seen.add(alias)
    # The GPUs the resolution engine issue names must all be there.
    for needed in ("a100-40gb", "a100-80gb", "a10g", "l4", "l40s", "rtx-4090", "h100-pcie", "h100", "h200",
                   "h20", "gh200", "b200", "b300", "gb200", "rtx-5090", "rtx-pro-6000", "rtx-pro-6000-server",
                   "dgx-spark", "mi300x", "mi325x", "mi355x"):
        assert needed in data["gpu"], needed


def test_world_meanings_are_known() -> None:
    data = load("world")
    meanings = {v for section in ("torch", "python", "records", "sglang") for v in data[section].values()}
    prefixes = ("const:", "unknown:", "gpu.", "env.", "path.", "nvml:", "model.")
    plain = {"partial", "decorator", "logger", "log", "package", "empty", "subprocess", "subprocess_output", "fields",
             "is_dataclass", "pure", "regex", "copy", "defstruct", "struct_fields", "struct_field", "type_hints",
             "get_origin", "get_args", "raw_setattr", "raw_getattr", "wraps", "contextmanager", "defaultdict",
             "package.version", "version.parse", "holds", "view"}
    for meaning in meanings:
        assert meaning in plain or meaning.startswith(prefixes), meaning
    # attribute values: a constant, a GPU fact, another name of one object, or what an outside
    # base gives each class built on it
    for path, meaning in data["values"].items():
        assert meaning == "class.field_names" or meaning.startswith(("const:", "gpu.", "same:")), (path, meaning)


def test_cli_and_resolution_entries() -> None:
    cli = load("cli")
    assert {"module", "class", "method", "parser_builders"} <= set(cli["entry"])
    assert cli["generator"]["functions"] and cli["deprecation"]["replacement_patterns"]
    res = load("resolution")
    assert {"module", "class", "constructor"} <= set(res["entry"])
    assert res["declarations"]["functions"]


def test_startup_entries() -> None:
    data = load("startup")
    assert data["entry"] and data["registry"] and data["needs"]["config"]
    for entry in data["entry"]:
        assert {"name", "phase", "class", "args"} <= set(entry) and entry["phase"] in ("startup", "serving")
        assert entry["class"].startswith("sglang.") and entry["class"].count(".") >= 2
        steps = entry.get("prelude", [])
        values = [*entry["args"].values(), *entry.get("attributes", {}).values(),
                  *(v for s in steps for v in [*s.get("args", {}).values(), *s.get("attributes", {}).values()])]
        assert "method" not in entry or entry["method"].isidentifier()
        assert entry.get("optional", False) in (True, False)
        while values:
            value = values.pop()
            if isinstance(value, dict) and "call" in value:  # what a tree function returns: { call, args }
                assert set(value) <= {"call", "args"} and value["call"].startswith("sglang."), value
                values.extend(value.get("args", []))
                continue
            if isinstance(value, dict) and "attributes" in value:  # a bare instance: { class, attributes, methods }
                assert set(value) <= {"class", "attributes", "methods"} and value["class"].startswith("sglang."), value
                assert all(m.isidentifier() for m in value.get("methods", [])), value
                values.extend(value["attributes"].values())
                continue
            if isinstance(value, dict):  # an instance of a tree class: { class, args }
                assert set(value) <= {"class", "args"} and value["class"].startswith("sglang."), value
                values.extend(value.get("args", {}).values())
                continue
            assert value == "record" or value.split(":", 1)[0] in ("const", "unknown", "setting", "entry"), value
        for s in steps:  # a function called with args, or methods of a class on an instance holding attributes
            assert (set(s) == {"function", "args"} and s["function"].startswith("sglang.")) or (
                set(s) == {"class", "methods", "attributes"} and s["class"].startswith("sglang.")
                and s["methods"] and all(m.isidentifier() for m in s["methods"])), s
        assert all(isinstance(m, str) and m.isidentifier() for m in entry.get("then", []))
    for registry in data["registry"]:
        assert registry["kind"] == "module-attribute" and registry["attribute"].isidentifier()
        assert registry["function"].startswith("sglang.")
    assert all(isinstance(p, str) and p for p in data["needs"]["config"])
