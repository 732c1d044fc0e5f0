"""flagscan's three phases against real incidents from SGLang's tracker (tests/data/startup).

`bench/startup_incidents.py` scores the whole dataset; this test pins what it measured:
every incident listed in CAUGHT is still caught (a rejection of the recorded phase at the
recorded file, or the recorded settings written at startup), and no known-good
deployment of the releases in GOOD_RELEASES gets a certain rejection in any phase.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.real

_spec = importlib.util.spec_from_file_location("startup_incidents", ROOT / "bench" / "startup_incidents.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

# Measured with bench/startup_incidents.py (each reproduced against its release's source).
CAUGHT = (
    "double-sparsity-modelrunner-forces-triton",   # startup write, 0.5.10
    "mllama-model-runner-turns-off-chunked-prefill",  # startup write, 0.5.10
    "rtx2080-sm75-dtype-forced-float16",            # startup write, 0.5.10
    "qwen3-next-gdn-flashinfer-sm120",              # startup crash, 0.5.8
    "gpt-oss-trtllm-mha-rtx5090",                   # resolution, 0.5.5
    "llama-sm120-auto-trtllm-mha-rejected",         # resolution, 0.5.6.post1
)
GOOD_RELEASES = ("0.5.10",)
# Known-good entries that the release's own code contradicts: flagscan's rejection is what
# SGLang does there (each checked by hand against the source or SGLang's recorded run).
DISPUTED = {
    "qwen3-next-h200-nextn": "SGLang 0.5.10's own resolution rejects this command (ground truth "
                             "qwen3-next-80b-a3b|h200x4|spec-nextn, server_args.py:2206): NEXTN with "
                             "radix cache needs --mamba-scheduler-strategy extra_buffer there",
}


def _run(entry: dict, cache) -> dict | None:
    proc = subprocess.run(bench.command(entry, str(cache)), capture_output=True, text=True, cwd=ROOT)
    return json.loads(proc.stdout) if proc.stdout.strip() else None


@pytest.mark.parametrize("incident", CAUGHT)
def test_a_measured_incident_is_still_caught(incident, real_cache_dir) -> None:
    (entry,) = [e for e in bench.load("incidents") if e["id"] == incident]
    verdict, detail = bench.judge(entry, _run(entry, real_cache_dir), good=False)
    assert verdict.startswith("caught"), detail


@pytest.mark.parametrize("entry", [e for e in bench.load("good")
                                   if e["release"] in GOOD_RELEASES and e["id"] not in DISPUTED],
                         ids=lambda e: e["id"])
def test_a_known_good_deployment_gets_no_certain_rejection(entry, real_cache_dir) -> None:
    verdict, detail = bench.judge(entry, _run(entry, real_cache_dir), good=True)
    assert verdict == "ok", detail
