"""A bid against its tender, without a KB: the figures compared in the direction the tender states, the choice of
the bid's answer by meaning (a scripted encoder: each cosine set by hand), which requirements a bid must answer,
and the check's sheet in the exports. Every expectation is read off the texts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from numpy.typing import NDArray
from openpyxl import load_workbook

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.obligations import BidCheck, Clause
from pikelocal.embed.base import EncodeRole
from pikelocal.embed.fake import HashEncoder
from pikelocal.review.against import (
    ABOUT_COSINE,
    CLAIMED_MARGIN,
    SHARED_COSINE,
    check_bid,
    compare_figures,
    decide,
    is_about,
    tender_requirements,
)
from pikelocal.review.clauses import document_clauses
from pikelocal.review.view_export import AGAINST_COLUMNS, ViewsReport, csv_text, markdown, write_views

TENDER, BID = 1, 2


def page(doc: int, lines: Sequence[str]) -> PageRecord:
    text = "".join(line + "\n" for line in lines)
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    return PageRecord(doc, 1, text, tuple(offsets))


def clauses(doc: int, title: str, *lines: str) -> list[Clause]:
    return document_clauses(doc, title, [page(doc, lines)], [])


# --- the figures -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("required", "offered", "state"),
    [
        # at least: more meets it, less does not
        ("投标有效期为自投标截止之日起不少于90日历天。", "投标有效期为自投标截止之日起60日历天。", "differs"),
        ("投标有效期为自投标截止之日起不少于90日历天。", "投标有效期为自投标截止之日起120日历天。", "met"),
        ("质保期须不少于3年。", "质保期为5年。", "met"),
        ("质保期须不少于3年。", "质保期为24个月。", "differs"),  # 24 months < 3 years
        ("质保期须不少于3年。", "质保期为36个月。", "met"),  # one period in two units
        ("中标人须配备不少于2名专职驻场工程师。", "我方配备1名专职驻场工程师。", "differs"),
        ("注册资本须不低于人民币500万元。", "注册资本为人民币800万元。", "met"),
        # at most: less meets it, more does not
        ("中标人须在合同签订后30日历天内完成交货。", "合同签订后45日历天内完成交货。", "differs"),
        ("中标人须在交货后15日历天内完成安装调试。", "交货后10日历天内完成安装调试。", "met"),
        ("预付款不超过合同金额的30%。", "预付款为合同金额的40%。", "differs"),
        ("投标报价不得超过最高限价人民币380万元。", "投标总报价为人民币356万元。", "met"),
        ("全部设备须于2026年8月31日前通过验收。", "确保于2026年9月30日前通过验收。", "differs"),
        ("全部设备须于2026年8月31日前通过验收。", "确保于2026年8月15日前通过验收。", "met"),
        ("接到报修后须在2小时内响应，24小时内到达现场。", "接到报修后4小时内响应，48小时内到达现场。", "differs"),
        ("接到报修后须在2小时内响应，24小时内到达现场。", "接到报修后1小时内响应，12小时内到达现场。", "met"),
        # no bound: the figure itself
        ("履约保证金为合同金额的10%。", "履约保证金为合同金额的5%。", "differs"),
        ("履约保证金为合同金额的10%。", "履约保证金为合同金额的10%。", "met"),
        ("投标保证金为人民币伍万元整。", "已递交投标保证金人民币50,000元。", "met"),  # 伍万元 is 50,000
        ("投标保证金为人民币伍万元整。", "已递交投标保证金人民币叁万元整。", "differs"),
        ("须提供正本1份、副本4份。", "正本1份、副本2份。", "differs"),
        # a Taiwanese amount in 元 is in 新臺幣 as the other side's is
        ("押標金為新臺幣5萬元。", "押標金3萬元整。", "differs"),
        ("押標金為5萬元。", "押標金新臺幣5萬元整。", "met"),
        # the answer prints no figure of the kind, or one that cannot be compared: it stands for the requirement
        ("投标有效期为自投标截止之日起不少于90日历天。", "投标有效期满足招标文件要求。", "met"),
        ("中标人须在合同签订后10个工作日内交货。", "合同签订后20日内交货。", "met"),  # working days ≠ days
        ("预付款不超过合同金额的30%。", "预付款为人民币30万元。", "met"),  # an amount is no share
        # English
        ("The bid shall remain valid for at least 90 days.", "Our bid remains valid for 60 days.", "differs"),
        ("Delivery shall be made within 30 days.", "We deliver within 21 days.", "met"),
    ],
)
def test_figures_against_the_direction(required: str, offered: str, state: str) -> None:
    assert decide(compare_figures(required, offered)) == state


def test_figures_of_one_kind_are_paired_in_order() -> None:
    checks = compare_figures("接到报修后须在2小时内响应，24小时内到达现场。", "1小时内响应，48小时内到达现场。")
    assert [(f.required.normal, f.bound, f.offered.normal if f.offered else None, f.meets) for f in checks] == [
        ("2 hours", "max", "1 hour", True),
        ("24 hours", "max", "48 hours", False),  # not met by the other figure's 1 hour
    ]


@pytest.mark.parametrize(
    ("similarity", "elsewhere", "shares", "about"),
    [
        (ABOUT_COSINE, 0.0, False, True),
        (ABOUT_COSINE - 0.01, 0.0, False, False),
        (SHARED_COSINE, 0.0, True, True),  # naming the requirement's concept, a little farther is enough
        (SHARED_COSINE - 0.01, 0.0, True, False),
        (0.6, 0.6 + CLAIMED_MARGIN - 0.01, False, True),  # another requirement about as near: it answers both
        (0.6, 0.6 + CLAIMED_MARGIN, False, False),  # another requirement clearly nearer: it answers that one
    ],
)
def test_is_about(similarity: float, elsewhere: float, shares: bool, about: bool) -> None:
    assert is_about(similarity, elsewhere, shares) is about


# --- which requirements a bid must answer -------------------------------------------------------------------------


def test_tender_requirements_include_bounded_figures_in_order() -> None:
    found = tender_requirements(
        clauses(
            TENDER,
            "tender",
            "投标人须提供营业执照副本复印件。",
            "投标有效期为自投标截止之日起不少于90日历天。",  # no binding word: the bound binds
            "开标时间为2026年4月20日上午9:30。",  # a date, no bound: no requirement
            "采购人应在验收合格后30日内付款。",
        )
    )
    assert [(r.clause.where.line_start, r.party, r.modal) for r in found] == [
        (1, "bidder", "须"),
        (2, "", "at least"),
        (4, "purchaser", "应"),
    ]


# --- the answer chosen by meaning ---------------------------------------------------------------------------------


class ScriptedEncoder(HashEncoder):
    """Each text's vector set by hand (unit vectors in a few named directions); any other text a zero vector."""

    def __init__(self, vectors: Mapping[str, Sequence[float]]) -> None:
        super().__init__(dim=4)
        self.vectors = {k: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for k, v in vectors.items()}

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        return np.stack([self.vectors.get(t, np.zeros(4, dtype=np.float32)) for t in texts])


