"""The statements of a document (ingest/enrich/statements.py): every value with its subject, concepts, sentence,
heading, page and lines, read from pages and chunks built by hand here. The expected rows are read off these texts
by hand (lines counted 1-based on each page)."""

from __future__ import annotations

import pytest

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.statements import Statement
from pikelocal.ingest.enrich.statements import document_statements, vector_text

DOC = 3


def page(page_no: int, lines: list[str], char_start: int = 0) -> PageRecord:
    text = "".join(line + "\n" for line in lines)
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    return PageRecord(DOC, page_no, text, tuple(offsets), char_start)


def chunk(start: int, end: int, path: tuple[str, ...], page_no: int | None) -> ChunkRecord:
    return ChunkRecord(
        id=1, doc_id=DOC, ord=0, text="", char_start=start, char_end=end, page_start=page_no, page_end=page_no,
        line_start=None, line_end=None, section_path=path, header="", summary=None,
    )  # fmt: skip


def read(lines: list[str], *more: list[str]) -> list[Statement]:
    pages = [page(1, lines)]
    for n, extra in enumerate(more, start=2):
        pages.append(page(n, extra, pages[-1].char_start + len(pages[-1].text)))
    end = pages[-1].char_start + len(pages[-1].text)
    return document_statements(DOC, pages, [chunk(0, end, ("招标文件",), 1)])


def rows(found: list[Statement]) -> list[tuple[str, str]]:
    return [(s.value.normal, s.subject) for s in found]


def test_two_figures_in_one_sentence_are_two_statements() -> None:
    found = read(["簡報與答詢：簡報時間不得超過15分鐘，答詢時間不得超過10分鐘。"])
    assert rows(found) == [("15 minutes", "簡報時間不得超過"), ("10 minutes", "答詢時間不得超過")]
    assert found[0].sentence == found[1].sentence == "簡報與答詢：簡報時間不得超過15分鐘，答詢時間不得超過10分鐘。"
    assert found[0].concepts == ("presentation",)  # 簡報


def test_copies_each_with_its_own_subject() -> None:
    assert rows(read(["投标文件正本1份、副本3份，电子版1份。"])) == [
        ("1", "投标文件正本"), ("3", "副本"), ("1", "电子版"),
    ]  # fmt: skip


def test_a_sentence_wrapped_over_lines_is_one_sentence_with_its_lines() -> None:
    lines = [
        "第十条 投标保证金",
        "投标人应在投标截止时间前提交投标保证金，金额为人民币伍万元整，并于合同签订后",  # wraps on
        "5日内退还。",
    ]
    found = read(lines)
    bond = "投标人应在投标截止时间前提交投标保证金，金额为人民币伍万元整，并于合同签订后 5日内退还。"
    assert [(s.value.normal, s.sentence, s.page, s.line_start, s.line_end) for s in found] == [
        ("50000 CNY", bond, 1, 2, 3),
        ("5 days", bond, 1, 2, 3),
    ]
    assert [s.heading for s in found] == ["第十条 投标保证金"] * 2
    # "金额为人民币" names nothing: the heading's concept stands for it
    assert found[0].subject == "投标人应在投标截止时间前提交投标保证金"
    assert found[0].concepts[0] == "bid_bond"


def test_spaced_numerals_and_roc_dates() -> None:
    found = read(["契約價金：新臺幣35 萬 900 元。", "截止收件：民國114年12月15日。", "開標日期：114/12/16。"])
    assert [(s.value.kind, s.value.normal, s.value.text, s.subject, s.line_start) for s in found] == [
        ("amount", "350900 TWD", "新臺幣35 萬 900 元", "契約價金", 1),
        ("date", "2025-12-15", "民國114年12月15日", "截止收件", 2),
        ("date", "2025-12-16", "114/12/16", "開標日期", 3),
    ]


def test_start_point_and_base_are_not_the_subject() -> None:
    found = read(["投标有效期为自投标截止之日起90日历天。", "履约保证金为中标合同金额的10%。"])
    assert rows(found) == [("90 days", "投标有效期"), ("10%", "履约保证金")]
    assert [s.concepts[0] for s in found] == ["bid_validity", "performance_bond"]


def test_a_score_line_is_a_threshold() -> None:
    found = read(["總分達80分以上者為及格；簡報配分10分。"])
    assert [(s.value.normal, s.subject, s.threshold) for s in found] == [
        ("80 points", "總分", True),
        ("10 points", "簡報配分", False),
    ]


def test_table_row_is_about_its_label_cell_and_column() -> None:
    lines = [
        "十六、評選標準",
        "",
        "| 項次 | 評選項目 | 配分 |",
        "|---|---|---|",
        "| 1 | 企劃書之可行性 | 30 |",
        "| 2 | 簡報與答詢 | 10 |",
        "",
        "| 項目 | 金額 | 期限 |",
        "|---|---|---|",
        "| 押標金 | 新臺幣5萬元 | 決標後30日內退還 |",
    ]
    found = read(lines)
    assert [(s.value.normal, s.subject, s.line_start, s.sentence) for s in found] == [
        ("30 points", "企劃書之可行性 · 配分", 5, "項次：1；評選項目：企劃書之可行性；配分：30"),
        ("10 points", "簡報與答詢 · 配分", 6, "項次：2；評選項目：簡報與答詢；配分：10"),
        ("50000 TWD", "押標金 · 金額", 10, "項目：押標金；金額：新臺幣5萬元；期限：決標後30日內退還"),
        ("30 days", "押標金 · 期限", 10, "項目：押標金；金額：新臺幣5萬元；期限：決標後30日內退還"),
    ]
    assert found[0].value.text == "30"  # the cell as printed; its unit from the column's header
    assert found[2].concepts == ("bid_bond",)


