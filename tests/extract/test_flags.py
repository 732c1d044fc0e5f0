"""Flag inventory extraction on the three fixture layouts."""

from __future__ import annotations

import pytest

from flagscan.extract.errors import ExtractionError
from flagscan.extract.flags import extract_inventory
from flagscan.extract.modules import SourceIndex
from flagscan.facts.flags import Inventory, UnknownValue
from tests.conftest import TREES


def inventory(era: str) -> Inventory:
    return extract_inventory(SourceIndex(TREES / era))


@pytest.fixture(scope="module", params=["era1", "era2", "era3"])
def any_era(request) -> Inventory:
    return inventory(request.param)


def test_aliases_share_one_flag(any_era: Inventory) -> None:
    by_option = any_era.by_option()
    assert by_option["--model"] is by_option["--model-path"]
    assert by_option["--model-path"].required is True
    tp = by_option["--tp-size"]
    assert tp.dest == "tp_size" and tp.type == "int" and tp.default == 1


def test_add_argument_layout_resolves_constants_across_modules() -> None:
    flags = inventory("era1").by_option()
    # LOAD_FORMAT_CHOICES is imported and extended with += at module level.
    assert flags["--load-format"].choices == ("auto", "pt", "safetensors", "dummy")
    assert flags["--attention-backend"].choices == ("triton", "flashinfer", "fa3")
    # default=ServerArgs.x reads the dataclass field; default_factory lambdas are followed.
    assert flags["--log-prefixes"].default == ["/health"]
    assert flags["--log-prefixes"].nargs == "+"
    # registrations inside a helper that receives an argument group are followed.
    assert flags["--max-running-requests"].type == "int"


def test_store_true_and_custom_actions() -> None:
    flags = inventory("era1").by_option()
    fusion = flags["--enable-fusion"]
    assert (fusion.action, fusion.default, fusion.nargs, fusion.semantics) == ("store_true", False, 0, "store_const")
    ignored = flags["--hybrid-ratio"]
    assert ignored.deprecated and ignored.semantics == "ignore" and ignored.nargs == 0
    assert ignored.replacement == "--mem-fraction-static"
    old = flags["--stream-output"]
    assert old.deprecated and old.replacement == "--incremental-output"
    assert (old.semantics, old.stored, old.default) == ("store_const", True, False)
    lora = flags["--lora-paths"]
    assert lora.action == "LoRAPathAction" and lora.nargs == "*" and lora.semantics == "store"
    assert not flags["--incremental-output"].deprecated


def test_annotated_layout_generates_flags_from_fields() -> None:
    inv = inventory("era2")
    flags = inv.by_option()
    assert flags["--dtype"].choices == ("auto", "float16", "bfloat16")
    assert flags["--cuda-graph-bs"].nargs == "+" and flags["--cuda-graph-bs"].type == "int"
    assert flags["--json-model-override-args"].type == "json_list_type"
    assert flags["--served-name"].dest == "served_model_name"
    assert flags["--enable-fusion"].action == "store_true"
    # no_cli and fields without metadata get no option.
    assert "--internal-only" not in flags and "--plain-field" not in flags
    # dict keys of a class attribute in another module; enum comprehension.
    assert flags["--reasoning-parser"].choices == ("auto", "deepseek-r1", "qwen3")
    assert flags["--kv-mode"].choices == ("none", "partial")
    assert inv.allow_abbrev is False
    assert inv.config_option == "--config"
    # The fixture's generator is not one of the reviewed SGLang versions: said, not hidden.
    assert any("generator differs" in note for note in inv.notes)


def test_namespace_layout_collects_fields_and_declared_defaults() -> None:
    inv = inventory("era3")
    flags = inv.by_option()
    assert flags["--tensor-parallel-size"].dest == "tp_size"
    assert "--enable-dp-attention" in flags  # registered by hand; the field is no_cli
    assert flags["--enable-dp-attention"].deprecated
    assert flags["--enable-dp-attention"].replacement == "--attn-dp-size"
    assert set(flags["--sampling-backend"].choices) == {"flashinfer", "pytorch"}
    mono = flags["--monokernel-backend"]
    assert mono.dest == "enable_amd_monokernel" and mono.nargs is None
    assert (mono.semantics, mono.stored, mono.replacement) == ("store_const", True, "--enable-amd-monokernel")
    # A run-time condition around a choices mutation is reported, not guessed.
    assert any("run-time condition" in note for note in inv.notes)


def test_inventory_round_trips_through_json(any_era: Inventory) -> None:
    again = Inventory.from_json(any_era.to_json())
    assert again == any_era