AUTH = "投标人须提供原厂授权书。"
CERT = "中标人须在设备到货时提供产品合格证。"
VALID = "投标有效期为自投标截止之日起不少于90日历天。"
PAY = "采购人应在验收合格后30日内付款。"
BID_CERT = "设备到货时，我方随货提供产品合格证。"
BID_VALID = "本投标文件的投标有效期为60日历天。"
BID_OTHER = "我方注册资本为人民币800万元。"


def run_check(vectors: Mapping[str, Sequence[float]]) -> list[BidCheck]:
    tender = tender_requirements(clauses(TENDER, "tender", AUTH, CERT, VALID, PAY))
    bid = clauses(BID, "bid", BID_CERT, BID_VALID, BID_OTHER)
    whole_bid = ChunkRecord(9, BID, 0, "", 0, 0, 1, 1, 1, 3, (), "", None)
    searched: list[str] = []

    def search_bid(text: str, _vector: NDArray[np.float32]) -> list[ChunkRecord]:
        searched.append(text)
        return [whole_bid]

    found = check_bid(tender, bid, search_bid, ScriptedEncoder(vectors))
    assert searched == [AUTH, CERT, VALID]  # the purchaser's duty is searched for in no bid
    return found


def test_the_answer_is_the_nearest_clause_no_other_requirement_claims() -> None:
    # cos(AUTH, BID_CERT) = 0.6 passes the floor, but CERT is at 0.8: the certificate answers CERT, AUTH has none
    found = run_check(
        {
            AUTH: [1, 0, 0, 0], CERT: [0, 1, 0, 0], VALID: [0, 0, 1, 0],
            BID_CERT: [0.6, 0.8, 0, 0], BID_VALID: [0, 0, 1, 0], BID_OTHER: [0, 0, 0, 1],
        }
    )  # fmt: skip
    assert [(c.requirement.clause.text, c.state, c.answer.text if c.answer else None) for c in found] == [
        (AUTH, "not_found", None),
        (CERT, "met", BID_CERT),
        (VALID, "differs", BID_VALID),  # 60 days against at least 90
    ]
    assert found[1].answer is not None and found[1].answer.where.line_start == 1
    [figure] = found[2].figures
    assert (figure.required.normal, figure.bound, figure.offered and figure.offered.normal) == (
        "90 days", "min", "60 days",
    )  # fmt: skip


