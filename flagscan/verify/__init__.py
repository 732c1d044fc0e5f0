"""verify: compare flagscan's prediction with what SGLang really resolved (server, log, local run)."""

from flagscan.verify.compare import Difference, Kind, VerifyReport, compare
from flagscan.verify.observed import LogWarning, Observed, VerifyError

__all__ = ["Difference", "Kind", "LogWarning", "Observed", "VerifyError", "VerifyReport", "compare"]
