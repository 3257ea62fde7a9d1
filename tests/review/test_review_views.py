"""The reviewer's first views: rejection risks, requirements and the timeline, found without a model.
The texts are written by hand in zh-Hans, zh-Hant and English; each expectation is read off the text."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

from pikelocal.domain.documents import PageRecord
from pikelocal.domain.obligations import Clause
from pikelocal.domain.review import Located, Value
from pikelocal.domain.statements import Statement
from pikelocal.review.clauses import document_clauses
from pikelocal.review.requirements import find_requirements
from pikelocal.review.risks import find_risks
from pikelocal.review.timeline import find_timeline, roc_day
from pikelocal.review.view_export import ViewsReport, csv_text, markdown, write_views

DOC = 3


def page(page_no: int, lines: list[str]) -> PageRecord:
    text = "".join(line + "\n" for line in lines)
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    return PageRecord(DOC, page_no, text, tuple(offsets))


def clauses(*lines: str) -> list[Clause]:
    return document_clauses(DOC, "doc", [page(1, list(lines))], [])


def test_risks_in_three_scripts() -> None:
    found = find_risks(
        clauses(
            "资格审查不合格的投标人其投标将被否决。",
            "投标人不按要求提交投标保证金的，其投标将被否决。",
            "如廠商報價總計金額逾預算金額為不合格標。",
            "受評廠商未能出席簡報者，視同放棄，該項以零分計算。",
            "A tender received after the closing time shall be rejected.",
            "本条款仅作说明。",
        )
    )
    assert [(r.clause.where.line_start, r.stage) for r in found] == [
        (1, "qualification"),  # 资格审查
        (2, "submission"),  # 投标保证金
        (3, "responsiveness"),  # 報價, 預算
        (4, "presentation"),  # 簡報
        (5, "submission"),  # closing time
    ]
    assert "zero_score" in found[3].triggers and "deemed_waived" in found[3].triggers


def test_a_negated_or_unrelated_trigger_is_no_risk() -> None:
    found = find_risks(
        clauses(
            "但投標時未檢附切結書者，不視為不合格標。",  # negated
            "如无正当理由拒收的，视为发包人同意。",  # 拒收 a delivery: no bid named
            "The bid shall not be rejected for a minor error.",
            "Bi—第i个投标人的报价（所有未被否决投标文件的报价）；",
            "8. 重新招标、不再招标和终止招标.........22",  # a line of the table of contents
        )
    )
    assert found == []


def test_a_table_row_is_one_clause() -> None:
    lines = ["| 项目 | 要求 |", "|---|---|", "| 投标有效期 | 不足90日的，其投标将被否决 |"]
    [risk] = find_risks(clauses(*lines))
    assert risk.clause.in_table and risk.clause.where.line_start == 3
    assert "投标有效期" in risk.clause.text and "被否决" in risk.clause.text


def statement(line: int, value: Value, sentence: str, subject: str = "") -> Statement:
    return Statement(DOC, value, subject, (), sentence, "", 1, line, line, line * 100, line * 100 + 5)


def test_requirements_who_kind_and_figures() -> None:
    lines = [
        "投标人应当在投标截止时间前提交投标保证金。",
        "得標廠商不得轉包。",
        "The Supplier shall deliver the goods within 30 days of the order.",
        "投标文件应密封并加盖公章。",
        "评标委员会应当按照评分标准评审。",
        "“Goods” shall mean the equipment listed in Schedule 1.",
        "本项目要求投标人响应全部需求。",
        "廠商得提出替代方案。",
    ]
    said = [statement(3, Value("duration", "30 days", "30 days", 30, "day"), lines[2])]
    found = find_requirements(clauses(*lines), said)
    rows = [(r.clause.where.line_start, r.party, r.kind) for r in found]
    assert rows == [
        (1, "bidder", "deadline"),
        (2, "winning_bidder", "prohibition"),
        (3, "bidder", "deadline"),  # "Supplier" is the bidder's concept
        (4, "", "form"),
        (5, "evaluators", "mandatory"),
    ]  # "shall mean" defines; 响应 and 需求 hold no modal; 得 permits
    assert [v.normal for v in found[2].figures] == ["30 days"]


def test_a_binding_word_only_in_a_condition_or_a_list_s_heading_binds_nobody() -> None:
    lines = [
        "應繳影印本時，得以正本替代。",  # a condition, then a permission
        "本採購案倘規定需繳納押標金者，其所繳納之押標金，不予發還。",  # a condition, then a consequence
        "投標廠商應繳履約保證金額度之折減及補繳規定如下：",  # the rules under it bind
        "投標廠商應檢附文件如下：",  # binds: attach what the list names
        "廠商如有異動時，應通知機關。",  # the condition's consequence binds
        "如廠商逾期，應按日計罰。",
        "投標廠商應於截止投標期限前提出，逾期不予受理。",
    ]
    found = find_requirements(clauses(*lines))
    assert [r.clause.where.line_start for r in found] == [4, 5, 6, 7]


def test_timeline_dated_first_then_relative() -> None:
    days30 = Value("duration", "30日", "30 days", 30, "day")
    roc = Value("date", "115年1月27日", "2026-01-27")
    days14 = Value("duration", "14 days", "14 days", 14, "day")
    said = [
        statement(5, days30, "得標廠商應於決標日之次日起30日內繳納履約保證金。"),
        statement(2, roc, "截止期限為民國115年1月27日上午9時40分。", "截止期限"),
        statement(1, Value("date", "2025年10月14日", "2025-10-14"), "开标时间：2025年10月14日9时30分。", "开标时间"),
        statement(3, Value("duration", "三年", "3 years", 1095, "day"), "近三年内无行贿犯罪记录。"),
        statement(4, Value("date", "88年10月12日", "1999-10-12"), "依88年10月12日工程企字第8814668号函辦理。"),
        statement(6, days14, "The Buyer shall pay within 14 days of invoice."),
    ]
    found = find_timeline(said, {DOC: "doc"})
    assert [(e.date, e.value) for e in found] == [
        ("2025-10-14", "2025年10月14日"),
        ("2026-01-27", "115年1月27日"),
        (None, "30日"),
        (None, "14 days"),
    ]  # 近三年内 looks back; the letter's date cites a document
    assert found[1].roc == "民國115年1月27日" and found[0].what == "开标时间"
    assert roc_day("2026-01-27") == "民國115年1月27日" and roc_day("1900-01-01") == ""


def test_exports_read_back(tmp_path: Path) -> None:
    risks = find_risks(clauses("资格审查不合格的投标人其投标将被否决。", "=HYPERLINK(1) 投标将被否决"))
    requirements = find_requirements(clauses("投标人应当提交投标保证金。"))
    report = ViewsReport("kb.kb", risks, requirements, ())
    out = write_views(report, tmp_path / "views.xlsx")
    book = load_workbook(out)
    assert book.sheetnames == ["risks", "requirements"]
    sheet = book["risks"]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0] == (
        "id", "stage", "triggers", "quote", "document", "page", "line_start", "line_end", "mark", "note", "marked_at",
    )  # fmt: skip
    assert rows[1][3] == "资格审查不合格的投标人其投标将被否决。" and rows[1][5:8] == (1, 1, 1)
    assert rows[1][8:] == (None, None, None)  # no mark yet: empty cells for the reviewer
    assert str(rows[2][3]).startswith("'=")  # a formula is text
    assert "| qualification |" in markdown(report)
    assert csv_text(report).splitlines()[0].startswith("view,id,stage,triggers,quote")


def test_located_citation_of_a_risk() -> None:
    [risk] = find_risks(clauses("前言", "投标人少于3个的，招标人应当依法重新招标。"))
    assert risk.clause.where == Located(DOC, "doc", 1, 2, 2)