def test_not_an_sglang_tree(tmp_path) -> None:
    (tmp_path / "sglang").mkdir()
    with pytest.raises(ExtractionError):
        extract_inventory(SourceIndex(tmp_path))


def test_unknown_values_are_marked_not_guessed(tmp_path) -> None:
    pkg = tmp_path / "sglang" / "srt"
    pkg.mkdir(parents=True)
    (pkg / "server_args.py").write_text(
        "import os\n"
        "class ServerArgs:\n"
        "    @staticmethod\n"
        "    def add_cli_args(parser):\n"
        "        parser.add_argument('--port', type=int, default=int(os.environ['PORT']))\n"
        "        parser.add_argument('--mode', choices=load_modes())\n"
    )
    flags = extract_inventory(SourceIndex(tmp_path)).by_option()
    assert isinstance(flags["--port"].default, UnknownValue)
    assert isinstance(flags["--mode"].choices, UnknownValue)


def test_generator_reads_arg_keywords_and_branch_order_from_rule_data() -> None:
    """Arg(...)'s keyword names and the generator's branch order are rules/cli.toml data, not code."""
    import copy

    from flagscan.ruledata import load

    rules = copy.deepcopy(load("cli"))
    rules["generator"]["metadata"]["cli_name"] = "no_such_keyword"
    rules["generator"]["metadata"]["skip"] = "no_such_keyword_either"
    flags = extract_inventory(SourceIndex(TREES / "era2"), rules).by_option()
    assert "--served-name" not in flags and flags["--served-model-name"].dest == "served_model_name"
    assert flags["--internal-only"].dest == "internal_only"
    rules = copy.deepcopy(load("cli"))
    rules["generator"]["branch_order"] = ["scalar"]
    flags = extract_inventory(SourceIndex(TREES / "era2"), rules).by_option()
    assert flags["--enable-fusion"].action != "store_true" and flags["--cuda-graph-bs"].nargs != "+"


def _era3_copy(tmp_path, name_function: str, parallel_import: str = "A, Arg"):
    import shutil

    root = tmp_path / "tree"
    shutil.copytree(TREES / "era3", root)
    utils = root / "sglang/srt/arg_groups/arg_utils.py"
    text = utils.read_text()
    old = 'def _field_to_cli_name(name: str) -> str:\n    return "--" + name.replace("_", "-")\n'
    assert old in text
    utils.write_text(text.replace(old, name_function))
    parallel = root / "sglang/srt/arg_groups/fields/parallel.py"
    parallel.write_text(parallel.read_text().replace("import A, Arg", f"import {parallel_import}"))
    return root


def test_option_names_come_from_the_generators_own_name_function(tmp_path) -> None:
    """A fields module that imports no metadata class (only the annotation alias and help strings)
    still gets its names from the name function beside the generator (0.5.20's fields/device.py)."""
    root = _era3_copy(tmp_path, 'def _field_to_cli_name(name: str) -> str:\n    return "--x-" + name.replace("_", "-")\n',
                      parallel_import="A")
    text = (root / "sglang/srt/arg_groups/fields/parallel.py").read_text()
    (root / "sglang/srt/arg_groups/fields/parallel.py").write_text(
        text.replace('A[int, Arg(help="Tensor parallel size.", aliases=["--tensor-parallel-size"])]',
                     'A[int, "Tensor parallel size."]')
            .replace('A[bool, Arg(help="Old spelling.", no_cli=True)]', 'A[bool, "Old spelling."]'))
    flags = extract_inventory(SourceIndex(root)).by_option()
    assert flags["--x-dp-size"].dest == "dp_size"
    assert "--dp-size" not in flags


def test_an_option_name_the_release_does_not_give_is_left_out_and_said(tmp_path, monkeypatch) -> None:
    from flagscan.strict import GaveUp

    root = _era3_copy(tmp_path, "_field_to_cli_name = make_namer()\n")
    monkeypatch.delenv("FLAGSCAN_STRICT", raising=False)
    inv = extract_inventory(SourceIndex(root))
    assert "dp_size" not in {f.dest for f in inv.flags} and "--dp-size" not in inv.by_option()
    assert any("field dp_size" in n and "option name" in n for n in inv.notes), inv.notes
    # aliases the metadata gives are not a name for the field either: its flag is left out whole
    assert "--tensor-parallel-size" not in inv.by_option()
    monkeypatch.setenv("FLAGSCAN_STRICT", "1")
    with pytest.raises(GaveUp):
        extract_inventory(SourceIndex(root))
