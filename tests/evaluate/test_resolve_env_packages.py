"""resolve: the environment variables the resolution sets ("env") and the packages its tests
consulted ("packages", with the assumption that decided), on a small SGLang-shaped tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from tests.evaluate.tree import resolve_json, with_handler, write_tree

HANDLER = '''
    def _handle_environment(self):
        import os
        from importlib.metadata import PackageNotFoundError, version
        from importlib.util import find_spec

        from packaging.version import Version

        os.environ["SGLANG_SET_ALWAYS"] = "1"
        if self.tp_size > 1:
            os.environ.setdefault("NCCL_SOMETHING", "0")
        if is_sm90_supported():
            os.environ.pop("SGLANG_CLEARED_ON_HOPPER", None)
        if find_spec("deep_gemm") is None:
            self.strategy = "no_deep_gemm"
        try:
            installed = version("flashinfer_python")
        except PackageNotFoundError:
            installed = None
        if installed is not None and Version(installed) < Version("0.7.0"):
            self.prefill_backend = "old_flashinfer"
'''

TREE = with_handler(HANDLER)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("env-tree"), TREE)


@pytest.fixture()
def cache(tmp_path) -> Path:
    return tmp_path / "cache"


def test_env_block_reports_writes_with_value_certainty_and_cause(tree, cache) -> None:
    data = resolve_json(tree, cache, ["--model-path", "m", "--tp-size", "2"],
                        extra=("--env", "SGLANG_CLEARED_ON_HOPPER=1", "--no-startup"))
    env = data["env"]
    assert env["SGLANG_SET_ALWAYS"]["value"] == "1" and env["SGLANG_SET_ALWAYS"]["certain"] is True
    cause = env["SGLANG_SET_ALWAYS"]["because"][0]
    assert cause["handler"] == "_handle_environment" and cause["location"].startswith("sglang/srt/server_args.py:")
    assert env["NCCL_SOMETHING"]["value"] == "0" and env["NCCL_SOMETHING"]["because"][0]["condition"] == "self.tp_size > 1"
    assert env["SGLANG_CLEARED_ON_HOPPER"] == {"value": None, "certain": True, "because": [
        {**env["SGLANG_CLEARED_ON_HOPPER"]["because"][0], "how": "pop", "certain": True}]}


def test_env_block_is_empty_of_what_was_not_written(tree, cache) -> None:
    data = resolve_json(tree, cache, ["--model-path", "m"], gpu="a100-80gb", extra=("--no-startup",))
    assert sorted(data["env"]) == ["SGLANG_SET_ALWAYS"]   # tp 1, no Hopper: neither other write happens


def test_env_text_names_the_variable_and_its_cause(tree, cache) -> None:
    result = CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(cache), "-q", "resolve", "--gpu",
                                       "h200", "--no-startup", "--", "--model-path", "m"])
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.stdout.splitlines() if "SGLANG_SET_ALWAYS" in ln)
    assert "'1'" in line and "_handle_environment" in line and "server_args.py:" in line


@pytest.mark.parametrize("packages, prefill, strategy", [
    (("--package", "flashinfer-python=0.6.1", "--package", "sgl-deep-gemm=0.2.3"), "old_flashinfer", "auto"),
    (("--package", "flashinfer_python=0.7.2", "--package", "deep_gemm=1.0"), None, "auto"),
    (("--package", "flashinfer-python=absent", "--package", "sgl-deep-gemm=absent"), None, "no_deep_gemm"),
])
def test_package_versions_decide_tests_and_say_so(tree, cache, packages, prefill, strategy) -> None:
    data = resolve_json(tree, cache, ["--model-path", "m"], extra=("--no-startup", *packages))
    assert data["settings"]["prefill_backend"]["value"] == prefill
    assert data["settings"]["prefill_backend"]["certain"] is True
    assert data["settings"]["strategy"]["value"] == strategy
    assert data["settings"]["strategy"]["certain"] is True
    flashinfer = data["packages"]["flashinfer-python"]
    assert flashinfer.startswith("package:flashinfer-python") and flashinfer.endswith("(--package)")
    assert set(data["packages"]) == {"flashinfer-python", "sgl-deep-gemm" if "sgl-deep-gemm" in str(packages)
                                     else "deep-gemm" if "deep_gemm" in str(packages) else "sgl-deep-gemm"}


def test_a_package_not_given_leaves_its_test_unknown(tree, cache) -> None:
    data = resolve_json(tree, cache, ["--model-path", "m"], extra=("--no-startup",))
    prefill, strategy = data["settings"]["prefill_backend"], data["settings"]["strategy"]
    assert prefill["certain"] is False and sorted(prefill["options"], key=str) == [None, "old_flashinfer"]
    assert strategy["certain"] is False and sorted(strategy["options"]) == ["auto", "no_deep_gemm"]
    assert data["packages"] == {}   # nothing known was consulted


@pytest.mark.parametrize("bad", ["flashinfer", "flashinfer=", "flashinfer=not-a-version"])
def test_a_bad_package_value_is_a_one_line_error(tree, cache, bad) -> None:
    result = CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(cache), "-q", "resolve", "--gpu",
                                       "h200", "--no-startup", "--package", bad, "--", "--model-path", "m"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
