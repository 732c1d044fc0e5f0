"""GPU detection through NVML, with NVML faked (CI has no GPU) and absent."""

from __future__ import annotations

import builtins
import json
import sys
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from flagscan.cli import main
from flagscan.hardware import HardwareError
from flagscan.hardware import detect as detect_mod
from flagscan.hardware.detect import detect, detect_profile, match_table

H200 = ("NVIDIA H200", (9, 0), 150_754_820_096)  # 143771 MiB, as nvidia-smi shows it


class FakeNvml:
    """The pynvml calls detect() makes, answering for the given devices."""

    def __init__(self, devices, *, fail_init: Exception | None = None, driver="580.159.03", cuda=13000,
                 as_bytes=False) -> None:
        self.devices, self.fail_init, self.driver, self.cuda, self.as_bytes = devices, fail_init, driver, cuda, as_bytes
        self.shutdown = False

    def _s(self, text):
        return text.encode() if self.as_bytes else text

    def nvmlInit(self):
        if self.fail_init:
            raise self.fail_init

    def nvmlShutdown(self):
        self.shutdown = True

    def nvmlSystemGetDriverVersion(self):
        return self._s(self.driver)

    def nvmlSystemGetCudaDriverVersion(self):
        return self.cuda

    def nvmlDeviceGetCount(self):
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, h):
        return self._s(self.devices[h][0])

    def nvmlDeviceGetCudaComputeCapability(self, h):
        return self.devices[h][1]

    def nvmlDeviceGetMemoryInfo(self, h):
        return SimpleNamespace(total=self.devices[h][2], free=0, used=0)

    def nvmlDeviceGetUUID(self, h):
        return self._s(f"GPU-{h:08d}-aaaa")


def test_h200_is_detected_and_matched(monkeypatch) -> None:
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    nvml = FakeNvml([H200] * 8, as_bytes=True)
    found = detect(nvml)
    assert nvml.shutdown
    gpu = found.gpus[0].to_json()
    assert gpu["name"] == "NVIDIA H200" and gpu["compute_capability"] == "9.0"
    assert gpu["memory_mib"] == 143771 and gpu["table_entry"] == "h200" and gpu["table_match"]["exact"]
    assert found.driver == "580.159.03" and found.cuda_driver == "13.0" and len(found.gpus) == 8
    profile = detect_profile(nvml=nvml)
    assert (profile.capability, profile.memory_mib, profile.count, profile.cuda, profile.source) == \
        ((9, 0), 143771, 8, "13.0", "detected")
    forced = detect_profile(nvml=nvml, count=2, memory="140GiB", name="X", cuda="12.9")
    assert (forced.count, forced.memory_mib, forced.name, forced.cuda) == (2, 143360, "X", "12.9")


def test_visible_devices_limit_the_count(monkeypatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,GPU-00000005")
    nvml = FakeNvml([H200] * 8)
    assert detect(nvml).visible == (2, 5)
    assert detect_profile(nvml=nvml).count == 2
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(HardwareError, match="CUDA_VISIBLE_DEVICES"):
        detect_profile(nvml=nvml)


def test_unknown_names_get_the_nearest_entry_said_so() -> None:
    near = match_table("NVIDIA H200 NVL", (9, 0), 143000)
    assert near.key == "h200" and not near.exact and "nearest" in near.why
    assert match_table("NVIDIA Future", (15, 0), 1).key is None


@pytest.mark.parametrize("nvml, needle", [
    (FakeNvml([], fail_init=RuntimeError("NVML Shared Library Not Found")), "NVML is unavailable"),
    (FakeNvml([]), "no NVIDIA GPU found"),
])
def test_no_driver_or_no_gpu(nvml, needle, monkeypatch) -> None:
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    with pytest.raises(HardwareError, match=needle):
        detect_profile(nvml=nvml)


def test_pynvml_missing(monkeypatch) -> None:
    real_import = builtins.__import__

    def no_pynvml(name, *args, **kwargs):
        if name == "pynvml":
            raise ImportError("No module named 'pynvml'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "pynvml", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_pynvml)
    with pytest.raises(HardwareError, match="pynvml is not installed"):
        detect()


def test_flagscan_imports_without_pynvml() -> None:
    import subprocess

    code = ("import sys; sys.modules['pynvml'] = None; import flagscan.cli, flagscan.hardware.detect, "
            "flagscan.commands.detect_cmd, flagscan.commands.verify_cmd; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_cli_detect_json_and_text(monkeypatch) -> None:
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(detect_mod, "_load_nvml", lambda: FakeNvml([H200, H200]))
    result = CliRunner().invoke(main, ["detect", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema"] == "flagscan/detect/v1"
    assert set(doc["gpus"][0]) >= {"index", "name", "compute_capability", "memory_mib", "table_entry"}
    assert doc["driver"] and doc["cuda_driver"] == "13.0"
    text = CliRunner().invoke(main, ["detect"])
    assert text.exit_code == 0 and "h200" in text.stdout


def test_cli_without_nvml_exits_2_with_one_line(monkeypatch) -> None:
    monkeypatch.setattr(detect_mod, "_load_nvml",
                        lambda: FakeNvml([], fail_init=RuntimeError("Driver Not Loaded")))
    for args in (["detect"], ["resolve", "--gpu", "auto", "--", "--model-path", "m"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1 and "NVML is unavailable" in result.stderr
