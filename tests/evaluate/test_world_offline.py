"""evaluate: outside clients in offline mode (rules/world.toml [offline]): with HF_HUB_OFFLINE on,
a Hugging Face Hub request raises OfflineModeIsEnabled, so SGLang's `try: HfApi().repo_info(...)
except Exception` takes its handler for certain; with it unset the listing is not known."""

from __future__ import annotations

from pathlib import Path

import pytest

from flagscan.evaluate.interp.values import External, Raised, Unknown
from flagscan.evaluate.world import World
from flagscan.hardware import profile_from_spec
from flagscan.ruledata import load
from tests.evaluate.tree import resolve_json, with_handler, write_tree

RULE = load("world")["offline"]


def _world(env: dict, open_env: bool = False) -> World:
    return World(profile_from_spec("h200"), env, env_open=open_env)


def test_the_rule_names_variables_true_values_an_exception_and_what_sends_requests() -> None:
    assert RULE["env"] and RULE["true"] and all(v == v.upper() for v in RULE["true"])
    assert RULE["exception"]["name"] and "ConnectionError" in RULE["exception"]["bases"]
    assert RULE["clients"] and RULE["calls"]


@pytest.mark.parametrize("env, offline", [
    ({"HF_HUB_OFFLINE": "1"}, True),
    ({"HF_HUB_OFFLINE": "true"}, True),
    ({"TRANSFORMERS_OFFLINE": "YES"}, True),
    ({"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "1"}, False),   # the first with a value decides
    ({"HF_HUB_OFFLINE": "", "TRANSFORMERS_OFFLINE": "1"}, True),     # an empty one has none
    ({}, False),
])
def test_offline_mode_as_huggingface_hub_reads_its_variables(env, offline) -> None:
    assert _world(env).offline() is offline


def test_offline_mode_is_unknown_where_the_environment_is() -> None:
    assert isinstance(_world({}, open_env=True).offline(), Unknown)


def test_a_client_method_or_listed_function_raises_only_when_offline() -> None:
    on, off = _world({"HF_HUB_OFFLINE": "1"}), _world({})
    client = on.offline_call("huggingface_hub.HfApi")
    assert isinstance(client, External) and client.path == "huggingface_hub.HfApi()"
    raised = on.offline_call("huggingface_hub.HfApi().repo_info")
    assert isinstance(raised, Raised) and raised.exc.type_name == "OfflineModeIsEnabled"
    assert "OSError" in raised.exc.bases
    assert isinstance(on.offline_call("huggingface_hub.list_repo_files"), Raised)
    assert on.offline_call("huggingface_hub.hf_hub_download") is None   # serves the local cache
    assert off.offline_call("huggingface_hub.HfApi") is None
    assert off.offline_call("huggingface_hub.HfApi().repo_info") is None


HANDLER = '''
    def _handle_hub(self):
        from huggingface_hub import HfApi

        try:
            files = [s.rfilename for s in HfApi().repo_info(self.model_path).siblings]
        except Exception:
            files = None
        if files is None:
            self.prefill_backend = "no_listing"
        try:
            HfApi().model_info(self.model_path)
        except OSError:
            self.buffer_size = 7
'''

TREE = with_handler(HANDLER)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("offline-tree"), TREE)


def test_offline_launch_takes_the_handlers_for_certain(tree, tmp_path) -> None:
    data = resolve_json(tree, tmp_path / "cache", ["--model-path", "org/model"],
                        extra=("--env", "HF_HUB_OFFLINE=1", "--no-startup"))
    settings = data["settings"]
    assert settings["prefill_backend"]["value"] == "no_listing" and settings["prefill_backend"]["certain"] is True
    # caught by `except OSError`: OfflineModeIsEnabled is a ConnectionError
    assert settings["buffer_size"]["value"] == 7 and settings["buffer_size"]["certain"] is True


def test_online_launch_decides_nothing_about_the_hub(tree, tmp_path) -> None:
    data = resolve_json(tree, tmp_path / "cache", ["--model-path", "org/model"], extra=("--no-startup",))
    settings = data["settings"]
    assert settings["prefill_backend"]["certain"] is False
    assert set(settings["prefill_backend"]["options"]) == {"no_listing", None}
    # an outside call is not taken to raise where nothing says it does: no `except OSError`
    assert settings["buffer_size"]["value"] != 7
