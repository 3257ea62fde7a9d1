"""Damaged KB files for the damaged-KB tests: a real KB built with the hashing encoder, then bits flipped in the
middle of it, deterministically.

The damage is 64 bit flips: the first 8 bytes of one b-tree leaf page are inverted. That page is the middle leaf of a
table (found with SQLite's ``dbstat``), so it lies inside the file, and its page-type byte becomes invalid, which
SQLite is sure to notice when it reads the page (random flips in a vector blob would go unnoticed: SQLite keeps no
checksums).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import apsw

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder

DOCS = 6
PARAGRAPHS = 60


def write_docs(folder: Path) -> Path:
    """Six Markdown files, about 40 chunks together: enough for tables of several leaf pages."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(DOCS):
        paragraphs = (
            f"Paragraph {n} of report {i}: the pump {n * i} is serviced as the manual says in its part {n}. " * 3
            for n in range(PARAGRAPHS)
        )
        (folder / f"report{i}.md").write_text(f"# Report {i}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")
    return folder


def build_kb(kb: Path, docs: Path, settings: Settings, key: str | None = None) -> int:
    """Ingest ``docs`` into the new KB ``kb`` with the hashing encoder; the number of chunks."""
    with api.open_kb(kb, settings, encoder=HashEncoder(), key=key) as knowledge_base:
        report = knowledge_base.add([docs]).ingest
    assert report.count("ingested") == DOCS and not report.failed
    return sum(o.chunks for o in report.outcomes)


@dataclass(frozen=True)
class Flipped:
    page: int  # 1-based page number in the file
    cells: int  # rows (cells) the page held


def leaf_pages(kb: Path, table: str, key: str | None = None, pagetype: str = "leaf") -> list[tuple[int, int]]:
    """(page number, cells) of each page of ``table`` of ``pagetype`` (leaf, overflow), in file order."""
    conn = apsw.Connection(str(kb), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        if key is not None:
            conn.pragma("key", key)
        rows = conn.execute(
            "SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno", (table, pagetype)
        ).fetchall()
    finally:
        conn.close()
    return [(int(p), int(n)) for p, n in rows]


def flip_middle_pages(kb: Path, out: Path, tables: Sequence[str], key: str | None = None) -> dict[str, Flipped]:
    """Copy ``kb`` to ``out`` (a new file) with 64 bits flipped in the middle leaf page of each of ``tables``
    (``name:overflow``: its middle overflow page, whose first 4 bytes point to the next one; ``name:overflow:N``: its
    overflow page N, counted from 0 in file order)."""
    page_size = 4096
    damaged: dict[str, Flipped] = {}
    for spec in tables:
        table, _, rest = spec.partition(":")
        pagetype, _, index = rest.partition(":")
        leaves = leaf_pages(kb, table, key, pagetype or "leaf")
        assert len(leaves) >= 2, f"{spec} has {len(leaves)} pages: the KB is too small to damage one inside"
        page, cells = leaves[int(index) if index else len(leaves) // 2]
        damaged[spec] = Flipped(page, cells)
    data = bytearray(kb.read_bytes())
    assert int.from_bytes(data[16:18], "big") in (page_size, 0) or key is not None
    for flipped in damaged.values():
        start = (flipped.page - 1) * page_size
        for i in range(start, start + 8):  # the b-tree page header: 8 bytes, 64 bits
            data[i] ^= 0xFF
    out.write_bytes(bytes(data))
    return damaged


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def side_files(kb: Path) -> list[Path]:
    """The KB's -wal, -shm and -journal files that exist."""
    return [p for p in (kb.with_name(kb.name + s) for s in ("-wal", "-shm", "-journal")) if p.exists()]
