"""evaluate: a model config.json that cannot be read is a ModelError (one line, exit 2), never a traceback."""

from __future__ import annotations

import pytest

from flagscan.evaluate.world import ModelError, load_model


def test_a_config_that_is_not_json_says_where(tmp_path) -> None:
    (tmp_path / "config.json").write_text('{"architectures": ["A"],\n  oops}')
    with pytest.raises(ModelError, match=r"is not JSON \(.* at line 2\)"):
        load_model(str(tmp_path), None, None)


def test_a_config_that_is_not_utf8_is_a_model_error(tmp_path) -> None:
    (tmp_path / "config.json").write_bytes(b'{"model_type": "\xff"}')
    with pytest.raises(ModelError, match="is not UTF-8"):
        load_model(str(tmp_path / "config.json"), None, None)


def test_a_number_python_refuses_is_a_model_error(tmp_path) -> None:
    (tmp_path / "config.json").write_text('{"vocab_size": ' + "1" * 5000 + "}")
    with pytest.raises(ModelError, match="is not JSON"):
        load_model(str(tmp_path / "config.json"), None, None)
