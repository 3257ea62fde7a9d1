"""Loading a script of build/ (not a package) as a module, for its tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BUILD = Path(__file__).resolve().parents[2] / "build"


def load_build_script(name: str) -> ModuleType:
    """``build/<name>.py`` freshly executed as a module of its own (module-level state starts anew); ``name`` may
    name a sub-folder: ``bench/bench_review`` is build/bench/bench_review.py."""
    spec = importlib.util.spec_from_file_location(f"build_{name.replace('/', '_')}", BUILD / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
