"""State of the process outside the analysed code: `os.environ` and logging's loggers.

Writes into `os.environ` when the environment is open (the gates analysis: every variable not
given is unknown). The environment is one for every path, so a given variable that code sets or
removes holds its old value or the new one, never certainly either; one not given stays unknown.
Under FLAGSCAN_STRICT=1 (a give-up fails the test with GaveUp)."""

from __future__ import annotations

import pytest

from tests.evaluate.helpers import options, run

pytestmark = pytest.mark.usefixtures("strict")

RENAME = '''
import os

def _print_deprecated_env(new_name, old_name):
    if old_name in os.environ:
        os.environ[new_name] = os.environ[old_name]

def main():
    _print_deprecated_env("SGLANG_NEW", "SGL_OLD")
    return os.environ.get("SGLANG_NEW"), os.environ.get("SGLANG_OTHER"), "SGLANG_NEW" in os.environ
'''


def test_a_store_into_the_open_environment_keeps_the_old_value_possible(tmp_path):
    # 0.5.10 environ.py _print_deprecated_env, run at import
    (new, other, present), interp = run(tmp_path, RENAME, env={"SGLANG_NEW": "1", "SGL_OLD": "2"}, env_open=True)
    assert options(new) == {"1", "2"}
    assert options(other) is None          # not given: unknown, as before
    assert present is True                 # set before and after
    assert interp.stops == []


def test_a_store_of_a_variable_not_given_leaves_it_unknown(tmp_path):
    (new, _other, present), interp = run(tmp_path, RENAME, env_open=True)
    assert options(new) is None and options(present) is None
    assert interp.stops == []


def test_a_delete_from_the_open_environment_makes_presence_unknown(tmp_path):
    value, interp = run(tmp_path, '''
import os

def main():
    if os.environ.get("SGLANG_Y"):
        del os.environ["SGLANG_X"]
    return "SGLANG_X" in os.environ, os.environ.get("SGLANG_X")
''', env={"SGLANG_X": "1"}, env_open=True)
    present, got = value
    assert options(present) is None
    assert options(got) == {"1", None}
    assert interp.stops == []


def test_a_loggers_attributes_are_its_own_state(tmp_path):
    # kernel_api_logging.py `logger.propagate = False`; a logger's state is read back as written,
    # an attribute never written is not known (not a method), and a query method is not None
    value, interp = run(tmp_path, '''
import logging

logger = logging.getLogger(__name__)
logger.propagate = False

def main():
    return logger.propagate, logger.level, logger.isEnabledFor(logging.DEBUG), logger.info("x")
''')
    propagate, level, enabled, logged = value
    assert propagate is False
    assert options(level) is None and options(enabled) is None
    assert logged is None
    assert interp.stops == []
