"""gates: an object a module creates at import time (0.5.23's `_PLATFORM = PlatformContext()`,
read through `get_platform().is_sm100`) keeps its attributes for every guard, also when the
module is first imported by another guard's call; a name a function imports for itself
(0.5.23's k3_ar_fusion._get_state: `from sglang.srt.utils.common import get_device_sm`) is
that import in the function's guards."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from flagscan.evaluate.gates.evaluator import Status
from flagscan.evaluate.gates.run import evaluate_gpu
from flagscan.extract.reads import load_reads
from flagscan.hardware import profile_from_spec

FILES = {
    "sglang/__init__.py": "",
    "sglang/srt/__init__.py": "",
    "sglang/srt/server_args.py": (
        "from dataclasses import dataclass\n\n\n@dataclass\nclass ServerArgs:\n"
        "    first: int = 0\n    second: int = 0\n\n\n_GLOBAL = None\n\n\n"
        "def get_global_server_args():\n    return _GLOBAL\n"
    ),
    "sglang/srt/utils/__init__.py": (
        "import torch\n\n\ndef is_sm100_supported():\n"
        "    return torch.cuda.get_device_capability()[0] == 10\n"
    ),
    # the shape of runtime_context.PlatformContext: facts answered by __getattr__
    # from a dict the instance keeps in its own attributes
    "sglang/srt/platform.py": (
        "_PROBES = {'is_sm100': 'is_sm100_supported'}\n\n\n"
        "class PlatformContext:\n"
        "    def __init__(self):\n        object.__setattr__(self, '_overrides', {})\n\n"
        "    def __getattr__(self, name):\n"
        "        probe = _PROBES.get(name)\n"
        "        if probe is None:\n            raise AttributeError(name)\n"
        "        overrides = object.__getattribute__(self, '_overrides')\n"
        "        if name in overrides:\n            return overrides[name]\n"
        "        from sglang.srt import utils as _utils\n\n"
        "        return getattr(_utils, probe)()\n\n\n"
        "_PLATFORM = PlatformContext()\n\n\n"
        "def get_platform():\n    return _PLATFORM\n"
    ),
    "sglang/srt/layers/__init__.py": "",
    "sglang/srt/layers/a.py": (
        "from sglang.srt.platform import get_platform\nfrom sglang.srt.server_args import get_global_server_args\n\n\n"
        "class A:\n    def __init__(self):\n"
        "        if get_platform().is_sm100:\n            self.x = get_global_server_args().first\n"
    ),
    "sglang/srt/layers/b.py": (
        "from sglang.srt.platform import get_platform\nfrom sglang.srt.server_args import get_global_server_args\n\n\n"
        "class B:\n    def __init__(self):\n"
        "        if get_platform().is_sm100:\n            self.y = get_global_server_args().second\n"
    ),
    "sglang/srt/layers/c.py": (
        "from sglang.srt.server_args import get_global_server_args\n\n\n"
        "def probe():\n"
        "    from sglang.srt.utils import is_sm100_supported\n\n"
        "    if not is_sm100_supported():\n        return None\n"
        "    return get_global_server_args().third\n\n\n"
        "class C:\n    def __init__(self):\n        self.z = probe()\n"
    ),
}
INVENTORY = SimpleNamespace(flags=[SimpleNamespace(dest=d) for d in ("first", "second", "third")])


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("platform_tree")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root, load_reads(root, tmp_path_factory.mktemp("cache"), workers=1)


@pytest.mark.parametrize("gpu, status", [("b200", Status.EFFECTIVE), ("h100", Status.NO_OP)])
def test_every_guard_sees_the_import_time_object(tree, gpu, status) -> None:
    root, reads = tree
    verdicts = evaluate_gpu(root, None, INVENTORY, reads, profile_from_spec(gpu)).verdicts
    # whichever guard imports sglang.srt.platform first, both are decided by the GPU
    assert {dest: verdicts[dest].status for dest in ("first", "second")} == {"first": status, "second": status}


@pytest.mark.parametrize("gpu, status", [("b200", Status.EFFECTIVE), ("h100", Status.NO_OP)])
def test_a_function_local_import_is_the_imported_function(tree, gpu, status) -> None:
    root, reads = tree
    assert evaluate_gpu(root, None, INVENTORY, reads, profile_from_spec(gpu)).verdicts["third"].status is status
