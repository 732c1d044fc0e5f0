"""evaluate: the startup phase's interpreter: the resolution's, with the startup phase's parts.

One class, so that the startup code (run.py, serving.py) is typed against what it runs on;
predict.py adds the rule data's outside-base methods to it per run.
"""

from __future__ import annotations

from flagscan.evaluate.resolution.resolve import _Resolver
from flagscan.evaluate.startup.config_props import ConfigProperties
from flagscan.evaluate.startup.joins import JoinNeeds
from flagscan.evaluate.startup.outside import OutsideBaseMethods
from flagscan.evaluate.startup.run import GlobalWrites, SurvivalTracking
from flagscan.evaluate.startup.serving import BatchAsserts, SettingReads


class StartupInterpreter(JoinNeeds, SurvivalTracking, GlobalWrites, BatchAsserts, SettingReads, ConfigProperties,
                         OutsideBaseMethods, _Resolver):
    """The resolution's interpreter, run on into the startup phase: each part is off until
    run.py's run_entries switches it on (the resolution before it runs as it does alone)."""
