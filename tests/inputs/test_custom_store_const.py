"""A custom argparse action that stores a value of its own (`setattr(namespace, self.dest,
self.const_value)`) stores that value, not argparse's `const`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from flagscan.cli import main


@pytest.mark.real
def test_a_deprecated_alias_stores_its_const_value(real_cache_dir) -> None:
    # 0.5.14: --disable-piecewise-cuda-graph is DeprecatedStoreConstAction(const_value=Backend.DISABLED)
    result = CliRunner().invoke(main, ["--sglang", "0.5.14", "--cache-dir", str(real_cache_dir), "-q", "args",
                                       "--format", "json", "--", "--model-path", "m", "--disable-piecewise-cuda-graph"])
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)["commands"][0]["values"]
    assert values["cuda_graph_backend_prefill"]["value"] == "disabled"
