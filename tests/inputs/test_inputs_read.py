"""inputs: kind detection and every InputError a launch file can raise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flagscan.inputs import InputError, read_launch_file
from flagscan.inputs.model import MAX_BYTES

FIXTURES = Path(__file__).parents[2] / "fixtures" / "units"


@pytest.mark.parametrize(("name", "kind"), [
    ("sglang-qwen.service", "systemd"),
    ("sglang-qwen-extra-buffer.service", "systemd"),
    ("sglang-envfile.service", "systemd"),
    ("launch-qwen.sh", "shell"),
    ("sglang-qwen.cmd", "shell"),
    ("docker-compose.yaml", "compose"),
    ("deployment.yaml", "k8s"),
])
def test_fixture_kinds(name: str, kind: str) -> None:
    commands = read_launch_file(FIXTURES / name)
    assert commands and {c.kind for c in commands} == {kind}
    assert all(c.path == str(FIXTURES / name) for c in commands)


def test_extra_buffer_variant_differs_by_one_flag() -> None:
    base = [a.text for a in read_launch_file(FIXTURES / "sglang-qwen.service")[0].args]
    extra = [a.text for a in read_launch_file(FIXTURES / "sglang-qwen-extra-buffer.service")[0].args]
    assert [t for t in extra if t not in base] == ["--mamba-scheduler-strategy", "extra_buffer"]


def test_content_detection_without_suffix(tmp_path: Path) -> None:
    unit = tmp_path / "unit"
    unit.write_text("[Service]\nExecStart=/usr/bin/python3 -m sglang.launch_server --tp 2\n")
    assert read_launch_file(unit)[0].kind == "systemd"
    manifest = tmp_path / "manifest"
    manifest.write_text("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    command: [sglang, serve]\n")
    assert read_launch_file(manifest)[0].kind == "k8s"
    drop_in = tmp_path / "x.service.d"
    drop_in.mkdir()
    (drop_in / "o.conf").write_text("[Service]\nExecStart=\nExecStart=/usr/bin/sglang serve --tp 1\n")
    assert read_launch_file(drop_in / "o.conf")[0].launcher == ("/usr/bin/sglang", "serve")


def test_explicit_kind(tmp_path: Path) -> None:
    path = tmp_path / "cmd.txt"
    path.write_text("--model-path m --tp 2\n")
    assert read_launch_file(path, kind="argv")[0].kind == "argv"
    with pytest.raises(InputError, match="no SGLang launch command found"):
        read_launch_file(path, kind="shell")
    with pytest.raises(InputError, match="unknown launch file kind"):
        read_launch_file(path, kind="helm")


def _huge(path: Path) -> None:
    with open(path, "wb") as handle:
        handle.truncate(MAX_BYTES + 1)
        handle.seek(0)
        handle.write(b"python -m sglang.launch_server\n")


@pytest.mark.parametrize(("make", "reason"), [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: p.write_bytes(b"\x7fELF\x00\x00binary"), "binary file"),
    (lambda p: p.write_bytes(b"python -m sglang.launch_server \xff\xfe"), "not UTF-8"),
    (_huge, "too large"),
    (lambda p: p.write_text(""), "no SGLang launch command found"),
    (lambda p: p.write_text("#!/bin/sh\necho hello\n"), "no SGLang launch command found"),
])
def test_input_errors(tmp_path: Path, make, reason: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "launch"
    make(path)
    with pytest.raises(InputError) as info:
        read_launch_file(path)
    message = str(info.value)
    assert reason in message and str(path) in message and "\n" not in message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.service"
    path.write_text("[Service]\nExecStart=/usr/bin/sglang serve\n")
    path.chmod(0)
    with pytest.raises(InputError, match="cannot read"):
        read_launch_file(path)


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "malformed").iterdir()))
def test_malformed_fixtures(name: str) -> None:
    with pytest.raises(InputError) as info:
        read_launch_file(FIXTURES / "malformed" / name)
    assert name in str(info.value)
