"""The parallel world sizes at startup (rules/startup.toml [distributed], flagscan/evaluate/startup/ranks.py):
SGLang's own parallel_state code, run on the launch's settings, makes the TP group's world size
known (GroupCoordinator keeps the ranks list holding torch.distributed.get_rank(): len(ranks)),
while the rank of this process stays a fact of the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flagscan.evaluate.interp.interpreter import Interpreter
from flagscan.evaluate.startup.ranks import distributed
from flagscan.evaluate.startup.results import StartupResult
from flagscan.evaluate.startup.run import GlobalWrites, SurvivalTracking, startup_world
from flagscan.evaluate.world import World
from flagscan.extract.irstore import ModuleStore
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.helpers import run_startup_entries, write_tree

# A small SGLang-shaped tree: ModelRunner.init_torch_distributed -> init_distributed_environment /
# initialize_model_parallel (0.5.x distributed/parallel_state.py), then an FP8 linear layer whose
# create_weights checks the per-rank output size against the weight block (0.5.9-0.5.12
# layers/quantization/fp8.py validate_block_quant_shapes) and a layer that refuses one TP rank.
TREE = {
    "sglang/srt/server_args.py": '''
class ServerArgs:
    def __init__(self, tp_size=1, pp_size=1):
        self.tp_size = tp_size
        self.pp_size = pp_size
''',
    "sglang/srt/distributed/parallel_state.py": '''
import torch


class GroupCoordinator:
    def __init__(self, group_ranks, local_rank):
        self.rank = torch.distributed.get_rank()
        self.local_rank = local_rank
        self.cpu_group = None
        for ranks in group_ranks:
            cpu_group = torch.distributed.new_group(ranks, backend="gloo")
            if self.rank in ranks:
                self.ranks = ranks
                self.world_size = len(ranks)
                self.rank_in_group = ranks.index(self.rank)
                self.cpu_group = cpu_group
        assert self.cpu_group is not None


_WORLD = None
_TP = None


def init_distributed_environment(world_size=-1, rank=-1, local_rank=-1, backend="nccl"):
    if not torch.distributed.is_initialized():
        torch.distributed.init_process_group(backend=backend, world_size=world_size, rank=rank)
    global _WORLD
    if _WORLD is None:
        _WORLD = GroupCoordinator([list(range(torch.distributed.get_world_size()))], local_rank)


def initialize_model_parallel(tensor_model_parallel_size=1, pipeline_model_parallel_size=1):
    assert torch.distributed.is_initialized()
    world_size = torch.distributed.get_world_size()
    if world_size != tensor_model_parallel_size * pipeline_model_parallel_size:
        raise RuntimeError("world_size is not tensor_model_parallel_size x pipeline_model_parallel_size")
    global _TP
    group_ranks = []
    for i in range(world_size // tensor_model_parallel_size):
        group_ranks.append(list(range(i * tensor_model_parallel_size, (i + 1) * tensor_model_parallel_size)))
    _TP = GroupCoordinator(group_ranks, _WORLD.local_rank)


def get_tp_group():
    assert _TP is not None, "tensor model parallel group is not initialized"
    return _TP


def get_tensor_model_parallel_world_size():
    return get_tp_group().world_size


def get_tensor_model_parallel_rank():
    return get_tp_group().rank_in_group
''',
    "sglang/srt/layers/fp8.py": '''
from sglang.srt.distributed.parallel_state import (
    get_tensor_model_parallel_rank,
    get_tensor_model_parallel_world_size,
)


class Fp8LinearMethod:
    def __init__(self, block_n):
        self.block_n = block_n

    def create_weights(self, output_size):
        output_partition_size = output_size // get_tensor_model_parallel_world_size()
        if output_partition_size % self.block_n != 0:
            raise ValueError(f"Weight output_partition_size = {output_partition_size} is not divisible by "
                             f"weight quantization block_n = {self.block_n}")


class ShardedTable:
    def __init__(self):
        if get_tensor_model_parallel_rank() == 3:
            raise RuntimeError("the fourth rank holds no shard")
''',
    "sglang/srt/model_executor/model_runner.py": '''
from sglang.srt.distributed.parallel_state import init_distributed_environment, initialize_model_parallel
from sglang.srt.layers.fp8 import Fp8LinearMethod, ShardedTable


class ModelRunner:
    def __init__(self, server_args, gpu_id, tp_rank):
        self.server_args = server_args
        self.tp_size = server_args.tp_size
        self.pp_size = server_args.pp_size
        self.gpu_id = gpu_id
        self.tp_rank = tp_rank
        self.init_torch_distributed()
        self.load_model()

    def init_torch_distributed(self):
        init_distributed_environment(world_size=self.tp_size * self.pp_size, rank=self.tp_rank,
                                     local_rank=self.gpu_id)
        initialize_model_parallel(tensor_model_parallel_size=self.tp_size,
                                  pipeline_model_parallel_size=self.pp_size)

    def load_model(self):
        Fp8LinearMethod(128).create_weights(512)
        ShardedTable()
''',
    "sglang/srt/managers/tp_worker.py": '''
from sglang.srt.model_executor.model_runner import ModelRunner


class TpModelWorker:
    def __init__(self, server_args, gpu_id, tp_rank):
        self.model_runner = ModelRunner(server_args, gpu_id, tp_rank)
''',
}

FP8 = "sglang/srt/layers/fp8.py:15"
RANK = "sglang/srt/layers/fp8.py:22"


class _Startup(SurvivalTracking, GlobalWrites, Interpreter):
    pass


def _rules(**distributed_rules: Any) -> dict[str, Any]:
    """A TP worker entry on this tree, with rules/startup.toml's own [distributed] and [needs]."""
    real = load("startup")
    return {"entry": [{"name": "TP worker", "phase": "startup", "class": real["entry"][0]["class"],
                       "args": {"server_args": "record", "gpu_id": "const:0", "tp_rank": "const:0"}}],
            "needs": real["needs"], "distributed": {**real["distributed"], **distributed_rules}}


