"""Does the encoder at hand compute the numbers this KB was built with? (``kb_meta.encoder_probes``)

The encoder id says which model built a KB, not which numbers it gave: the same id built with another
quantization, or run by integer kernels that saturate on this CPU, gives vectors from another numeric world,
and searching stored vectors with them silently loses recall. So a KB keeps the vectors of a few fixed probe
texts (``pikelocal.embed.probes``) from the encoder that built it, and every open with an encoder compares.
"""

from __future__ import annotations

import base64
import logging
import weakref
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pikelocal.domain.errors import EncoderNumericsError
from pikelocal.embed.probes import MIN_PROBE_COSINE, PROBE_VERSION, ProbeEncoder, probe_agreement, probe_vectors

log = logging.getLogger(__name__)

META_KEY = "encoder_probes"
_cache: weakref.WeakKeyDictionary[Any, NDArray[np.float32]] = weakref.WeakKeyDictionary()


class MetaHolder(Protocol):
    """What the check needs of an open KB: its ``kb_meta`` (a ``Store``, or the ``Db`` the Store opens with)."""

    @property
    def path(self) -> Path: ...

    @property
    def readonly(self) -> bool: ...

    def meta(self) -> dict[str, Any]: ...

    def set_meta(self, key: str, value: Any) -> None: ...


def encoder_build(encoder: ProbeEncoder) -> str:
    """One line naming an encoder build: its id, and (ONNX encoders) quantization, model file and runtime."""
    build = getattr(encoder, "build", "")
    return f"{encoder.model_id} ({build})" if build else encoder.model_id


def current_probes(encoder: ProbeEncoder) -> NDArray[np.float32]:
    """The encoder's probe vectors, computed once per encoder object."""
    try:
        cached = _cache.get(encoder)
    except TypeError:  # not weak-referenceable: compute every time
        return probe_vectors(encoder)
    if cached is None:
        cached = probe_vectors(encoder)
        _cache[encoder] = cached
    return cached


def pack(vectors: NDArray[np.float32], build: str) -> dict[str, Any]:
    v = np.ascontiguousarray(vectors, dtype="<f4")
    return {
        "version": PROBE_VERSION,
        "build": build,
        "shape": list(v.shape),
        "float32_b64": base64.b64encode(v.tobytes()).decode("ascii"),
    }


def unpack(record: Any) -> NDArray[np.float32] | None:
    """The stored probe vectors, or None when the record is missing, of another probe version, or damaged."""
    if not isinstance(record, dict) or record.get("version") != PROBE_VERSION:
        return None
    try:
        raw = base64.b64decode(str(record["float32_b64"]), validate=True)
        shape = tuple(int(n) for n in record["shape"])
        return np.frombuffer(raw, dtype="<f4").reshape(shape).astype(np.float32)
    except (KeyError, TypeError, ValueError):
        return None


def record_probes(store: MetaHolder, encoder: ProbeEncoder) -> None:
    """Store the encoder's probe vectors as the KB's (a new KB, or after re-embedding every vector)."""
    store.set_meta(META_KEY, pack(current_probes(encoder), encoder_build(encoder)))


def check_probes(store: MetaHolder, encoder: ProbeEncoder, *, force: bool = False) -> float | None:
    """Compare the encoder's probe vectors with the KB's; returns their agreement (None when none were stored).

    A KB without probes (created before they existed) gets this encoder's, so later opens are checked.
    Raises EncoderNumericsError below MIN_PROBE_COSINE unless ``force``, which logs a warning instead.
    """
    record = store.meta().get(META_KEY)
    stored = unpack(record)
    if stored is None:
        if not store.readonly:
            record_probes(store, encoder)
        return None
    agreement = probe_agreement(stored, current_probes(encoder))
    if agreement >= MIN_PROBE_COSINE:
        return agreement
    was = record.get("build", "?") if isinstance(record, dict) else "?"
    message = (
        f"{store.path} was embedded by {was}, but this encoder is {encoder_build(encoder)}: their probe vectors"
        f" agree only to cosine {agreement:.4f} (< {MIN_PROBE_COSINE}), so searching would silently lose recall;"
        f" re-embed it with `pikelocal reembed {store.path}`, or pass --force to use it anyway"
    )
    if force:
        log.warning("%s (--force: opening it anyway)", message)
        return agreement
    raise EncoderNumericsError(message)
