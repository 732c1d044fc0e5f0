"""gates: a module global only one function rebinds, and only after its check, has its
import-time value on that function's first call (0.5.23's bootstrap.init_parallel_runtime:
`if _PARALLEL_INITIALISED: raise` before `_PARALLEL_INITIALISED = True`), so what the first
call reaches is reached, also when another function only sets it back to that value
(`reset_parallel_initialised`); a global another function sets otherwise stays unknown."""

from __future__ import annotations

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
        "    once: bool = False\n    shared: bool = False\n    late: bool = False\n\n\n_GLOBAL = None\n\n\n"
        "def get_global_server_args():\n    return _GLOBAL\n"
    ),
    "sglang/srt/bootstrap.py": (
        "from sglang.srt.server_args import get_global_server_args\n\n"
        "_INITIALISED = False\n_SHARED = False\n_LATE = False\n\n\n"
        "def _flags():\n    return get_global_server_args().once\n\n\n"
        "def init_runtime():\n"
        "    global _INITIALISED\n"
        "    if _INITIALISED:\n        raise RuntimeError('initialised twice')\n"
        "    _INITIALISED = True\n"
        "    _flags()\n\n\n"
        "def init_shared():\n"
        "    global _SHARED\n"
        "    if _SHARED:\n        raise RuntimeError('twice')\n"
        "    _SHARED = True\n"
        "    return get_global_server_args().shared\n\n\n"
        "def reset():\n    global _SHARED, _INITIALISED\n    _SHARED = True\n    _INITIALISED = False\n\n\n"
        "def init_late():\n"
        "    global _LATE\n"
        "    _LATE = True\n"
        "    if _LATE:\n        raise RuntimeError('always')\n"
        "    return get_global_server_args().late\n"
    ),
    "sglang/srt/scheduler.py": (
        "from sglang.srt.bootstrap import init_late, init_runtime, init_shared\n\n\n"
        "class Scheduler:\n    def __init__(self):\n        init_runtime()\n        init_shared()\n        init_late()\n"
    ),
}
INVENTORY = SimpleNamespace(flags=[SimpleNamespace(dest=d) for d in ("once", "shared", "late")])


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    root = tmp_path_factory.mktemp("first_call_tree")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    reads = load_reads(root, tmp_path_factory.mktemp("cache"), workers=1)
    return evaluate_gpu(root, None, INVENTORY, reads, profile_from_spec("h100")).verdicts


def test_what_the_first_call_reaches_is_reached(verdicts) -> None:
    assert verdicts["once"].status is Status.EFFECTIVE


def test_a_global_another_function_rebinds_stays_unknown(verdicts) -> None:
    assert verdicts["shared"].status is Status.CONDITIONAL


def test_a_global_rebound_before_the_check_is_not_its_import_value(verdicts) -> None:
    assert verdicts["late"].status is not Status.EFFECTIVE
