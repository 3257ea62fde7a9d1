"""build/setup.py's last stage measures the LLM batch width once, and never fails set-up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.build_scripts import load_build_script


class Stages:
    def __init__(self, fail: bool) -> None:
        self.fail, self.ran = fail, []

    def run(self, name: str, cmd: list[str]) -> None:
        self.ran.append(cmd[1:])
        if self.fail:
            raise SystemExit(f"Error: set-up stage '{name}' failed (exit 3)")


@pytest.fixture
def setup(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = load_build_script("setup")
    monkeypatch.setattr(module, "PY", Path(sys.executable))  # the probe runs in this environment
    return module


def test_a_width_already_kept_is_not_measured_again(setup: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(setup.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0))
    stages = Stages(fail=False)
    setup.batch_width(stages)
    assert stages.ran == []


def test_without_one_calibrate_runs_and_its_failure_does_not_stop_set_up(
    setup: ModuleType, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIKELOCAL_LLM_MODEL", "/nonexistent.gguf")  # the probe fails too: nothing kept for it
    stages = Stages(fail=True)
    setup.batch_width(stages)
    assert stages.ran == [["calibrate"]]
    assert "LLM batch width not measured, calls go one at a time" in capsys.readouterr().out
