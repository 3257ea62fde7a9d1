"""Build the configured encoder from settings (onnxruntime is imported lazily)."""

from __future__ import annotations

from pikelocal.assets import resolve_encoder_dir
from pikelocal.config import Settings
from pikelocal.embed.base import Encoder


def open_encoder(settings: Settings) -> Encoder:
    from pikelocal.embed.onnx import OnnxEncoder

    folder = resolve_encoder_dir(settings.encoder.model, settings.models_path())
    return OnnxEncoder(
        folder,
        threads=settings.encoder.threads or None,
        batch_size=settings.encoder.batch_size,
        late_window=settings.encoder.late_window or None,
    )
