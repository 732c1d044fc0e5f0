"""CLI option parsing: options anywhere before `--`, GPU lists on every command, stdin, bad input.

Runs against the small lint fixture tree (fixtures/trees/lint), where fa3 is refused
off SM90 and --enable-allreduce-fusion is read only on SM90 (a no-op elsewhere).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from flagscan.cli import main

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "fixtures" / "trees" / "lint"
UNIT = "[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --model-path m --tp-size 2 \\\n" \
       "    --stream-output --attention-backend fa3\n"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cli-cache")


@pytest.fixture()
def unit(tmp_path) -> Path:
    path = tmp_path / "u.service"
    path.write_text(UNIT)
    return path


def run(cache: Path, *args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["-q", "--sglang", str(TREE), "--cache-dir", str(cache), *args], input=stdin)


def one_error_line(result) -> bool:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    return len(lines) == 1 and lines[0].startswith("flagscan: error: ") and "Usage:" not in result.output


# -- 2. options after the launch file; only what follows `--` is the launch argv ---------------

@pytest.mark.parametrize("command", ["args", "resolve"])
def test_options_after_the_file_are_options(command, cache, unit) -> None:
    extra = ["--gpu", "h200"] if command == "resolve" else []
    result = run(cache, command, str(unit), *extra, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == f"flagscan/{command}/v1"
    if command == "args":
        assert doc["commands"][0]["values"]["tp_size"]["value"] == 2
    else:
        assert doc["settings"]["tp_size"]["value"] == 2 and doc["hardware"]["table_entry"] == "h200"


def test_words_after_the_double_dash_are_the_launch_command_even_when_they_look_like_options(cache) -> None:
    result = run(cache, "args", "--format", "json", "--", "--model-path", "m", "--format", "x", "--tp-size", "3")
    assert result.exit_code in (0, 1), result.output
    values = json.loads(result.stdout)["commands"][0]["values"]
    assert values["tp_size"]["value"] == 3


def test_a_file_and_a_command_after_the_double_dash_are_refused(cache, unit) -> None:
    result = run(cache, "resolve", str(unit), "--gpu", "h200", "--", "--model-path", "m")
    assert result.exit_code == 2 and one_error_line(result)


def test_an_unknown_option_before_the_double_dash_is_one_line_and_exit_2(cache, unit) -> None:
    result = run(cache, "resolve", str(unit), "--gpu", "h200", "--model-path", "m")
    assert result.exit_code == 2 and one_error_line(result)


def test_resolve_takes_a_gpu_list_with_one_payload_per_gpu(cache, unit) -> None:
    result = run(cache, "resolve", str(unit), "--gpu", "h200,rtx-pro-6000", "--format", "json")
    assert result.exit_code == 1, result.output  # fa3 is refused on rtx-pro-6000
    doc = json.loads(result.stdout)
    assert sorted(doc["gpus"]) == ["h200", "rtx-pro-6000"]
    assert doc["gpus"]["h200"]["hardware"]["table_entry"] == "h200"
    # no model config: the startup phase may only say what the model would decide (not certain)
    assert not [r for r in doc["gpus"]["h200"]["rejections"] if r["certain"]]
    assert [r for r in doc["gpus"]["rtx-pro-6000"]["rejections"] if r["certain"]]
    text = run(cache, "resolve", str(unit), "--gpu", "h200,rtx-pro-6000")
    assert [line for line in text.stdout.splitlines() if line.startswith("== ")] == ["== h200", "== rtx-pro-6000"]


def test_lint_takes_a_gpu_list_and_says_where_each_finding_holds(cache, unit) -> None:
    result = run(cache, "lint", str(unit), "--gpu", "h200,rtx-pro-6000", "--format", "json")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    found = {(d["code"], d["flag"]): d["gpus"] for d in doc["diagnostics"]}
    assert found[("FS002", "--stream-output")] == ["h200", "rtx-pro-6000"]  # once, for both
    assert [g for (code, _f), g in found.items() if code == "FS301"] == [["rtx-pro-6000"]]
    assert len(doc["diagnostics"]) == len(found)
    assert sorted(doc["gpus"]) == ["h200", "rtx-pro-6000"]
    single = json.loads(run(cache, "lint", str(unit), "--gpu", "h200", "--format", "json").stdout)
    assert all("gpus" not in d for d in single["diagnostics"])
    assert single["hardware"]["table_entry"] == "h200"


def test_lint_fix_with_a_gpu_list_removes_only_what_is_a_no_op_on_every_gpu(cache, tmp_path) -> None:
    path = tmp_path / "a.cmd"
    path.write_text("--model-path m --enable-allreduce-fusion --tp-size 2\n")
    both = run(cache, "lint", str(path), "--gpu", "rtx-pro-6000,a100-80gb", "--diff")
    assert both.exit_code == 1 and "-" + path.read_text().rstrip("\n") in both.stdout
    assert "+--model-path m --tp-size 2" in both.stdout
    mixed = run(cache, "lint", str(path), "--gpu", "h200,a100-80gb", "--diff")
    assert mixed.exit_code == 0 and mixed.stdout == ""
    assert "--enable-allreduce-fusion not removed" in mixed.stderr


# -- 3. small defects -------------------------------------------------------------------------

def test_lint_dash_reads_the_launch_file_from_stdin(cache) -> None:
    result = run(cache, "lint", "--gpu", "h200", "--format", "json", "-", stdin=UNIT)
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert {d["location"]["path"] for d in doc["diagnostics"]} == {"<stdin>"}
    assert "FS002" in {d["code"] for d in doc["diagnostics"]}
    fixed = run(cache, "lint", "--fix", "-", stdin=UNIT)
    assert fixed.exit_code == 0
    assert fixed.stdout == UNIT.replace("--stream-output", "--incremental-output")


@pytest.mark.parametrize("command", [["lint"], ["args"], ["resolve", "--gpu", "h200"], ["report", "--gpu", "h200"]])
def test_a_directory_as_file_is_one_line_and_exit_2(command, cache, tmp_path) -> None:
    result = run(cache, *command, str(tmp_path))
    assert result.exit_code == 2 and one_error_line(result), result.output
    assert "directory" in result.stderr


def test_graph_refuses_a_text_format_it_does_not_have(cache) -> None:
    result = CliRunner().invoke(main, ["-q", "--sglang", str(TREE), "--cache-dir", str(cache), "--format", "text",
                                       "graph"])
    assert result.exit_code == 2 and one_error_line(result)
    assert result.stdout == ""
    default = run(cache, "graph")
    assert default.exit_code == 0 and json.loads(default.stdout)["schema"] == "flagscan/graph/v1"


BAD_NUMBERS = [["--gpu-count", "0"], ["--gpu-memory", "0"], ["--gpu-memory", "0GiB"], ["--gpu", ""],
               ["--gpu", ","], ["--gpu", "h200,"], ["--gpu-count", "-1"]]


@pytest.mark.parametrize("bad", BAD_NUMBERS, ids=lambda b: " ".join(b) or "empty")
@pytest.mark.parametrize("command", ["lint", "resolve", "report"])
def test_bad_hardware_numbers_are_one_line_and_exit_2(command, bad, cache, unit) -> None:
    gpu = [] if bad[0] == "--gpu" else ["--gpu", "h200"]
    result = run(cache, command, *gpu, *bad, str(unit))
    assert result.exit_code == 2, result.output
    assert one_error_line(result), result.output
