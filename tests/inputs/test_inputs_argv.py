"""inputs: argv -> flag values against a small hand-built inventory (argparse semantics)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from flagscan.diagnostics import Diagnostic, ProblemKind, Severity
from flagscan.facts.flags import Flag, Inventory, Location, UnknownValue
from flagscan.inputs import ParsedCommand, command_from_argv, parse_command, read_launch_file
from flagscan.lint.findings import input_diagnostics

L = Location("sglang/srt/server_args.py", 100)
FLAGS = (
    Flag("model_path", ("--model-path", "--model"), L, type="str", required=True),
    Flag("tp_size", ("--tensor-parallel-size", "--tp-size", "--tp"), L, type="int", default=1),
    Flag("mem_fraction_static", ("--mem-fraction-static",), L, type="float"),
    Flag("attention_backend", ("--attention-backend",), L, type="str", choices=("triton", "fa3", "flashinfer")),
    Flag("speculative_algorithm", ("--speculative-algorithm",), L, type="str",
         choices=("EAGLE", UnknownValue("SpeculativeAlgorithm.names()"))),
    Flag("speculative_num_steps", ("--speculative-num-steps",), L, type="int"),
    Flag("speculative_eagle_topk", ("--speculative-eagle-topk",), L, type="int"),
    Flag("enable_flashinfer_allreduce_fusion", ("--enable-flashinfer-allreduce-fusion",), L, action="store_true"),
    Flag("enable_fused_moe_sum_all_reduce", ("--enable-fused-moe-sum-all-reduce",), L, action="store_true"),
    Flag("lora_paths", ("--lora-paths",), L, type="str", nargs="+", action="LoRAPathAction"),
    Flag("cuda_graph_bs", ("--cuda-graph-bs",), L, type="int", nargs=2),
    Flag("json_model_override_args", ("--json-model-override-args",), L, type="json_type", choices=("{}",)),
    Flag("hybrid_kvcache_ratio", ("--hybrid-kvcache-ratio",), L, action="DeprecatedAction", semantics="ignore",
         deprecated=True, replacement="--swa-full-tokens-ratio"),
    Flag("incremental_streaming_output", ("--stream-output",), L, action="DeprecatedStoreTrueAction",
         semantics="store_true", deprecated=True, replacement="--incremental-streaming-output"),
    Flag("incremental_streaming_output", ("--incremental-streaming-output",), L, action="store_true"),
    Flag("experts_shared_outer_loras", ("--experts-shared-outer-loras",), L, action="BooleanOptionalAction"),
    Flag("served_model_name", ("--served-model-name",), L, type="str"),
    Flag("config", ("--config",), L, type="str"),
)
INVENTORY = Inventory(FLAGS, allow_abbrev=True, config_option="--config")
NO_ABBREV = replace(INVENTORY, allow_abbrev=False)


def parse(*argv: str, inventory: Inventory = INVENTORY, model: bool = True) -> ParsedCommand:
    extra = ("--model-path", "m") if model else ()
    return parse_command(command_from_argv(["python", "-m", "sglang.launch_server", *extra, *argv]), inventory)


def diagnostics(parsed: ParsedCommand) -> list[Diagnostic]:
    """The input stage's problems as the lint rules word them (code, severity, data)."""
    return input_diagnostics(parsed)


def codes(parsed: ParsedCommand) -> list[str]:
    return [d.code for d in diagnostics(parsed)]


def value(parsed: ParsedCommand, dest: str) -> object:
    return parsed.values[dest].value


def test_aliases_equals_and_types() -> None:
    parsed = parse("--tp", "4", "--mem-fraction-static=0.85", "--served-model-name", "-x y")
    assert codes(parsed) == []
    assert value(parsed, "tp_size") == 4 and parsed.values["tp_size"].option == "--tp"
    assert value(parsed, "mem_fraction_static") == 0.85
    assert value(parsed, "served_model_name") == "-x y"  # has a space: argparse takes it as a value
    assert set(parsed.values) == {"model_path", "tp_size", "mem_fraction_static", "served_model_name"}


