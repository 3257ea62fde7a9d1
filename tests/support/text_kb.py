"""A real KB made from one short text file: what the answer and search tests over a few sentences share."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pikelocal import api
from pikelocal.embed.base import Encoder


def one_text_kb(
    root: Path, name: str, text: str, overrides: Mapping[str, object] | None = None, encoder: Encoder | None = None
) -> Path:
    """``text`` written to ``root/name`` and ingested into ``root/kb.sqlite`` (the settings' defaults with
    ``overrides``; ``encoder``: a stand-in, else the settings' own); the KB's path."""
    doc = root / name
    doc.write_text(text, encoding="utf-8")
    path = root / "kb.sqlite"
    settings = api.load_settings(environ={}, overrides=dict(overrides or {}))
    with api.open_kb(path, settings, encoder=encoder) as knowledge_base:
        assert knowledge_base.add([doc]).ingest.count("ingested") == 1, f"{doc}: not ingested"
    return path
