"""The one place that opens a KB for work: the store with the encoder it was built with, the LLM behind the
KB's completion cache, and closing what was opened (never what the caller passed in)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.assets import load_manifest
from pikelocal.config import Settings
from pikelocal.domain.errors import PikeError
from pikelocal.embed.base import Encoder
from pikelocal.embed.factory import open_encoder
from pikelocal.llm.base import LLM
from pikelocal.store.damage import corrupt
from pikelocal.store.db import DAMAGE_ERRORS
from pikelocal.store.store import Store
from pikelocal.text import concepts

if TYPE_CHECKING:
    from pikelocal.llm.cached import CachedLLM

log = logging.getLogger(__name__)


def encoder_settings_for(settings: Settings, kb_path: Path, *, key: str | None = None) -> Settings:
    """Settings whose encoder is the one ``kb_path`` was built with, when the user did not choose one.

    A KB built with MiniLM is searched with MiniLM without ``--encoder minilm``; an explicit choice that
    differs is left alone, so opening the KB reports the mismatch.
    """
    if settings.encoder.model != "default" or not kb_path.exists() or kb_path.stat().st_size == 0:
        return settings
    try:
        with Store.open_existing(kb_path, key=key, check=False) as store:  # the opener that follows checks it
            kb_encoder = store.encoder_id
    except Exception as exc:  # not a KB yet, or unreadable: Store.open reports it properly later
        log.debug("cannot read the encoder of %s: %s", kb_path, exc)
        return settings
    try:
        art = load_manifest(settings.models_path()).find(kb_encoder) if kb_encoder else None
    except PikeError as exc:  # no models installed: commands that need none (docs, stats) still work
        log.debug("cannot read the model manifest: %s", exc)
        return settings
    if art is None or art.kind != "onnx-encoder":
        return settings
    return replace(settings, encoder=replace(settings.encoder, model=art.id))


@dataclass
class Session:
    """An open KB (writable) with its encoder; :meth:`llm` loads the model on first use."""

    settings: Settings  # naming the encoder the KB was built with
    store: Store
    encoder: Encoder
    load_llm: Callable[[], LLM] | None = None  # the caller's model, loaded on first use; None: the configured one
    _cached: CachedLLM | None = field(default=None, init=False)

    def llm(self) -> CachedLLM:
        """The caller's LLM, or the configured one, loaded now and put behind this KB's completion cache, so a
        rerun repeats no finished call."""
        if self._cached is None:
            from pikelocal.llm.cached import CachedLLM
            from pikelocal.llm.factory import open_llm

            inner = self.load_llm() if self.load_llm is not None else open_llm(self.settings)
            self._cached = CachedLLM(inner, self.store.cache)
        return self._cached

    def close(self) -> None:
        """Close the LLM this session loaded (a model the caller passed in is the caller's to close)."""
        if self._cached is not None and self.load_llm is None:
            self._cached.close()
        self._cached = None


def use_concepts(path: str) -> None:
    """The concept groups this process aligns vocabularies with: the built-in ones, extended by the file at
    ``path`` (answer.concepts), or none at all ("none"; a benchmark's comparison)."""
    if path.strip().lower() == "none":
        concepts.use_groups(concepts.ConceptGroups({}))
    else:
        concepts.use_groups(concepts.load_groups(Path(path)) if path else None)


@contextmanager
def kb_session(
    settings: Settings,
    kb_path: Path,
    *,
    encoder: Encoder | None = None,
    load_llm: Callable[[], LLM] | None = None,
    create: bool = False,
    key: str | None = None,
) -> Iterator[Session]:
    """``kb_path`` opened for writing with the encoder it was built with (loaded unless given), after the probe
    check; everything this opened is closed on the way out. ``key``: see :func:`pikelocal.store.keys.key_for`."""
    settings = encoder_settings_for(settings, kb_path, key=key)
    use_concepts(settings.answer.concepts)
    encoder = encoder or open_encoder(settings)
    store = Store.open(
        kb_path,
        encoder_id=encoder.model_id,
        dim=encoder.dim,
        create=create,
        probe=encoder,
        force=settings.encoder.force,
        key=key,
    )
    session = Session(settings, store, encoder, load_llm)
    try:
        yield session
    except DAMAGE_ERRORS as e:  # damage quick_check could not see, met while working: one line naming the file
        raise corrupt(kb_path, str(e)) from e
    finally:
        try:
            session.close()
        finally:
            store.close()