def test_store_true_and_boolean_optional() -> None:
    parsed = parse("--enable-flashinfer-allreduce-fusion", "--no-experts-shared-outer-loras")
    assert value(parsed, "enable_flashinfer_allreduce_fusion") is True
    assert value(parsed, "experts_shared_outer_loras") is False
    assert codes(parsed) == []


def test_nargs() -> None:
    parsed = parse("--lora-paths", "a", "b=c", "--cuda-graph-bs", "1", "2")
    assert value(parsed, "lora_paths") == ["a", "b=c"] and value(parsed, "cuda_graph_bs") == [1, 2]
    parsed = parse("--lora-paths", "--tp", "2")
    assert codes(parsed) == ["FS003"] and "lora_paths" not in parsed.values and value(parsed, "tp_size") == 2
    assert codes(parse("--cuda-graph-bs", "1")) == ["FS003"]


def test_choices_types_and_unknown_choices() -> None:
    parsed = parse("--attention-backend", "bogus", "--tp", "four", "--speculative-algorithm", "NEXTN",
                   "--json-model-override-args", '{"a": 1}')
    assert codes(parsed) == ["FS003", "FS003"]
    backend, tp = diagnostics(parsed)
    assert backend.data["reason"] == "choice" and backend.location.column == parsed.command.args[3].column
    assert tp.data["reason"] == "type" and tp.severity is Severity.ERROR
    assert "attention_backend" not in parsed.values and "tp_size" not in parsed.values
    # An UnknownValue among the choices and a custom type both mean: not checked here.
    assert value(parsed, "speculative_algorithm") == "NEXTN"
    assert value(parsed, "json_model_override_args") == '{"a": 1}'


def test_negative_numbers_are_values() -> None:
    assert value(parse("--speculative-eagle-topk", "-1"), "speculative_eagle_topk") == -1


def test_abbreviations_when_allowed() -> None:
    parsed = parse("--enable-flashinfer-allreduce", "--mem-frac", "0.5")
    assert codes(parsed) == ["FS006", "FS006"]
    assert all(d.severity is Severity.INFO for d in diagnostics(parsed))
    assert diagnostics(parsed)[0].data["resolved"] == "--enable-flashinfer-allreduce-fusion"
    assert value(parsed, "enable_flashinfer_allreduce_fusion") is True
    assert parsed.values["mem_fraction_static"].option == "--mem-fraction-static"
    ambiguous = parse("--spec", "3", "--tp", "2")
    # argparse refuses an ambiguous prefix: FS008 (an error), not FS006 (an abbreviation it expands)
    assert [p.kind for p in ambiguous.problems] == [ProblemKind.AMBIGUOUS_OPTION]
    assert codes(ambiguous) == ["FS008"] and diagnostics(ambiguous)[0].severity is Severity.ERROR
    assert set(diagnostics(ambiguous)[0].data["candidates"]) == {
        "--speculative-algorithm", "--speculative-num-steps", "--speculative-eagle-topk"}
    assert value(ambiguous, "tp_size") == 2  # the ambiguous flag's value is skipped, not misread


def test_abbreviations_when_not_allowed() -> None:
    parsed = parse("--enable-flashinfer-allreduce", inventory=NO_ABBREV)
    assert codes(parsed) == ["FS001"]
    assert diagnostics(parsed)[0].data["suggestion"] == "--enable-flashinfer-allreduce-fusion"


def test_unknown_flags_suggestions_and_stray_values() -> None:
    parsed = parse("--tp_size", "2", "--mem-fraction-statc", "0.8", "--enable-fused-moe-sum-all-reduce", "true")
    assert codes(parsed) == ["FS001", "FS001", "FS001"]
    first, second, stray = diagnostics(parsed)
    assert first.data["suggestion"] == "--tp-size" and first.flag == "--tp_size"
    assert second.data["suggestion"] == "--mem-fraction-static"
    assert stray.data["kind"] == "argument" and stray.flag == "--enable-fused-moe-sum-all-reduce"
    assert value(parsed, "enable_fused_moe_sum_all_reduce") is True


