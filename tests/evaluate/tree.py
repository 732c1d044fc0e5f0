"""A small SGLang-shaped tree written per test: the resolution idioms the resolve tests reproduce."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from flagscan.cli import main

SERVER_ARGS = '''
"""ServerArgs with a read-only guard, a deprecated alias, a translated deprecated flag."""

import argparse
import dataclasses
import logging
from typing import Optional

import torch

logger = logging.getLogger(__name__)


def is_sm90_supported():
    return torch.cuda.get_device_capability()[0] == 9


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    attention_backend: Optional[str] = None
    speculative_algorithm: Optional[str] = None
    enable_fusion: bool = False
    fusion_backend: Optional[str] = None
    prefill_backend: Optional[str] = None
    buffer_size: Optional[int] = None
    cuda_graph_max_bs: Optional[int] = None
    disable_overlap: bool = False
    strategy: str = "auto"
    modalities: Optional[str] = None
    _backend_explicitly_set: Optional[bool] = None

    def __post_init__(self):
        self._handle_missing_default_values()
        self._handle_deprecated_args()
        self._handle_fusion()
        self._handle_speculative()
        self._handle_strategy()

    def __setattr__(self, name, value):
        if not name.startswith("_") and getattr(self, "_frozen", False):
            raise AttributeError(f"server_args.{name} assigned after resolution")
        object.__setattr__(self, name, value)

    def _handle_missing_default_values(self):
        if self.buffer_size is None:
            self.buffer_size = 1000
        if self._backend_explicitly_set is None:
            self._backend_explicitly_set = self.attention_backend is not None

    def _handle_deprecated_args(self):
        if self.enable_fusion and self.fusion_backend is None:
            logger.warning("--enable-fusion is deprecated; use --fusion-backend=auto")
            self.fusion_backend = "auto"

    def _handle_fusion(self):
        if self.fusion_backend is not None and not is_sm90_supported():
            self.fusion_backend = None

    def _handle_speculative(self):
        if self.speculative_algorithm is not None or self.tp_size > 4 or self.attention_backend == "fa3":
            if self.cuda_graph_max_bs is None:
                self.cuda_graph_max_bs = 48
        if is_sm90_supported():
            self.disable_overlap = True

    def _handle_strategy(self):
        view = self
        if self.strategy == "extra_buffer" and self.speculative_algorithm is not None:
            raise ValueError(f"--strategy {view.strategy} is not supported with {view.modalities_text()}")
        if self.tp_size == 3:
            assert self.tp_size % 2 == 0

    def modalities_text(self):
        return unknown_helper()

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument("--model-path", type=str, required=True)
        parser.add_argument("--tp-size", type=int, default=ServerArgs.tp_size)
        parser.add_argument("--attention-backend", type=str, choices=["triton", "fa3"], default=None)
        parser.add_argument("--speculative-algorithm", type=str, choices=["EAGLE"], default=None)
        parser.add_argument("--fusion-backend", type=str, default=None)
        parser.add_argument(
            "--enable-fusion",
            action=DeprecatedStoreTrueAction,
            dest="enable_fusion",
            new_flag="--fusion-backend=auto",
            help="Deprecated: use --fusion-backend=auto instead.",
        )
        parser.add_argument("--prefill-backend", type=str, default=ServerArgs.prefill_backend)
        parser.add_argument(
            "--old-prefill-backend",
            dest="prefill_backend",
            action=DeprecatedAliasStoreAction,
            new_flag="--prefill-backend",
            default=argparse.SUPPRESS,
            help="[Deprecated] Use --prefill-backend instead.",
        )
        parser.add_argument("--buffer-size", type=int, default=None)
        parser.add_argument("--cuda-graph-max-bs", type=int, default=None)
        parser.add_argument("--disable-overlap", action="store_true")
        parser.add_argument("--strategy", type=str, default=ServerArgs.strategy)

    @classmethod
    def from_cli_args(cls, args: argparse.Namespace):
        attrs = [attr.name for attr in dataclasses.fields(cls) if hasattr(args, attr.name)]
        return cls(**{attr: getattr(args, attr) for attr in attrs})


class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag=None, nargs=0, const=True, default=False, **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, nargs=nargs, const=const, default=default, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)


class DeprecatedAliasStoreAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag=None, **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


def prepare_server_args(argv):
    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    return ServerArgs.from_cli_args(parser.parse_args(argv))
'''


def with_handler(handler: str) -> str:
    """SERVER_ARGS with one more ServerArgs method, `handler` (its source, indented as a method,
    starting `def _NAME(self):`), called after _handle_strategy."""
    name = handler.strip().split("(", 1)[0].removeprefix("def ")
    return SERVER_ARGS.replace("        self._handle_strategy()\n",
                               f"        self._handle_strategy()\n        self.{name}()\n"
                               ).replace("    def modalities_text(self):",
                                         handler.lstrip("\n") + "\n    def modalities_text(self):")


def write_tree(root: Path, server_args: str = SERVER_ARGS) -> Path:
    """The tree under `root` (a `sglang/` package), returned as the --sglang path."""
    pkg = root / "sglang"
    (pkg / "srt").mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "version.py").write_text('__version__ = "0.5.91"\n')
    (pkg / "srt" / "__init__.py").write_text("")
    (pkg / "srt" / "server_args.py").write_text(server_args)
    return root


def resolve_json(tree: Path, cache: Path, argv: list[str], gpu: str = "h200", extra: tuple[str, ...] = ()) -> dict:
    result = CliRunner().invoke(main, ["--sglang", str(tree), "--cache-dir", str(cache), "-q", "resolve",
                                       "--gpu", gpu, *extra, "--format", "json", "--", *argv])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)
