"""The committed resolution ground truth loads, is complete, and says what the source says.

Pure Python: reads tests/data/groundtruth/resolution/*.json through groundtruth.py.
The assertions on specific cases pin facts that are documented in SGLang's own
source (and in DESIGN.md's motivating incident), so a regeneration that broke
the harness (a stub answering wrongly, a hardware query not simulated) fails here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from groundtruth import DATA, argv_for, load_resolution  # noqa: E402

RES = sorted((DATA / "resolution").glob("*.json"))
MOTIVATING = "qwen3.5-122b-a10b|rtx-pro-6000-serverx4|motivating"


@pytest.fixture(scope="module", params=[p.stem for p in RES])
def release(request):
    return load_resolution(request.param)


def test_resolution_files_exist_and_are_small():
    assert {p.stem for p in RES} >= {"0.5.10", "0.5.14", "0.5.20", "0.5.23"}
    for path in RES:
        assert path.stat().st_size < 2 * 1024 * 1024, path


def test_every_case_recorded(release):
    """The file holds the configuration matrix record_resolutions.py builds for the
    release (or the subset its `matrix` names), each case with a result."""
    import record_resolutions

    cases = release["cases"]
    matrix = record_resolutions.build_matrix(release["sglang"])
    if release["matrix"]["subset"]:
        assert release["matrix"]["every"] >= 2 and release["matrix"]["full_matrix_cases"] == len(matrix)
        matrix = record_resolutions.subset(matrix, release["matrix"]["every"])
    assert list(cases) == [c["id"] for c in matrix]
    assert len(cases) >= 100
    assert release["summary"]["harness_errors"] == 0
    for case in cases.values():
        assert "harness_error" not in case, case["id"]
        assert case["resolved"]["model_path"].startswith("<models>/") or \
            case["resolved"]["model_path"] == case["parsed"]["model_path"]
        # no value leaked out of an inert stub
        assert "_Stub" not in json.dumps(case["resolved"], default=str)


def test_recorded_gpus_are_gpu_table_entries(release):
    """What SGLang saw is flagscan's GPU table: every simulated GPU is the entry of
    rules/gpus.toml by that name, as `--gpu KEY` gives it, on every field both have."""
    from flagscan.hardware import profile_from_spec

    used = {case["gpu"]["key"] for case in release["cases"].values()}
    assert used and used <= set(release["gpus"]), sorted(used - set(release["gpus"]))
    for key in sorted(used):
        recorded, entry = release["gpus"][key], profile_from_spec(key)
        assert entry.table_entry == key, key  # the key itself, not an alias
        assert (recorded["vendor"], recorded["name"], tuple(recorded["capability"]),
                recorded["memory_mib"]) == (entry.vendor, entry.name, entry.capability,
                                            entry.memory_mib), key
        assert (recorded.get("cuda"), recorded.get("hip"), recorded.get("arch")) == \
            (entry.cuda, entry.hip, entry.arch), key


def test_next_recording_simulates_gpu_table_entries():
    """record_resolutions.py reads its GPUs from the table (a table change shows up
    in the next recording, and in test_recorded_gpus_are_gpu_table_entries)."""
    import record_resolutions

    from flagscan.hardware import profile_from_spec

    for key, profile in record_resolutions.GPUS.items():
        entry = profile_from_spec(key)
        assert (profile["name"], tuple(profile["capability"]), profile["memory_mib"]) == \
            (entry.name, entry.capability, entry.memory_mib), key


def test_hardware_simulation_reaches_resolution(release):
    cases = release["cases"]
    # AMD: SGLang picks aiter by default; NVIDIA never does
    amd = cases["llama-3-8b|mi300xx1|baseline"]
    nv = cases["llama-3-8b|h200x1|baseline"]
    if amd.get("error") is None:
        assert amd["resolved"]["attention_backend"] == "aiter"
    assert nv["resolved"]["attention_backend"] != "aiter"
    # memory-derived settings depend on the GPU's memory
    a100 = cases["llama-3-8b|a100-80gbx1|baseline"]["resolved"]
    b200 = cases["llama-3-8b|b200x1|baseline"]["resolved"]
    assert a100["mem_fraction_static"] != b200["mem_fraction_static"]


def test_motivating_incident_0_5_10():
    gt = load_resolution("0.5.10")
    rejected = gt["cases"][MOTIVATING]
    assert rejected["error"]["type"] == "ValueError"
    assert rejected["error"]["handler"] == "_handle_mamba_radix_cache"
    started = gt["cases"][MOTIVATING + "-extra-buffer"]
    assert started["error"] is None
    assert started["resolved"]["disable_piecewise_cuda_graph"] is True
    assert started["changed_by"]["disable_piecewise_cuda_graph"] == "_handle_piecewise_cuda_graph"
    assert started["resolved"]["max_running_requests"] == 48
    # the flag the operator added is left as set: resolution does not touch it
    assert started["resolved"]["enable_flashinfer_allreduce_fusion"] is True
    assert "enable_flashinfer_allreduce_fusion" not in started["changed"]


def test_argv_for_points_at_this_checkout():
    gt = load_resolution("0.5.10")
    argv = argv_for(gt["cases"][MOTIVATING])
    model = Path(argv[argv.index("--model-path") + 1])
    assert (model / "config.json").is_file()
