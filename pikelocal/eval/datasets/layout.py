"""Which loader a path needs: a BEIR folder (``corpus.jsonl``) or a pooled multi-hop set (``*_corpus.json``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pikelocal.domain.errors import InputError


def detect_layout(path: Path) -> Literal["beir", "multihop"]:
    """The layout at ``path``: beir for a folder with corpus.jsonl (or that file), multihop for *_corpus.json."""
    path = Path(path)
    if path.is_dir():
        if (path / "corpus.jsonl").is_file():
            return "beir"
        if any(path.glob("*_corpus.json")):
            return "multihop"
    elif path.is_file():
        if path.name == "corpus.jsonl":
            return "beir"
        if path.name.endswith("_corpus.json"):
            return "multihop"
    elif not path.exists():
        raise InputError(f"{path}: not found")
    raise InputError(f"{path}: not an evaluation set (expected a folder with corpus.jsonl, or a *_corpus.json file)")
