"""cli: the hardware and model options every predicting command takes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, overload

import click

from flagscan.cli import F, UserError

if TYPE_CHECKING:
    from flagscan.evaluate import ModelFacts
    from flagscan.hardware import GpuProfile


def scenario_options(fn: F) -> F:
    opts = [
        click.option("--gpu", "gpu", metavar="NAME|smNN|X.Y|auto", default=None,
                     help="GPU: a GPU-table name (h200, b200, rtx-pro-6000, t4, mi300x...) or the name nvidia-smi prints, a compute capability, or auto."),
        click.option("--gpu-count", type=int, default=None, help="Number of GPUs on the node."),
        click.option("--gpu-memory", default=None, metavar="SIZE", help="Memory per GPU (143771MiB, 140GiB, 96GB)."),
        click.option("--gpu-name", default=None, help="Device name as torch reports it (\"NVIDIA H200\")."),
        click.option("--cuda", default=None, metavar="X.Y", help="CUDA version torch was built with."),
        click.option("--model-config", default=None, metavar="PATH", help="config.json or a model directory."),
        click.option("--model-arch", default=None, metavar="NAME", help="Model architecture, when no config.json is at hand."),
        click.option("--env", "env", multiple=True, metavar="KEY=VALUE", help="Environment variable (repeatable)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


@overload
def gpu_profile(gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None,
                cuda: str | None, *, required: Literal[True] = True) -> GpuProfile: ...
@overload
def gpu_profile(gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None,
                cuda: str | None, *, required: bool) -> GpuProfile | None: ...
def gpu_profile(gpu: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None,
                cuda: str | None, *, required: bool = True) -> GpuProfile | None:
    from flagscan.hardware import HardwareError, profile_from_spec

    if gpu is None:
        if required:
            raise UserError("--gpu is required (a GPU-table name such as h200, a capability such as 9.0, or auto)")
        return None
    try:
        if gpu == "auto":
            from flagscan.hardware.detect import detect_profile

            return detect_profile(count=gpu_count, memory=gpu_memory, name=gpu_name, cuda=cuda)
        return profile_from_spec(gpu, count=gpu_count, memory=gpu_memory, name=gpu_name, cuda=cuda)
    except HardwareError as exc:
        raise UserError(str(exc)) from exc


def gpu_list(spec: str | None, gpu_count: int | None, gpu_memory: str | None, gpu_name: str | None, cuda: str | None,
             *, required: bool = True) -> list[tuple[str, GpuProfile]]:
    """`--gpu a,b,...` as (label, profile) pairs in the order given, each GPU once; [] when no
    --gpu is given and none is required. The numbers are checked even without a GPU."""
    from flagscan.hardware import HardwareError
    from flagscan.hardware.profile import parse_memory

    if gpu_count is not None and gpu_count < 1:
        raise UserError(f"--gpu-count must be at least 1, not {gpu_count}")
    if gpu_memory is not None:
        try:
            parse_memory(gpu_memory)
        except HardwareError as exc:
            raise UserError(str(exc)) from exc
    if spec is None:
        if required:
            raise UserError("--gpu is required (e.g. --gpu h200 or --gpu a100,h100,b200,rtx-pro-6000)")
        return []
    names = [s.strip() for s in spec.split(",")]
    if not all(names):
        raise UserError(f"--gpu wants GPU names separated by commas (h200 or a100,h100), not {spec!r}")
    out: dict[str, GpuProfile] = {}
    for name in dict.fromkeys(names):
        profile = gpu_profile(name, gpu_count, gpu_memory, gpu_name, cuda)
        if name == "auto":  # the detected GPU, named as the table knows it
            name = f"{profile.table_entry or profile.sm} (detected)"
        out.setdefault(name, profile)
    return list(out.items())


def parse_env(pairs: Iterable[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--env wants KEY=VALUE, not {pair!r}")
        env[key] = value
    return env


def model_facts(model_config: str | None, model_arch: str | None, model_path: str | None) -> ModelFacts | None:
    from flagscan.evaluate import ModelError, load_model

    try:
        return load_model(model_config, model_arch, model_path)
    except ModelError as exc:
        raise UserError(str(exc)) from exc
