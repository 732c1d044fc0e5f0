"""lint --fix end to end on SGLang 0.5.10: the motivating unit with every flag quoted, for SM120."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.inputs import read_launch_file
from tests.lint.helpers import MODELS, UNITS

pytestmark = pytest.mark.real


def _quoted_unit(tmp_path):
    """fixtures/units/sglang-qwen.service with its flags in double quotes and values in single quotes."""
    text = (UNITS / "sglang-qwen.service").read_text()
    text = re.sub(r"^(    )(--[\w-]+)( ([^\s\\]\S*))?( \\)?$",
                  lambda m: f'{m.group(1)}"{m.group(2)}"' + (f" '{m.group(4)}'" if m.group(4) else "")
                  + (m.group(5) or ""), text, flags=re.M)
    path = tmp_path / "sglang-qwen.service"
    path.write_text(text)
    return path


def test_fix_on_quoted_flags_reads_back_as_the_old_argv_minus_the_no_ops(tmp_path, real_cache_dir) -> None:
    path = _quoted_unit(tmp_path)
    assert '"--enable-flashinfer-allreduce-fusion" \\' in path.read_text()
    before = read_launch_file(path)[0]
    base = ["-q", "--sglang", "0.5.10", "--cache-dir", str(real_cache_dir), "lint", "--gpu", "rtx-pro-6000",
            "--model-config", str(MODELS / "qwen3.5-122b-a10b")]
    found = CliRunner().invoke(main, [*base, "--format", "json", str(path)])
    assert found.exit_code == 1, found.output
    no_ops = [d for d in json.loads(found.stdout)["diagnostics"] if d["code"] == "FS201"]
    assert "--enable-flashinfer-allreduce-fusion" in {d["flag"] for d in no_ops}, found.stderr
    removed = {(d["location"]["line"], d["location"]["column"]) for d in no_ops}
    fixed = CliRunner().invoke(main, [*base, "--fix", str(path)])
    assert fixed.exit_code == 0, fixed.output
    after = read_launch_file(path)[0]
    kept = [a.text for a in before.args if (a.line, a.column) not in removed]
    assert after.launcher == before.launcher
    assert [a.text for a in after.args] == kept
    assert "--enable-flashinfer-allreduce-fusion" not in path.read_text()
