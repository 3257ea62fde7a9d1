"""A checklist run per document and shown side by side, on a real KB of three short bids with a scripted model:
each column answered from its own document, values compared in their normal forms, the rows kept per document (a
second run and a resumed run ask nothing twice), and the exports read back."""

from __future__ import annotations

import csv
import io
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.domain.errors import Cancelled
from pikelocal.domain.events import Event, StageAdvanced
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.fake import FakeLLM
from pikelocal.review.side_by_side import agreement
from pikelocal.review.stored import document_scope
from pikelocal.store.store import Store
from tests.support.side_kb import bids_kb, quote_figure


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


@pytest.fixture
def kb(tmp_path: Path, settings: Settings) -> tuple[Path, Path]:
    return bids_kb(tmp_path, settings)


def run(
    path: Path, settings: Settings, checklist: Path, llm: FakeLLM, docs: tuple[str, ...] = (), sink: object = None
) -> api.SideBySide:
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:
        request = api.SideBySideRequest(str(checklist), docs)
        return knowledge_base.side_by_side(request, sink) if sink else knowledge_base.side_by_side(request)  # type: ignore[arg-type]


def test_each_document_is_a_column_answered_from_itself(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    table = run(path, settings, checklist, FakeLLM({"answer-quote": quote_figure}))
    assert [d.heading for d in table.documents] == ["甲公司投标文件", "乙公司投标文件", "丙公司投标文件"]
    assert table.asked == 12 and table.kept == 0
    rows = {r.item_id: r for r in table.rows}
    assert [r.item_id for r in table.rows] == ["bond", "validity", "delivery", "performance"]
    bond = rows["bond"]
    assert [c.verdict for c in bond.cells if c] == ["found", "found", "found"]
    assert [c.values[0].number for c in bond.cells if c] == [350_900, 350_900, 350_900]
    # each cell's quote stands in its own column's document
    for row in table.rows:
        for doc, cell in zip(table.documents, row.cells, strict=True):
            assert cell is not None
            assert all(q.where.doc_id == doc.doc_id for q in cell.quotes), (row.item_id, doc.heading)
    assert "35 萬 900 元" in bond.cells[1].quotes[0].text  # type: ignore[union-attr]
    validity = rows["validity"]
    assert [c.values[0].normal for c in validity.cells if c] == ["90 days", "60 days", "90 days"]
    performance = rows["performance"]
    assert [c.verdict for c in performance.cells if c] == ["found", "not_stated", "not_stated"]
    assert performance.cells[0].values[0].number == 50_000  # type: ignore[union-attr]


def test_values_are_compared_in_their_normal_form(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    table = run(path, settings, checklist, FakeLLM({"answer-quote": quote_figure}))
    marks = {r.item_id: r.agreement for r in table.rows}
    # 350,900元 = 35 萬 900 元 = 人民币350,900元; 90 and 60 days; 30天 word for word; one bid alone states the last
    assert marks == {"bond": "same", "validity": "differs", "delivery": "same", "performance": ""}


def test_two_documents_named_are_the_only_columns(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    table = run(path, settings, checklist, FakeLLM({"answer-quote": quote_figure}), docs=("bid_c.md", "bid_a.md"))
    assert [d.heading for d in table.documents] == ["丙公司投标文件", "甲公司投标文件"]
    marks = {r.item_id: r.agreement for r in table.rows}
    assert marks == {"bond": "same", "validity": "same", "delivery": "same", "performance": ""}


def test_an_unknown_document_is_one_line_naming_it(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    llm = FakeLLM({"answer-quote": quote_figure})
    with pytest.raises(api.InputError, match="no document 'bid_z.md'"):
        run(path, settings, checklist, llm, docs=("bid_a.md", "bid_z.md"))
    assert llm.calls == []


def test_a_second_run_asks_the_model_nothing(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    llm = FakeLLM({"answer-quote": quote_figure})
    first = run(path, settings, checklist, llm)
    calls = len(llm.calls)
    assert calls > 0  # the items no reader answers (a figure all statements agree on needs no model)
    again = run(path, settings, checklist, llm)
    assert len(llm.calls) == calls
    assert again.asked == 0 and again.kept == 12
    assert again.rows == first.rows


def test_the_whole_kb_review_and_the_per_document_rows_do_not_overwrite_each_other(
    kb: tuple[Path, Path], settings: Settings
) -> None:
    path, checklist = kb
    llm = FakeLLM({"answer-quote": quote_figure})
    run(path, settings, checklist, llm)
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:
        whole = knowledge_base.review(api.ReviewRequest(str(checklist)))
    assert whole.asked == 4  # the whole KB's rows are its own, not the per-document ones
    calls = len(llm.calls)
    again = run(path, settings, checklist, llm)
    assert again.asked == 0 and len(llm.calls) == calls


def test_a_run_stopped_midway_resumes_without_asking_twice(
    kb: tuple[Path, Path], settings: Settings, tmp_path: Path
) -> None:
    path, checklist = kb
    whole = FakeLLM({"answer-quote": quote_figure})
    fresh_copy = tmp_path / "copy"
    fresh_copy.mkdir()
    uninterrupted, copy_checklist = bids_kb(fresh_copy, settings)
    run(uninterrupted, settings, copy_checklist, whole)

    seen: list[Event] = []

    def stop_in_the_second_document(event: Event) -> None:
        seen.append(event)
        advanced = [e for e in seen if isinstance(e, StageAdvanced)]
        if len(advanced) == 6:  # four items of the first bid, two of the second
            raise Cancelled("stopped")

    llm = FakeLLM({"answer-quote": quote_figure})
    with pytest.raises(Cancelled):
        run(path, settings, checklist, llm, sink=stop_in_the_second_document)
    before = len(llm.calls)
    resumed = run(path, settings, checklist, llm)
    assert resumed.asked == 6 and resumed.kept == 6
    assert len(llm.calls) == len(whole.calls)  # the stopped run and the resumed one asked what one run asks
    assert len(llm.calls) > before
    assert {r.item_id: r.agreement for r in resumed.rows}["validity"] == "differs"


WORKER = Path(__file__).resolve().parent / "side_worker.py"


def _stored_per_document(path: Path) -> int:
    with Store.open_existing(path) as store:
        return sum(len(store.reviews.results(f"bids@{document_scope(d.sha256)}")) for d in store.docs.documents())


def test_a_run_killed_outright_resumes_without_asking_a_stored_item_again(
    kb: tuple[Path, Path], settings: Settings
) -> None:
    path, checklist = kb
    worker = subprocess.Popen([sys.executable, str(WORKER), str(path), str(checklist)])
    try:
        deadline = time.monotonic() + 60
        while _stored_per_document(path) < 5 and time.monotonic() < deadline and worker.poll() is None:
            time.sleep(0.05)
        worker.send_signal(signal.SIGKILL)
    finally:
        worker.wait(timeout=30)
    stored = _stored_per_document(path)
    assert worker.returncode == -signal.SIGKILL and 5 <= stored < 12
    llm = FakeLLM({"answer-quote": quote_figure})
    resumed = run(path, settings, checklist, llm)
    assert (resumed.asked, resumed.kept) == (12 - stored, stored)
    # at most one call per item not stored (one the statements answer needs none), none for the stored ones
    assert 0 < len(llm.calls_for("answer-quote")) <= resumed.asked
    assert {r.item_id: r.agreement for r in resumed.rows}["validity"] == "differs"


def test_the_stored_table_needs_no_model(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    run(path, settings, checklist, FakeLLM({"answer-quote": quote_figure}), docs=("bid_a.md",))
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        stored = knowledge_base.side_by_side_table(api.SideBySideRequest(str(checklist)))
    assert [c is not None for c in stored.rows[0].cells] == [True, False, False]  # bids 乙 and 丙 never asked


def test_agreement_needs_two_documents_stating_the_item(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    table = run(path, settings, checklist, FakeLLM({"answer-quote": quote_figure}))
    bond = next(r for r in table.rows if r.item_id == "bond")
    a, b, c = bond.cells
    assert agreement([a, None, None]) == ""
    assert agreement([a, b]) == "same"
    validity = next(r for r in table.rows if r.item_id == "validity")
    assert agreement([validity.cells[0], validity.cells[2]]) == "same"  # 90日 and 90日
    assert agreement([validity.cells[0], validity.cells[1]]) == "differs"  # 90日 and 60日


# --- exports -------------------------------------------------------------------------------------------------------


@pytest.fixture
def table(kb: tuple[Path, Path], settings: Settings) -> tuple[Path, api.SideBySide]:
    path, checklist = kb
    return path, run(path, settings, checklist, FakeLLM({"answer-quote": quote_figure}))


def export(path: Path, settings: Settings, table: api.SideBySide, out: Path) -> Path:
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        return knowledge_base.export_side_by_side(table, out)


def test_the_workbook_has_a_column_group_per_document_and_every_cite(
    table: tuple[Path, api.SideBySide], settings: Settings, tmp_path: Path
) -> None:
    from openpyxl import load_workbook

    path, compared = table
    written = export(path, settings, compared, tmp_path / "side.xlsx")
    book = load_workbook(written)
    assert book.sheetnames == ["side by side", "cites"]
    sheet = book["side by side"]
    header = [c.value for c in sheet[1]]
    assert header[:5] == ["section", "item", "label", "kind", "documents"]
    assert "乙公司投标文件: value" in header and "丙公司投标文件: quote" in header
    rows = {r[1]: dict(zip(header, r, strict=True)) for r in sheet.iter_rows(min_row=2, values_only=True)}
    assert rows["bond"]["documents"] == "same" and rows["validity"]["documents"] == "DIFFERS"
    assert rows["performance"]["documents"] is None  # undecided: an empty cell
    assert rows["validity"]["乙公司投标文件: value"] == "60 days"
    assert rows["bond"]["乙公司投标文件: quote"].startswith("本公司已提交投标保证金35 萬 900 元")
    # bid 乙's fifth line (its title, a blank, the heading, a blank, then the sentence), as numbers
    assert rows["bond"]["乙公司投标文件: page"] == 1
    assert rows["bond"]["乙公司投标文件: line_start"] == 5 and rows["bond"]["乙公司投标文件: line_end"] == 5
    assert rows["performance"]["乙公司投标文件: state"] == "not stated"
    cites = list(book["cites"].iter_rows(values_only=True))
    assert cites[0] == ("item", "label", "document", "state", "value", "quote", "page", "line_start", "line_end")
    validity = [r for r in cites[1:] if r[0] == "validity"]
    assert [(r[2], r[4]) for r in validity] == [
        ("甲公司投标文件", "90 days"), ("乙公司投标文件", "60 days"), ("丙公司投标文件", "90 days"),
    ]  # fmt: skip
    assert all(isinstance(r[7], int) for r in cites[1:])


def test_markdown_csv_and_word_hold_each_document_and_the_marks(
    table: tuple[Path, api.SideBySide], settings: Settings, tmp_path: Path
) -> None:
    import docx

    path, compared = table
    md = export(path, settings, compared, tmp_path / "side.md").read_text(encoding="utf-8")
    head = next(line for line in md.splitlines() if line.startswith("| item"))
    assert head == "| item | 甲公司投标文件 | 乙公司投标文件 | 丙公司投标文件 | documents |"
    validity = next(line for line in md.splitlines() if line.startswith("| 投标有效期"))
    assert "**DIFFERS**" in validity and "60 days" in validity and "“投标有效期为60日" in validity
    rows = list(csv.reader(io.StringIO(export(path, settings, compared, tmp_path / "side.csv").read_text("utf-8"))))
    assert rows[0][:5] == ["section", "item", "label", "kind", "documents"]
    bond = next(r for r in rows if r[1] == "bond")
    assert dict(zip(rows[0], bond, strict=True))["丙公司投标文件: value"] == "350900 CNY"
    word = docx.Document(str(export(path, settings, compared, tmp_path / "side.docx")))
    cells = [[c.text for c in row.cells] for row in word.tables[0].rows]
    assert cells[0] == ["item", "甲公司投标文件", "乙公司投标文件", "丙公司投标文件", "documents"]
    performance = next(r for r in cells if r[0] == "履约保证金")
    assert performance[1].startswith("found: 50000 元") and performance[2] == "not stated" and performance[4] == ""


def test_a_title_that_looks_like_a_formula_stays_text(tmp_path: Path, settings: Settings) -> None:
    from openpyxl import load_workbook

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text('# =HYPERLINK("x")\n\n投标保证金为5万元。\n', encoding="utf-8")
    (docs / "b.md").write_text("# 乙\n\n投标保证金为5万元。\n", encoding="utf-8")
    path = tmp_path / "f.kb"
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        knowledge_base.add([docs])
    checklist = tmp_path / "bids.toml"
    from tests.support.side_kb import CHECKLIST

    checklist.write_text(CHECKLIST, encoding="utf-8")
    compared = run(path, settings, checklist, FakeLLM({"answer-quote": quote_figure}))
    sheet = load_workbook(export(path, settings, compared, tmp_path / "f.xlsx"))["side by side"]
    header = [c.value for c in sheet[1]]
    assert '\'=HYPERLINK("x"): value' in header
    assert sheet.cell(row=2, column=6).data_type != "f"