def test_store_true_with_explicit_value() -> None:
    parsed = parse("--enable-fused-moe-sum-all-reduce=1")
    assert codes(parsed) == ["FS003"] and "enable_fused_moe_sum_all_reduce" not in parsed.values


def test_deprecated_flags() -> None:
    parsed = parse("--hybrid-kvcache-ratio", "--stream-output")
    assert codes(parsed) == ["FS002", "FS002"]
    ignored, stored = diagnostics(parsed)
    assert ignored.data["replacement"] == "--swa-full-tokens-ratio" and ignored.severity is Severity.WARNING
    assert "hybrid_kvcache_ratio" not in parsed.values
    assert stored.data["replacement"] == "--incremental-streaming-output"
    assert value(parsed, "incremental_streaming_output") is True


def test_required_flag() -> None:
    parsed = parse("--tp", "2", model=False)
    assert codes(parsed) == ["FS005"] and diagnostics(parsed)[0].flag == "--model-path"
    assert diagnostics(parsed)[0].location.path == "<argv>"


def test_duplicates_last_wins() -> None:
    parsed = parse("--tp", "2", "--tp-size=4")
    assert codes(parsed) == ["FS004"] and value(parsed, "tp_size") == 4
    assert parsed.values["tp_size"].option == "--tp-size"
    assert diagnostics(parsed)[0].data["first"]["column"] == parsed.command.args[2].column


def test_sglang_serve_model_type_belongs_to_the_launcher() -> None:
    command = command_from_argv(["sglang", "serve", "--model-type", "llm", "--model-path", "m"])
    assert codes(parse_command(command, INVENTORY)) == []


def test_unexpanded_variables(tmp_path: Path) -> None:
    unit = tmp_path / "u.service"
    unit.write_text("[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --tp ${TP} $EXTRA\n")
    parsed = parse_command(read_launch_file(unit)[0], INVENTORY)
    # The unset variables are reported; the required flag may come from $EXTRA (no FS005), and
    # "${TP}" is not judged as an int: its real value is unknown here.
    assert codes(parsed) == ["FS007", "FS007"]
    assert diagnostics(parsed)[0].location.line == 2 and diagnostics(parsed)[0].data["variables"] == ["TP"]
    assert value(parsed, "tp_size") == UnknownValue("${TP}")
    explicit = parse("--tp=$TP")
    assert codes(explicit) == ["FS007"] and value(explicit, "tp_size") == UnknownValue("$TP")


def test_locations_point_into_the_file(tmp_path: Path) -> None:
    unit = tmp_path / "u.service"
    unit.write_text("[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server \\\n"
                    "  --model-path m \\\n  --attention-backend nope\n")
    parsed = parse_command(read_launch_file(unit)[0], INVENTORY)
    assert parsed.values["model_path"].location.to_json() == {"path": str(unit), "line": 3, "column": 3}
    assert [(d.code, d.location.line, d.location.column) for d in diagnostics(parsed)] == [("FS003", 4, 23)]


def _config_unit(tmp_path: Path, config: str, argv: str, name: str = "c.yaml") -> ParsedCommand:
    (tmp_path / name).write_text(config)
    unit = tmp_path / "u.service"
    unit.write_text(f"[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server {argv}\n")
    return parse_command(read_launch_file(unit)[0], INVENTORY)


