"""The one surface the front ends (CLI, TUI) call. Heavy libraries load lazily, on first use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.assets import ArtifactStatus, Manifest, check_artifact, load_manifest
from pikelocal.config import Settings, load_settings
from pikelocal.doctor import Section, run_doctor

if TYPE_CHECKING:
    from pikelocal.demo import DemoResult

__all__ = ["Settings", "load_settings", "model_statuses", "doctor", "demo"]


def model_statuses(settings: Settings, *, full: bool = False) -> tuple[Manifest, list[ArtifactStatus]]:
    """Every artifact of the manifest with its state (verified / missing / corrupt)."""
    manifest = load_manifest(settings.models_path())
    return manifest, [check_artifact(manifest, art, full=full) for art in manifest.artifacts]


def doctor(settings: Settings, kb: Path | None = None, *, full: bool = False) -> list[Section]:
    return run_doctor(settings, kb, full=full)


def demo(settings: Settings, kb_path: Path, emit: Callable[[str], None]) -> DemoResult:
    """Run the foundation demo (see ``pikelocal.demo``); ``emit`` receives readable lines."""
    from pikelocal.demo import run_demo

    return run_demo(settings, kb_path, emit)
