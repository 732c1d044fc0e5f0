"""inputs: launch commands (systemd, shell, compose, Kubernetes, argv) -> argv -> flag values."""

from flagscan.inputs.argv import FlagValue, ParsedCommand, parse_command
from flagscan.inputs.model import ArgToken, InputError, LaunchCommand
from flagscan.inputs.read import command_from_argv, read_launch_file

__all__ = [
    "ArgToken",
    "FlagValue",
    "InputError",
    "LaunchCommand",
    "ParsedCommand",
    "command_from_argv",
    "parse_command",
    "read_launch_file",
]