def test_a_table_that_runs_on_to_the_next_page_keeps_its_header() -> None:
    first = ["| 項目 | 金額 |", "|---|---|", "| 押標金 | 新臺幣5萬元 |"]
    second = ["| 保固保證金 | 新臺幣10萬元 |"]
    found = read(first, second)
    assert [(s.value.normal, s.subject, s.page) for s in found] == [
        ("50000 TWD", "押標金 · 金額", 1),
        ("100000 TWD", "保固保證金 · 金額", 2),
    ]


def test_label_lines_above_name_a_value_a_pdf_table_printed_as_lines() -> None:
    lines = ["2.2.1", "投标人要求", "澄清招标文件", "的截止时间", "递交投标文件截止之日 10 日前"]
    [found] = read(lines)
    assert (found.value.normal, found.subject, found.line_start) == ("10 days", "投标人要求澄清招标文件的截止时间", 5)
    assert "clarification" in found.concepts


def test_offsets_are_the_values_span_in_the_document() -> None:
    first = page(1, ["前言"])
    second = page(2, ["工期为240日历天。"], char_start=len(first.text))
    [found] = document_statements(DOC, [first, second], [])
    text = first.text + second.text
    assert text[found.char_start : found.char_end] == "240日历天"
    assert (found.page, found.line_start) == (2, 1)


def test_unpaged_document_has_no_page() -> None:
    only = page(1, ["# 合同", "", "合同價款為新臺幣35萬900元。"])
    [found] = document_statements(DOC, [only], [chunk(0, len(only.text), ("合同",), None)])
    assert (found.page, found.line_start, found.heading, found.subject) == (None, 3, "合同", "合同價款")


@pytest.mark.parametrize(
    "line",
    [
        "2.1 项目概况",  # a clause number is no count
        "单位负责人为同一人的。",  # "the same person"
        "领取中标通知书前一次性付清。",  # a lump sum
        "期间的最后一日是法定休假日的，以法定休假日结束的次日为期间的最后一日。",  # a day, not a period
        "Each Pump must deliver not more than 75 kW.",  # a quantity, no count
        "例如投标截止日为2014年6月30日。",  # an example states nothing of the document
        "序号 项目名称 项目所在地 1 项目负责人",  # 项目 is a project
    ],
)
def test_no_statement(line: str) -> None:
    assert read([line]) == []


def test_a_supposed_case_states_nothing() -> None:
    found = read(
        ["近3年是指从投标截止日往前推算的3年，如投标截止日为2025年10月1日，则近3年是指2022年10月1日至2025年9月30日。"]
    )
    assert [s.value.normal for s in found] == ["3 years", "3 years"]  # the definition's; not the example's


def test_the_one_of_a_rate_is_no_count() -> None:
    found = read(["承接过中型防洪工程勘测设计业绩的，每提供 1 项得 2 分。"])
    assert [(s.value.normal, s.subject) for s in found] == [("2 points", "每提供 1 项")]


def test_statement_line() -> None:
    [found] = read(["投标保证金：人民币5 万元。"])
    assert found.line() == "投标保证金: 人民币5 万元"
    assert vector_text(found) == "投标保证金: 人民币5 万元"


def test_an_otherwise_line_is_of_the_criterion_scored_above_it() -> None:
    """A scoring table a PDF printed as lines: each criterion's name over its range, then its grades; "③否则得 0
    分" names nothing, and the heading is the section the criteria are listed in, not the criterion."""
    lines = [
        "（1）",
        "勘察设计依据、工作",
        "目标",
        "（0～ 5 分）",
        "针对本项目勘察设计依据、工作目标的准确、合理性。",
        "①准确、合理的得 3～5 分；",
        "②基本准确、合理的得 1～2 分；",
        "③否则得 0 分。",
        "（2）",
        "技术支持",
        "（0～ 3 分）",
        "①技术支持满足工程建设要求的得 2～3 分；",
        "③否则得 0 分。",
    ]
    found = rows(read(lines))
    assert found[0] == ("5 points", "勘察设计依据、工作目标")
    assert ("0 points", "勘察设计依据、工作目标 … 否则") in found
    assert found[-1] == ("0 points", "技术支持 … 否则")


def test_an_otherwise_line_far_from_any_criterion_keeps_its_heading() -> None:
    found = read(["质量管理体系 （0～ 3 分）", *["本项说明。"] * 400, "否则得 0 分。"])
    assert found[-1].subject == ""


def test_an_item_of_a_list_run_on_in_a_paragraph_is_of_the_lists_lead_in() -> None:
    found = read([
        "10.2 The Contract Price is payable as follows: 30% on delivery of all Pumps to the Site; 60% on Acceptance;",
        "and the remaining 10% twelve months after Acceptance.",
    ])  # fmt: skip
    assert rows(found)[:2] == [
        ("30%", "The Contract Price is payable as follows"), ("60%", "The Contract Price is payable … on Acceptance"),
    ]  # fmt: skip


def test_items_that_do_not_open_with_a_figure_keep_their_own_subjects() -> None:
    """Items that name their own figure before it ("（2）勘察设计方案： 35 分；") are not read with the item before."""
    found = read(["（1）投标报价： 26.25 分；", "（2）勘察设计方案： 35 分；", "（3）信誉与业绩： 25 分；"])
    assert rows(found) == [("26.25 points", "投标报价"), ("35 points", "勘察设计方案"), ("25 points", "信誉与业绩")]
