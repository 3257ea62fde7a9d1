"""Scoring the review views against gold lists: a text document's rows (no pages) are told apart by line."""

from __future__ import annotations

from pikelocal.eval.views_score import Found, Gold, score


def test_rows_of_a_text_document_match_by_line() -> None:
    # The same words stand on lines 182 and 184 of the contract ("於會議後5日內送機關審核"): two rows.
    gold = Gold(
        {"pages": "all"},
        [
            {"page": None, "line": 182, "quote": "於會議後5日內送機關審核"},
            {"page": None, "line": 184, "quote": "於會議後5日內送機關審核"},
        ],
    )
    found = [Found(None, "並由廠商派專人作成會議紀錄，於會議後5日內送機關審核（或備查）。", lines=(182, 182))]
    s = score(gold, found)
    assert (s.gold, s.recalled, s.found, s.correct) == (2, 1, 1, 1)
    assert s.missed == ("l. 184: 於會議後5日內送機關審核",)


def test_scored_lines_leave_other_lines_out() -> None:
    gold = Gold({"pages": "all", "lines": [[215, 231]]}, [{"page": None, "line": 216, "quote": "廠商不得將契約轉包"}])
    found = [
        Found(None, "1.廠商不得將契約轉包。", lines=(216, 216)),
        Found(None, "廠商應依中華民國法規為其員工投保。", lines=(282, 282)),  # outside the scored lines
        Found(None, "廠商亦不得以未依法登記之廠商為分包廠商。", lines=(216, 216)),  # scored, not gold
    ]
    s = score(gold, found)
    assert (s.recalled, s.found, s.correct) == (1, 2, 1)
    assert s.false_alarms == ("l. 216: 廠商亦不得以未依法登記之廠商為分包廠商。",)


def test_a_text_row_matches_whatever_page_number_the_reader_gave() -> None:
    # pikelocal reads a .txt as one page: the found rows may say page 1; the gold row (page null) is placed by line.
    gold = Gold({"pages": "all"}, [{"page": None, "line": 220, "quote": "機關得解除契約、終止契約或沒收保證金"}])
    hit = Found(1, "5.廠商違反不得轉包之規定時，機關得解除契約、終止契約或沒收保證金。", lines=(220, 220))
    elsewhere = Found(1, "5.廠商違反不得轉包之規定時，機關得解除契約、終止契約或沒收保證金。", lines=(221, 221))
    assert score(gold, [hit]).recalled == 1
    assert score(gold, [elsewhere]).recalled == 0


def test_a_paged_row_without_line_matches_as_before() -> None:
    gold = Gold({"pages": "all"}, [{"page": 13, "quote": "逾期不辦理簽約時，視為拋棄得標"}])
    s = score(gold, [Found(13, "得標廠商逾期不辦理簽約時，視為拋棄得標。", lines=(4, 5))])
    assert (s.recalled, s.correct) == (1, 1)