def _run(tmp_path: Path, rules: dict[str, Any] | None = None, **settings: Any) -> StartupResult:
    rules = rules or _rules()
    root = write_tree(tmp_path / "tree", TREE)
    world = startup_world(World(profile_from_spec("h200"), {}), root, rules)
    return run_startup_entries(_Startup(ModuleStore(root, tmp_path / "cache"), world), rules, settings)


def _found(result: StartupResult) -> list[tuple[str, bool]]:
    return [(r.location, r.certain) for r in result.rejections]


def test_the_tp_size_given_makes_the_block_shape_check_certain(tmp_path) -> None:
    # 512 // 8 = 64 rows per rank, not a multiple of the 128-row block
    result = _run(tmp_path, tp_size=8)
    assert (FP8, True) in _found(result)
    (crash,) = [r for r in result.rejections if r.location == FP8]
    assert crash.exception == "ValueError" and "= 64 " in crash.message


def test_a_tp_size_that_divides_the_block_starts(tmp_path) -> None:
    result = _run(tmp_path, tp_size=4)
    assert FP8 not in [loc for loc, _ in _found(result)] and result.completed


def test_a_raise_that_depends_on_the_rank_is_not_certain(tmp_path) -> None:
    # which of the eight TP ranks this process is, is a fact of the run
    result = _run(tmp_path, tp_size=8)
    assert (RANK, True) not in _found(result)
    assert result.run_dependent >= 1
    # with two ranks, no rank is the fourth: the raise cannot happen
    assert RANK not in [loc for loc, _ in _found(_run(tmp_path / "two", tp_size=2))]


def test_a_world_wider_than_the_rules_allow_keeps_the_rank_and_the_size_unknown(tmp_path) -> None:
    result = _run(tmp_path, _rules(max_ranks=4), tp_size=8)
    assert (FP8, True) not in _found(result)


def test_without_the_distributed_rules_the_world_size_is_of_the_run(tmp_path) -> None:
    rules = _rules()
    del rules["distributed"]
    assert (FP8, True) not in _found(_run(tmp_path, rules, tp_size=8))


def test_the_distributed_rules_have_their_schema() -> None:
    data = load("startup")["distributed"]
    d = distributed(load("startup"))
    assert d is not None and d.max_ranks == data["max_ranks"] >= 2
    assert set(data) == {"init", "init_world_size", "is_initialized", "world_size", "rank", "group_keyword",
                         "max_ranks"}
    assert set(data["init_world_size"]) == {"keyword", "position"}
    for key in ("init", "is_initialized", "world_size", "rank"):
        assert data[key] and all(p.startswith("torch.distributed.") for p in data[key])
    assert data["group_keyword"].isidentifier() and data["init_world_size"]["keyword"].isidentifier()



def test_groups_the_scheduler_builds_before_the_tp_worker_are_followed(tmp_path) -> None:
    # 0.5.22+: Scheduler.__init__ calls distributed/bootstrap.py init_parallel_runtime before it builds
    # the TP worker (rules/startup.toml's TP worker prelude), and ModelRunner no longer makes the groups
    tree = dict(TREE)
    tree["sglang/srt/distributed/bootstrap.py"] = '''
from sglang.srt.distributed.parallel_state import init_distributed_environment, initialize_model_parallel


def init_parallel_runtime(*, server_args, device, dist_port):
    init_distributed_environment(world_size=server_args.tp_size * server_args.pp_size, rank=0, local_rank=0)
    initialize_model_parallel(tensor_model_parallel_size=server_args.tp_size,
                              pipeline_model_parallel_size=server_args.pp_size)
'''
    tree["sglang/srt/model_executor/model_runner.py"] = TREE["sglang/srt/model_executor/model_runner.py"].replace(
        "        self.init_torch_distributed()\n", "")
    rules = _rules()
    rules["entry"][0]["prelude"] = load("startup")["entry"][0]["prelude"]
    assert any(p["function"].endswith("bootstrap.init_parallel_runtime") for p in rules["entry"][0]["prelude"])
    root = write_tree(tmp_path / "tree", tree)
    world = startup_world(World(profile_from_spec("h200"), {}), root, rules)
    result = run_startup_entries(_Startup(ModuleStore(root, tmp_path / "cache"), world), rules, {"tp_size": 8})
    assert (FP8, True) in _found(result)
