"""A view row's id (``review/view_rows.py``): made of what the row is (view, document hash, page, first line, text),
so it is the same on every run and differs when any of them does; a row repeated on one line gets a suffix; a
stored mark goes on the row of its own document only."""

from __future__ import annotations

from dataclasses import replace

from pikelocal.domain.obligations import Clause, Requirement, Risk, TimelineEntry
from pikelocal.domain.review import Located
from pikelocal.review.view_rows import row_id, with_ids, with_marks
from pikelocal.store.view_marks import StoredViewMark

SHA = "a" * 64
LATE = Clause("逾期送达的投标文件不予受理。", Located(1, "rfp", 3, 7, 7))


def _risk(clause: Clause = LATE) -> Risk:
    return Risk(clause, "submission", ("rejection",))


def test_the_id_is_the_same_for_the_same_row_and_differs_with_what_it_is_made_of() -> None:
    rid = row_id("risks", SHA, _risk())
    assert rid == row_id("risks", SHA, _risk()) and rid.startswith("R-") and len(rid) == 12
    others = {
        row_id("risks", "b" * 64, _risk()),  # another document
        row_id("risks", SHA, _risk(replace(LATE, where=Located(1, "rfp", 4, 7, 7)))),  # another page
        row_id("risks", SHA, _risk(replace(LATE, where=Located(1, "rfp", 3, 8, 8)))),  # another line
        row_id("risks", SHA, _risk(replace(LATE, text="逾期送达的投标文件予以退回。"))),  # another text
    }
    assert rid not in others and len(others) == 4
    # the document's id in this KB and the row's other fields (a stage, a trigger, the last line) are no part of it
    moved = Risk(replace(LATE, where=Located(9, "renamed", 3, 7, 9)), "award", ("zero_score",))
    assert row_id("risks", SHA, moved) == rid
    requirement = Requirement(LATE, "bidder", "prohibition", "不予")
    assert row_id("requirements", SHA, requirement).startswith("Q-")


def test_two_timeline_entries_of_one_sentence_have_two_ids() -> None:
    sentence = Clause("开标时间为2025年10月25日，截止时间为2025年10月24日。", Located(1, "rfp", 2, 5, 5))
    opening = TimelineEntry(sentence, "2025-10-25", "", "2025年10月25日", "开标时间")
    closing = TimelineEntry(sentence, "2025-10-24", "", "2025年10月24日", "截止时间")
    ids = [e.row_id for e in with_ids("timeline", [opening, closing], {1: SHA})]
    assert ids[0] != ids[1] and all(i.startswith("T-") for i in ids)


def test_a_row_repeated_on_one_line_gets_a_suffix() -> None:
    ids = [r.row_id for r in with_ids("risks", [_risk(), _risk()], {1: SHA})]
    assert ids == [row_id("risks", SHA, _risk()), row_id("risks", SHA, _risk()) + "-2"]


def test_a_mark_goes_on_the_row_of_its_own_document() -> None:
    [risk] = with_ids("risks", [_risk()], {1: SHA})
    mine = StoredViewMark("risks", risk.row_id, 1, "wrong", "see p. 4", "2026-01-01T00:00:00.000Z")
    [marked] = with_marks([risk], {risk.row_id: mine})
    assert (marked.mark, marked.note, marked.marked_at) == ("wrong", "see p. 4", "2026-01-01T00:00:00.000Z")
    [unmarked] = with_marks([risk], {risk.row_id: replace(mine, doc_id=2)})
    assert (unmarked.mark, unmarked.note) == ("", "")
