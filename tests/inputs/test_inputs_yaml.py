"""inputs: docker-compose files and Kubernetes manifests."""

from __future__ import annotations

from pathlib import Path

import pytest

from flagscan.inputs import InputError, read_launch_file

FIXTURES = Path(__file__).parents[2] / "fixtures" / "units"


def write(tmp_path: Path, text: str, name: str = "docker-compose.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_compose_fixture_string_and_list_commands() -> None:
    folded, bare = read_launch_file(FIXTURES / "docker-compose.yaml")
    assert folded.kind == "compose" and folded.launcher == ("python3", "-m", "sglang.launch_server")
    assert folded.env == {"CUDA_VISIBLE_DEVICES": "0,1,2,3", "HF_HOME": "/root/.cache/huggingface"}
    assert [(a.text, a.line, a.column) for a in folded.args[:4]] == [
        ("--model-path", 16, 7), ("Qwen/Qwen3.5-122B-A10B", 16, 20), ("--tp", 17, 7), ("4", 17, 12)]
    # Only flags and an SGLang image: the image's entrypoint is taken to be SGLang.
    assert bare.launcher == () and bare.env == {"HF_HOME": "/root/.cache/huggingface"}
    assert [(a.text, a.line, a.column) for a in bare.args[:2]] == [
        ("--model-path", 36, 9), ("Qwen/Qwen3.5-122B-A10B", 37, 9)]


def test_compose_entrypoint_quoting_and_interpolation(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TP=2\n")
    path = write(tmp_path, """services:
  a:
    image: custom/image
    entrypoint: ["python3", "-m", "sglang.launch_server"]
    command: --tp ${TP} --served-model-name "my model" --port ${PORT:-30000} --x $$HOME --m ${MODEL}
""")
    command = read_launch_file(path)[0]
    assert [(a.text, a.unresolved) for a in command.args] == [
        ("--tp", ()), ("2", ()), ("--served-model-name", ()), ("my model", ()), ("--port", ()), ("30000", ()),
        ("--x", ()), ("$HOME", ()), ("--m", ()), ("${MODEL}", ("MODEL",))]
    assert any("PORT" in n for n in command.notes)


def test_compose_flags_without_sglang_image_are_not_a_launch(tmp_path: Path) -> None:
    path = write(tmp_path, "services:\n  a:\n    image: other/image\n    command: [--tp, '2']\n")
    with pytest.raises(InputError, match="no SGLang launch command found"):
        read_launch_file(path)


def test_compose_shell_command_and_merge_keys(tmp_path: Path) -> None:
    path = write(tmp_path, """x-common: &common
  image: lmsysorg/sglang:latest
  environment:
    - HF_HOME=/hf
services:
  a:
    <<: *common
    command: ["/bin/bash", "-c", "python3 -m sglang.launch_server --tp $${TP:-8} --port 1"]
""")
    command = read_launch_file(path)[0]
    assert command.env == {"HF_HOME": "/hf"}
    assert [a.text for a in command.args] == ["--tp", "8", "--port", "1"]
    assert command.args[0].line == 8


def test_k8s_fixture_multi_document() -> None:
    deployment, job = read_launch_file(FIXTURES / "deployment.yaml")
    assert deployment.kind == "k8s" and deployment.launcher == ("python3", "-m", "sglang.launch_server")
    assert deployment.env == {"MODEL": "Qwen/Qwen3.5-122B-A10B", "HF_HOME": "/models/huggingface"}
    assert [(a.text, a.line, a.column) for a in deployment.args[:2]] == [
        ("--model-path", 30, 15), ("Qwen/Qwen3.5-122B-A10B", 31, 15)]
    assert job.launcher == ("sglang", "serve") and job.env == {"CUDA_VISIBLE_DEVICES": "0"}
    assert [(a.text, a.line) for a in job.args] == [
        ("--model-path", 79), ("Qwen/Qwen3-0.6B", 79), ("--port", 80), ("30010", 80),
        ("--mem-fraction-static", 80), ("0.5", 80)]


def test_k8s_expansion_and_args_only(tmp_path: Path) -> None:
    path = write(tmp_path, """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: s
      image: lmsysorg/sglang:v0.5.10
      args: ["--model-path", "$(MODEL)", "--x", "$$(MODEL)", "--tok", "$(TOKEN)", "--tp", "$(TP)"]
      env:
        - {name: BASE, value: /models}
        - {name: MODEL, value: "$(BASE)/qwen"}
        - name: TOKEN
          valueFrom: {secretKeyRef: {name: s, key: k}}
      envFrom:
        - configMapRef: {name: cm}
""", name="pod.yaml")
    command = read_launch_file(path)[0]
    assert command.launcher == ()
    assert [(a.text, a.unresolved) for a in command.args] == [
        ("--model-path", ()), ("/models/qwen", ()), ("--x", ()), ("$(MODEL)", ()),
        ("--tok", ()), ("$(TOKEN)", ("TOKEN",)), ("--tp", ()), ("$(TP)", ("TP",))]
    assert command.env == {"BASE": "/models", "MODEL": "/models/qwen"}
    assert any("envFrom" in n for n in command.notes)


def test_k8s_statefulset_with_list_kind(tmp_path: Path) -> None:
    path = write(tmp_path, """apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: s}
    spec:
      template:
        spec:
          containers:
            - name: a
              image: busybox
              command: [sh]
            - name: b
              image: whatever
              command: [sglang, serve]
              args: [--tp, "2"]
""", name="sts.yml")
    command = read_launch_file(path)[0]
    assert command.launcher == ("sglang", "serve") and [a.text for a in command.args] == ["--tp", "2"]


@pytest.mark.parametrize(("text", "reason"), [
    ("services:\n  a:\n    command: [python3\n  b: 1\n", "malformed YAML"),
    ("a: [1, 2\n", "malformed YAML"),
    ("model-path: x\ntp-size: 2\n", "no SGLang launch command found"),
    ("services:\n  a:\n    image: x\n    command: {a: 1}\n", "must be a string or a list"),
])
def test_yaml_input_errors(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(InputError, match=reason) as info:
        read_launch_file(write(tmp_path, text, name="x.yaml"))
    assert "\n" not in str(info.value)


def test_broken_fixture() -> None:
    with pytest.raises(InputError, match=r"broken.yaml:5: malformed YAML"):
        read_launch_file(FIXTURES / "malformed" / "broken.yaml")