def test_a_clause_near_two_requirements_answers_both() -> None:
    found = run_check(
        {
            AUTH: [1, 0, 0, 0], CERT: [0, 1, 0, 0], VALID: [0, 0, 1, 0],
            BID_CERT: [0.7, 0.71, 0, 0], BID_VALID: [0, 0, 1, 0], BID_OTHER: [0, 0, 0, 1],
        }
    )  # fmt: skip
    assert [c.state for c in found] == ["met", "met", "differs"]
    assert found[0].answer == found[1].answer


def test_nothing_near_is_not_found() -> None:
    found = run_check({AUTH: [1, 0, 0, 0], CERT: [0, 1, 0, 0], VALID: [0, 0, 1, 0], BID_OTHER: [0, 0, 0, 1]})
    assert [c.state for c in found] == ["not_found", "not_found", "not_found"]
    assert all(c.answer is None and c.similarity == 0.0 for c in found)


# --- the exports ----------------------------------------------------------------------------------------------


def test_the_check_exported_with_both_quotes_and_hostile_text_escaped(tmp_path) -> None:  # type: ignore[no-untyped-def]
    hostile = '=HYPERLINK("http://x")|投标人须提供原厂授权书。'
    tender = tender_requirements(clauses(TENDER, "tender.md", hostile, VALID))
    bid = clauses(BID, "bid.md", BID_VALID)
    whole_bid = ChunkRecord(9, BID, 0, "", 0, 0, 1, 1, 1, 1, (), "", None)
    encoder = ScriptedEncoder({hostile: [1, 0, 0, 0], VALID: [0, 0, 1, 0], BID_VALID: [0, 0, 1, 0]})
    checks = check_bid(tender, bid, lambda _t, _v: [whole_bid], encoder)
    report = ViewsReport("kb.sqlite", bid_checks=checks)

    book = load_workbook(write_views(report, tmp_path / "against.xlsx"))
    sheet = book["against"]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0] == AGAINST_COLUMNS
    row = dict(zip(AGAINST_COLUMNS, rows[1], strict=True))
    assert row["state"] == "not found" and row["bid quote"] is None
    assert str(row["requirement"]).startswith("'=")  # shown as text, never run as a formula
    row = dict(zip(AGAINST_COLUMNS, rows[2], strict=True))
    assert (row["state"], row["requirement"], row["tender line_start"]) == ("differs", VALID, 2)
    assert (row["bid quote"], row["bid document"], row["bid page"], row["bid line_start"]) == (
        BID_VALID, "bid.md", 1, 1,
    )  # fmt: skip
    assert (row["required"], row["offered"]) == ("≥ 90 days", "60 days")

    md = markdown(report)
    assert "## against (2)" in md and "\\|投标人须提供原厂授权书" in md  # the pipe cannot open a cell
    assert "'=HYPERLINK" in csv_text(report)


def test_a_heading_answers_nothing() -> None:
    # the bid's heading 「## 投标有效期」 is as near as its sentence by the script; a heading states no offer
    tender = tender_requirements(clauses(TENDER, "tender", VALID))
    bid = clauses(BID, "bid", "## 投标有效期", BID_VALID)
    whole_bid = ChunkRecord(9, BID, 0, "", 0, 0, 1, 1, 1, 2, (), "", None)
    encoder = ScriptedEncoder({VALID: [0, 0, 1, 0], "## 投标有效期": [0, 0, 1, 0], BID_VALID: [0, 0.3, 1, 0]})
    [check] = check_bid(tender, bid, lambda _t, _v: [whole_bid], encoder)
    assert check.answer is not None and check.answer.text == BID_VALID and check.state == "differs"
