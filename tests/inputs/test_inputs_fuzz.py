"""inputs: whatever a launch file holds, reading it raises nothing but InputError."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from flagscan.facts.flags import Flag, Inventory, Location
from flagscan.inputs import InputError, parse_command, read_launch_file

_ALPHABET = list("[]=\\\"' \t\n$%{}();&|<>#-:@+!`*?~,.01aAbxyz_/") + ["\\\n", "${", "$(", "\r\n", "é", "\x00"]
_WORDS = ["python3", "-m", "sglang.launch_server", "sglang", "serve", "--tp", "4", "--model-path", "bash", "-c",
          "exec", "env", "A=1", "$A", "${A}", "$$", "%n", "%%", ";", "\\;", "--config", "x.yaml"]
_text = st.lists(st.one_of(st.sampled_from(_ALPHABET), st.sampled_from(_WORDS)), max_size=40).map("".join)
_SEEDS = {
    "unit.service": "[Service]\nEnvironment={0}\nExecStart=/usr/bin/python3 -m sglang.launch_server {0}\n",
    "run.sh": "#!/bin/sh\n{0}\npython -m sglang.launch_server {0}\n",
    "compose.yaml": "services:\n  a:\n    image: sglang\n    command: {0}\n    environment: [{0}]\n",
    "pod.yaml": "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command: [sh, -c, {0}]\n    args: [{0}]\n",
    "plain": "{0}",
}
_DIR = Path(tempfile.mkdtemp(prefix="flagscan-fuzz-"))
_INVENTORY = Inventory((
    Flag("tp_size", ("--tp-size", "--tp"), Location("sglang/srt/server_args.py", 1), type="int"),
    Flag("model_path", ("--model-path",), Location("sglang/srt/server_args.py", 2), required=True),
    Flag("config", ("--config",), Location("sglang/srt/server_args.py", 3)),
), config_option="--config")


def _read(name: str, body: str, kind: str | None) -> None:
    path = _DIR / name
    path.write_text(body, encoding="utf-8", errors="surrogatepass")
    try:
        commands = read_launch_file(path, kind)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    for command in commands:
        parse_command(command, _INVENTORY)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_SEEDS)), _text, st.sampled_from([None, "systemd", "shell", "compose", "k8s", "argv"]))
def test_seeded_files_raise_only_input_error(name: str, fill: str, kind: str | None) -> None:
    _read(name, _SEEDS[name].format(fill), kind)


@settings(max_examples=60, deadline=None)
@given(_text, st.sampled_from(sorted(_SEEDS)))
def test_arbitrary_text_raises_only_input_error(body: str, name: str) -> None:
    _read(name, body, None)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=200))
def test_unicode_text_raises_only_input_error(body: str) -> None:
    for name in ("unit.service", "run.sh", "compose.yaml"):
        _read(name, body, None)
