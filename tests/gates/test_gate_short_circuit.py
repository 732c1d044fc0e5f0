"""gates: a guard `A and B` (`A or B`) is evaluated in Python's order, and an operand after the
one that decides it is never evaluated (0.5.23 minimax_m3.py: `if router_gemv is not None and
router_gemv_supported(x, w):` with both None off ROCm gfx95: calling None would raise, but Python
never gets there). Under FLAGSCAN_STRICT=1, where evaluating it would be a give-up."""

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
        "    fast: bool = False\n    slow: bool = False\n\n\n_GLOBAL = None\n\n\n"
        "def get_global_server_args():\n    return _GLOBAL\n"
    ),
    "sglang/srt/layer.py": (
        "from sglang.srt.server_args import get_global_server_args\n\n"
        "kernel = kernel_supported = None\n\n\n"
        "def forward(x):\n"
        "    if kernel is not None and kernel_supported(x):\n"
        "        return get_global_server_args().fast\n"
        "    if kernel is None or kernel_supported(x):\n"
        "        return get_global_server_args().slow\n"
    ),
}
INVENTORY = SimpleNamespace(flags=[SimpleNamespace(dest=d) for d in ("fast", "slow")])


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    root = tmp_path_factory.mktemp("short_circuit_tree")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    reads = load_reads(root, tmp_path_factory.mktemp("cache"), workers=1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FLAGSCAN_STRICT", "1")   # a give-up raises GaveUp
        return evaluate_gpu(root, None, INVENTORY, reads, profile_from_spec("h100")).verdicts


def test_an_and_decided_false_by_its_first_operand_never_calls_the_second(verdicts) -> None:
    assert verdicts["fast"].status is Status.NO_OP


def test_an_or_decided_true_by_its_first_operand_never_calls_the_second(verdicts) -> None:
    assert [r.live for r in verdicts["slow"].reads] == [True]
