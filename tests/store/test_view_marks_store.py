"""Marks on the rows of the review views, kept in the KB (schema v13, ``store/view_marks.py``), on a real tender PDF
ingested with the hashing encoder (the views need no model): a KB of the previous schema version is migrated and
takes marks; a mark finds its row again when the view is found again; every mark is kept, the newest shown; a
document removed or replaced by another version takes its rows' marks with it, and nothing fails."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.store import schema
from pikelocal.store.store import Store

DATA = Path(__file__).parents[1] / "data" / "review"
TENDER = DATA / "tw-tender-ntpc-dispatch.pdf"
OTHER = DATA / "tw-rfp-moea-warehouse.pdf"
ENC = HashEncoder()
# Read off the tender by hand: page 17's declaration, item 6 (line 15), a ground for refusing a bid; and the
# clarification deadline of page 6, 115年1月16日 (2026-01-16).
ITEM_6 = "6 本投標廠商是否非屬採購法第 103 條規定不得參加投標之廠商？"
CLARIFICATION = "廠商請求釋疑之期限至 115年1月16日止。"


def _kb(path: Path, *docs: Path) -> None:
    with api.open_kb(path, load_settings(environ={}), encoder=ENC) as knowledge_base:
        assert knowledge_base.add(list(docs)).ingest.count("ingested") == len(docs)


def _risk(kb: api.KnowledgeBase, text: str) -> api.Risk:
    [risk] = [r for r in kb.risks() if r.clause.text == text]
    return risk


@pytest.fixture(scope="module")
def tender_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("view-marks") / "tender.kb"
    _kb(path, TENDER)
    return path


def _copy(kb: Path, tmp_path: Path) -> Path:
    copy = tmp_path / kb.name
    shutil.copyfile(kb, copy)
    return copy


def test_a_kb_of_the_previous_version_is_migrated_and_takes_marks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v12.kb"
    with monkeypatch.context() as m:  # the store as it was before view marks: version 12
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:12])
        m.setattr(schema, "LATEST_VERSION", 12)
        _kb(path, TENDER)
        with Store.open_existing(path) as store:
            assert schema.schema_version(store.db._conn) == 12  # noqa: SLF001 - the file's own version
            assert "view_marks" not in {str(r[0]) for r in store.db.rows("SELECT name FROM sqlite_schema")}
    with api.open_kb(path, load_settings(environ={})) as knowledge_base:  # opened as the CLI opens it: migrated
        risk = _risk(knowledge_base, ITEM_6)
        assert (risk.mark, risk.note) == ("", "")
        marked = knowledge_base.view_mark("risks", risk.row_id, "accepted", "excluded bidders, art. 103")
        assert (marked.row_id, marked.mark, marked.note) == (risk.row_id, "accepted", "excluded bidders, art. 103")
        again = _risk(knowledge_base, ITEM_6)
        assert (again.mark, again.note, again.marked_at) == ("accepted", "excluded bidders, art. 103", marked.marked_at)
    with Store.open_existing(path) as store:
        assert schema.schema_version(store.db._conn) == schema.LATEST_VERSION == 13  # noqa: SLF001
        assert store.integrity_check() == []


def test_a_mark_finds_its_row_again_and_every_mark_is_kept(tender_kb: Path, tmp_path: Path) -> None:
    path = _copy(tender_kb, tmp_path)
    with api.open_kb(path, load_settings(environ={})) as knowledge_base:
        first = knowledge_base.risks()
        risk = _risk(knowledge_base, ITEM_6)
        assert risk.row_id.startswith("R-") and len({r.row_id for r in first}) == len(first)  # one id per row
        knowledge_base.view_mark("risks", risk.row_id, "to_check", "")
        knowledge_base.view_mark("risks", risk.row_id, "wrong", "a declaration item, not a rule")
        entry = next(e for e in knowledge_base.timeline() if e.clause.text == CLARIFICATION)
        assert entry.date == "2026-01-16" and entry.row_id.startswith("T-")
        knowledge_base.view_mark("timeline", entry.row_id, "accepted", "")
        # found again, without the model: the same ids, and only the marked rows carry a mark
        again = knowledge_base.risks()
        assert [r.row_id for r in again] == [r.row_id for r in first]
        assert [(r.clause.text, r.mark, r.note) for r in again if r.mark] == [
            (ITEM_6, "wrong", "a declaration item, not a rule")
        ]
        assert [(e.clause.text, e.mark) for e in knowledge_base.timeline() if e.mark] == [(CLARIFICATION, "accepted")]
        assert not any(r.mark for r in knowledge_base.requirements())  # a mark belongs to its view
        # a listing limited to the document gives the same ids
        assert [r.row_id for r in knowledge_base.risks([TENDER.name])] == [r.row_id for r in first]
    with Store.open_existing(path) as store:  # the history: both marks, oldest first
        assert [(m.mark, m.note) for m in store.view_marks.history("risks", risk.row_id)] == [
            ("to_check", ""),
            ("wrong", "a declaration item, not a rule"),
        ]


def test_removing_the_document_removes_its_marks(tender_kb: Path, tmp_path: Path) -> None:
    path = _copy(tender_kb, tmp_path)
    with api.open_kb(path, load_settings(environ={}), encoder=ENC) as knowledge_base:
        risk = _risk(knowledge_base, ITEM_6)
        knowledge_base.view_mark("risks", risk.row_id, "accepted", "checked")
        knowledge_base.remove(str(TENDER))
        assert knowledge_base.risks() == []
        with pytest.raises(api.InputError, match=f"no row '{risk.row_id}'"):  # its row is gone: one line, no crash
            knowledge_base.view_mark("risks", risk.row_id, "wrong")
        knowledge_base.add([TENDER])  # the same file again: a new document, without the old marks
        assert _risk(knowledge_base, ITEM_6).row_id == risk.row_id
        assert not any(r.mark for r in knowledge_base.risks())
    with Store.open_existing(path) as store:
        assert store.db.rows("SELECT count(*) FROM view_marks") == [(0,)]
        assert store.integrity_check() == []


def test_a_replaced_document_loses_its_rows_marks(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copyfile(TENDER, docs / "tender.pdf")
    path = tmp_path / "kb.kb"
    _kb(path, docs / "tender.pdf")
    with api.open_kb(path, load_settings(environ={}), encoder=ENC) as knowledge_base:
        risk = _risk(knowledge_base, ITEM_6)
        knowledge_base.view_mark("risks", risk.row_id, "accepted", "")
        shutil.copyfile(OTHER, docs / "tender.pdf")  # another document under the same name
        knowledge_base.add([docs / "tender.pdf"])
        # the RFP states no way to lose a bid (tests/data/review/views/tw-rfp-moea-warehouse.risks.jsonl): no risk
        # rows, and the tender's are gone with their mark
        assert knowledge_base.risks() == []
        assert knowledge_base.requirements()  # the new document is read: its views are found
    with Store.open_existing(path) as store:
        assert store.db.rows("SELECT count(*) FROM view_marks") == [(0,)]


def test_a_bad_view_id_or_mark_is_one_line_naming_the_row(tender_kb: Path, tmp_path: Path) -> None:
    path = _copy(tender_kb, tmp_path)
    with api.open_kb(path, load_settings(environ={})) as knowledge_base:
        risk = _risk(knowledge_base, ITEM_6)
        with pytest.raises(api.InputError, match=f"risks row '{risk.row_id}': mark 'fine' is not one of"):
            knowledge_base.view_mark("risks", risk.row_id, "fine")
        with pytest.raises(api.InputError, match=f"timeline: no row '{risk.row_id}'.*an id of risks"):
            knowledge_base.view_mark("timeline", risk.row_id, "accepted")
        with pytest.raises(api.InputError, match="'clauses' is not a view"):
            knowledge_base.view_mark("clauses", risk.row_id, "accepted")
        assert not any(r.mark for r in knowledge_base.risks())  # nothing was stored
