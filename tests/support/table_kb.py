"""A real KB file holding an unpaged Excel price schedule (its tables recorded) and a paged Markdown note, built
through the facade with the fake encoder (no model): for the table viewer and the page-count listings."""

from __future__ import annotations

from pathlib import Path

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.domain.requests import AddRequest
from tests.support import office
from tests.support.answer_kb import ENC

NOTE = "# Note\n\nA paged Markdown document: one page.\n"


def build_table_kb(root: Path) -> Path:
    """``root/tables.kb`` with prices.xlsx (tests/support/office.py) and note.md."""
    folder = root / "files"
    folder.mkdir(parents=True)
    files = [office.write(folder, "prices.xlsx", office.price_xlsx()), folder / "note.md"]
    files[1].write_text(NOTE, encoding="utf-8")
    kb = root / "tables.kb"
    with api.open_kb(kb, Settings(), encoder=ENC) as knowledge_base:
        report = knowledge_base.add(files, AddRequest(late=False)).ingest
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"], report.outcomes
    return kb