def test_config_merge(tmp_path: Path) -> None:
    parsed = _config_unit(tmp_path, """model-path: Qwen/Qwen3-8B
tp: 2
enable-flashinfer-allreduce-fusion: true
enable-fused-moe-sum-all-reduce: false
cuda-graph-bs: [1, 2]
mem-fraction-static: 0.7
""", "--config c.yaml --tp 4")
    assert codes(parsed) == []  # the command line overriding the file is SGLang's documented order
    assert value(parsed, "model_path") == "Qwen/Qwen3-8B"
    assert value(parsed, "tp_size") == 4 and parsed.values["tp_size"].location.path.endswith("u.service")
    assert value(parsed, "enable_flashinfer_allreduce_fusion") is True
    assert "enable_fused_moe_sum_all_reduce" not in parsed.values
    assert value(parsed, "cuda_graph_bs") == [1, 2]
    where = parsed.values["mem_fraction_static"].location
    assert where.path.endswith("c.yaml") and (where.line, where.column) == (6, 1)


def test_config_errors(tmp_path: Path) -> None:
    parsed = _config_unit(tmp_path, "tp_size: 2\nlora-paths: [a]\n", "--config c.yaml --model-path m")
    assert codes(parsed) == ["FS001", "FS003"]
    unknown, unsupported = diagnostics(parsed)
    assert unsupported.data["reason"] == "config-unsupported-action" and unsupported.location.line == 2
    assert unknown.data["suggestion"] == "--tp-size" and unknown.location.path.endswith("c.yaml")
    missing = parse("--config", "/nonexistent/c.yaml", model=False)
    # a file not here: its options are unknown, the server may well start (FS009, a warning)
    assert [p.kind for p in missing.problems] == [ProblemKind.CONFIG_NOT_FOUND]
    assert codes(missing) == ["FS009"] and diagnostics(missing)[0].severity is Severity.WARNING
    assert codes(parse("--config", "c.json")) == ["FS003"]
    assert codes(parse("--config", "a.yaml", "--config", "b.yaml")) == ["FS003"]
    assert codes(parse("--config")) == ["FS003"]
    not_merged = parse("--config=c.yaml")
    assert codes(not_merged) == ["FS009"] and diagnostics(not_merged)[0].data["reason"] == "config-not-merged"
    root = _config_unit(tmp_path, "- a\n- b\n", "--config l.yaml --model-path m", name="l.yaml")
    assert codes(root) == ["FS003"]


def test_fixture_unit_values() -> None:
    fixture = Path(__file__).parents[2] / "fixtures" / "units" / "sglang-qwen.service"
    parsed = parse_command(read_launch_file(fixture)[0], INVENTORY)
    assert value(parsed, "tp_size") == 4 and value(parsed, "enable_flashinfer_allreduce_fusion") is True
    assert {d.code for d in diagnostics(parsed)} == {"FS001"}  # flags this small inventory lacks
    assert {d.flag for d in diagnostics(parsed)} == {"--speculative-num-draft-tokens", "--host", "--port"}


_tokens = st.lists(st.one_of(
    st.sampled_from([o for f in FLAGS for o in f.options] + ["--", "-", "--x=", "-1", "4", "true", "--spec",
                                                             "--config", "c.yaml", "--tp=", "--no-x"]),
    st.text(max_size=8),
), max_size=12)


@settings(max_examples=150, deadline=None)
@given(_tokens, st.booleans())
def test_parse_command_never_raises(argv: list[str], abbrev: bool) -> None:
    inventory = INVENTORY if abbrev else NO_ABBREV
    parsed = parse_command(command_from_argv(["sglang", "serve", *argv]), inventory)
    assert all(d.code.startswith("FS") for d in diagnostics(parsed))
    assert all(v.dest in {f.dest for f in FLAGS} for v in parsed.values.values())


def test_remainder_takes_options_as_values() -> None:
    inventory = replace(INVENTORY, flags=(*FLAGS, Flag("rest", ("--rest",), L, type="str", nargs="...")))
    parsed = parse("--rest", "--tp", "2", "x", inventory=inventory)
    assert codes(parsed) == [] and value(parsed, "rest") == ["--tp", "2", "x"] and "tp_size" not in parsed.values
