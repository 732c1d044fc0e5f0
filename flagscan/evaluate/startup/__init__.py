"""evaluate: the startup phase (what SGLang runs and rejects after resolution, before serving)."""

from flagscan.evaluate.startup.run import StartupRaise, StartupResult, StartupWrite, run_entries, startup_world

__all__ = ["StartupRaise", "StartupResult", "StartupWrite", "run_entries", "startup_world"]
