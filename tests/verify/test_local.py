"""--local: the probe subprocess, against a small SGLang-shaped package (both resolution eras)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from flagscan.verify.local import observe_local, run_probe
from flagscan.verify.observed import VerifyError

OLD_ERA = '''
import argparse, dataclasses, logging
logger = logging.getLogger(__name__)

@dataclasses.dataclass
class ServerArgs:
    model_path: str = ""
    tp_size: int = 1
    speculative_algorithm: str = None
    max_running_requests: int = None
    def __post_init__(self):
        if self.speculative_algorithm == "NEXTN":
            self.speculative_algorithm = "EAGLE"
        if self.speculative_algorithm is not None and self.max_running_requests is None:
            self.max_running_requests = 48
            logger.warning("Max running requests is reset to 48 for speculative decoding.")
        if self.tp_size > 8:
            raise ValueError("tp_size too large")

def prepare_server_args(argv):
    p = argparse.ArgumentParser(prog="sglang serve")
    p.add_argument("--model-path"); p.add_argument("--tp-size", type=int, default=1)
    p.add_argument("--speculative-algorithm"); p.add_argument("--max-running-requests", type=int)
    return ServerArgs(**vars(p.parse_args(argv)))
'''
NEW_ERA = OLD_ERA + '''
_plain = ServerArgs.__post_init__
ServerArgs.__post_init__ = lambda self: None
def _resolve_once(self):
    _plain(self)
ServerArgs.resolve_once = _resolve_once
ServerArgs.resolved_dict = lambda self: dataclasses.asdict(self)
'''


def _package(tmp_path: Path, body: str) -> Path:
    srt = tmp_path / "sglang" / "srt"
    srt.mkdir(parents=True)
    (tmp_path / "sglang" / "__init__.py").write_text('__version__ = "0.0.1"\n')
    (srt / "__init__.py").write_text("")
    (srt / "server_args.py").write_text(textwrap.dedent(body))
    return tmp_path


@pytest.mark.parametrize("body", [OLD_ERA, NEW_ERA], ids=["post_init", "resolve_once"])
def test_probe_runs_the_installed_resolution(tmp_path, body) -> None:
    root = _package(tmp_path, body)
    result = run_probe(["--model-path", "m", "--speculative-algorithm", "NEXTN"], python=sys.executable,
                       env={"PYTHONPATH": str(root)}, timeout=60)
    observed = observe_local(result)
    assert observed.values == {"model_path": "m", "tp_size": 1, "speculative_algorithm": "EAGLE",
                               "max_running_requests": 48}
    assert observed.version == "0.0.1" and observed.facts["sglang_dir"] == str(root)
    assert observed.warnings[0].location.startswith("sglang/srt/server_args.py:")
    refused = observe_local(run_probe(["--model-path", "m", "--tp-size", "16"], python=sys.executable,
                                      env={"PYTHONPATH": str(root)}, timeout=60))
    assert refused.rejection.exception == "ValueError" and refused.rejection.location.startswith("sglang/srt/")


def test_parser_errors_and_missing_interpreters_are_one_line(tmp_path) -> None:
    root = _package(tmp_path, OLD_ERA)
    with pytest.raises(VerifyError, match="parser refused"):
        observe_local(run_probe(["--no-such-flag"], python=sys.executable, env={"PYTHONPATH": str(root)}))
    with pytest.raises(VerifyError, match="no such interpreter"):
        run_probe([], python=str(tmp_path / "nopython"))


PYDANTIC_ERA = OLD_ERA.replace("import argparse, dataclasses, logging", '''import argparse, dataclasses, logging
from typing import Optional, Union
import pydantic
from xgrammar import StructuralTag   # a compiled package SGLang imports at module level

class ResponseFormat(pydantic.BaseModel):   # as in SGLang's OpenAI protocol module
    structural_tag: Optional[StructuralTag] = None
    schema_: Union[str, StructuralTag.Format, None] = None''')


def test_stubbed_types_stand_in_pydantic_models(tmp_path) -> None:
    import importlib.util

    if importlib.util.find_spec("xgrammar") is not None:
        pytest.skip("xgrammar is installed here: nothing to stub")
    root = _package(tmp_path, PYDANTIC_ERA)
    env = {"PYTHONPATH": str(root)}
    without = run_probe(["--model-path", "m"], python=sys.executable, env=env, timeout=60)
    assert "xgrammar" in without["import_error"]
    observed = observe_local(run_probe(["--model-path", "m", "--speculative-algorithm", "NEXTN"],
                                       python=sys.executable, env=env, timeout=60, stub_missing=True))
    assert observed.values["speculative_algorithm"] == "EAGLE"
    assert "xgrammar" in observed.facts["stubbed"]
