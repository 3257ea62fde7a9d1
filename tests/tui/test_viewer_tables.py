"""The tables of a real KB through the facade and in the viewer: an Excel price schedule ingested into a
KB file, ``kb.tables`` returns its tables, the viewer draws them with the cited row highlighted and ``t`` shows
their Markdown; the library shows no page count for the unpaged workbook."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.domain.answers import Source
from pikelocal.domain.errors import InputError
from pikelocal.tui.screens.library import LibraryScreen
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text
from tests.support import office
from tests.support.answer_kb import ENC
from tests.support.table_kb import build_table_kb
from tests.support.tui import make_app, run, wait_until

ROW_17 = "| 17 | 服务器 型号 S17 |"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_table_kb(tmp_path_factory.mktemp("tables"))


def doc_ids(kb: Path) -> dict[str, int]:
    with api.open_kb(kb, Settings(), encoder=ENC) as knowledge_base:
        return {Path(d.record.path).name: d.record.id for d in knowledge_base.documents().documents}


def source_on(kb: Path, name: str, fragment: str, page: int | None = None) -> Source:
    """A source citing the one line of document ``name`` that holds ``fragment`` (on ``page``; None: unpaged)."""
    doc_id = doc_ids(kb)[name]
    with api.open_kb(kb, Settings(), encoder=ENC) as knowledge_base:
        lines = knowledge_base.page(doc_id, 1).lines()
    n = next(i for i, line in enumerate(lines, 1) if fragment in line)
    return Source(1, doc_id, name, None, (1,), page, page, n, n, (), lines[n - 1])


def test_the_facade_returns_the_recorded_tables(kb: Path) -> None:
    ids = doc_ids(kb)
    with api.open_kb(kb, Settings(), encoder=ENC) as knowledge_base:
        prices = knowledge_base.tables(ids["prices.xlsx"])
        assert [(t.n_rows, t.n_cols, t.page_start, t.page_end) for t in prices] == [
            (len(office.ITEMS) + 2, 6, None, None),  # the items, the total and the tax rate
            (2, 1, None, None),  # the notes sheet
        ]
        assert prices[0].header.splitlines() == [
            "| 序号 | 货物名称 | 数量 | 单价（元） | 合价（元） | 交货日期 |",
            "|---|---|---|---|---|---|",
        ]
        page = knowledge_base.page(ids["prices.xlsx"], 1)
        assert page.text[prices[0].char_start - page.char_start :].startswith(prices[0].header)
        assert knowledge_base.tables(ids["note.md"]) == []
        with pytest.raises(InputError, match="no document 999"):
            knowledge_base.tables(999)


def test_the_viewer_draws_the_table_with_the_cited_row_and_t_shows_the_markdown(kb: Path) -> None:
    source = source_on(kb, "prices.xlsx", ROW_17)

    async def scenario() -> None:
        app = make_app(kb)
        async with app.run_test(size=(120, 30)) as pilot:
            app.push_screen(DocumentViewer(app.kb, source))
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            await pilot.pause()
            shown = screen_text(app)
            assert f"prices.xlsx · unpaged · [1] lines {source.line_start}–{source.line_start}" in shown
            marked = [line for line in shown.splitlines() if "▌" in line]
            assert len(marked) == 1 and "│ 17" in marked[0] and "服务器 型号 S17" in marked[0], marked
            assert marked[0].lstrip().startswith(str(source.line_start))  # the row keeps its line number
            assert ROW_17 not in shown and "| 18 |" not in shown and "└──" in shown
            assert "Tables" in shown.splitlines()[-1]  # the key is in the footer: the document has tables

            await pilot.press("t")
            shown = screen_text(app)
            marked = [line for line in shown.splitlines() if "▌" in line]
            assert len(marked) == 1 and ROW_17 in marked[0], marked
            assert "tables as Markdown (t)" in shown and "│ 18" not in shown and "└──" not in shown

            await pilot.press("t")
            assert ROW_17 not in screen_text(app)

    run(scenario())


def test_a_document_without_tables_has_no_tables_key(kb: Path) -> None:
    source = source_on(kb, "note.md", "paged Markdown", page=1)

    async def scenario() -> None:
        app = make_app(kb)
        async with app.run_test(size=(120, 30)) as pilot:
            app.push_screen(DocumentViewer(app.kb, source))
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            await pilot.pause()
            shown = screen_text(app)
            assert "Tables" not in shown.splitlines()[-1]
            assert "note.md · page 1 of 1 · [1] lines 3–3" in shown

    run(scenario())


def test_the_library_shows_no_page_count_for_the_unpaged_workbook(kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(kb)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("f3")
            await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen))
            table = app.screen.query_one("#docs", DataTable)
            rows = {str(r[1]): str(r[2]) for r in (table.get_row_at(i) for i in range(table.row_count))}
            assert rows == {"prices": "—", "Note": "1"}, rows  # titles: the workbook's file name, the note's heading

    run(scenario())
