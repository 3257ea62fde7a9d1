"""The measured batch width: kept per model, threads and CPU; what llm.batch = 0 opens; `pikelocal calibrate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import LLMSettings
from pikelocal.domain.errors import ConfigError
from pikelocal.llm.batch_width import machine_key, read_width, width_file, write_width
from pikelocal.llm.factory import batch_width, open_llm, width_key
from tests.support.cli import run_cli


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path / "home")}


def test_widths_are_kept_per_key_and_a_second_key_keeps_the_first(env: dict[str, str]) -> None:
    one, other = machine_key("m@1", 2), machine_key("m@1", 1)
    assert read_width(one, env) is None
    path = write_width(one, 4, {"rates": {"1": 15.2, "4": 39.3}}, env)
    write_width(other, 1, {}, env)
    assert path == Path(env["XDG_CACHE_HOME"]) / "pikelocal" / "batch-width.json"
    assert (read_width(one, env), read_width(other, env)) == (4, 1)
    assert json.loads(path.read_text())[one]["rates"] == {"1": 15.2, "4": 39.3}


def test_the_key_names_the_model_the_threads_and_the_offload() -> None:
    keys = {machine_key("a@1", 2), machine_key("b@1", 2), machine_key("a@1", 1), machine_key("a@1", 2, gpu_layers=-1)}
    assert len(keys) == 4


def test_without_xdg_the_file_is_under_home() -> None:
    assert width_file({"HOME": "/h"}) == Path("/h/.cache/pikelocal/batch-width.json")
    assert width_file({}) is None


def test_an_unreadable_file_means_not_measured(env: dict[str, str], caplog: pytest.LogCaptureFixture) -> None:
    path = width_file(env)
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert read_width("k", env) is None and "cannot read the measured batch width" in caplog.text
    path.write_text(json.dumps({"k": {"width": 0}}))
    assert read_width("k", env) is None  # a width below 1 is not a width


def test_llm_batch_set_wins_else_the_measured_width_else_one(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + bytes(100))
    assert batch_width(LLMSettings(batch=3), gguf) == 3
    assert batch_width(LLMSettings(), gguf) == 1  # conftest points XDG_CACHE_HOME at an empty folder
    write_width(width_key(LLMSettings(), gguf), 4, {})
    assert batch_width(LLMSettings(), gguf) == 4
    assert batch_width(LLMSettings(threads=1), gguf) == 1  # measured with another thread count: not this one


def test_a_negative_llm_batch_is_refused() -> None:
    with pytest.raises(ConfigError, match="llm.batch"):
        api.load_settings(environ={}, overrides={"llm.batch": -1})


def test_calibrate_measures_keeps_and_the_next_model_opened_uses_it(smollm2_path: Path, tmp_path: Path) -> None:
    settings = api.load_settings(environ={}, overrides={"llm.model": str(smollm2_path), "llm.threads": 1})
    assert api.measured_batch_width(settings) is None
    result = api.calibrate(settings)
    assert set(result.rates) == {1, 2, 4} and all(r > 0 for r in result.rates.values())
    best = max(result.rates.values())
    gains = result.rates[result.width] >= 1.1 * result.rates[1] and result.rates[result.width] >= 0.95 * best
    assert result.width == 1 or gains
    assert api.measured_batch_width(settings) == result.width
    llm = open_llm(settings)
    try:
        assert llm.max_parallel == result.width
    finally:
        llm.close()
    again = run_cli("--llm-model", str(smollm2_path), "--threads", "1", "calibrate", "--if-missing")
    assert again.returncode == 0, again.stderr
    assert f"Batch width {result.width} kept for this model" in again.stdout
