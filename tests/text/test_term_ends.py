"""A contract's term printed as a span to an end date (text/term_ends.py)."""

from __future__ import annotations

import pytest

from pikelocal.text.term_ends import term_to_end_date


@pytest.mark.parametrize(
    ("sentence", "span"),
    [
        ("三、 期程要求：自決標次日起至 115 年 12 月 31 日止；", "自決標次日起至115年12月31日止"),
        ("本案實施自決標日起至 115 年 12 月 31 日止。", "自決標日起至115年12月31日止"),
        ("本案執行期程自決標次日起至110 年12 月31 日止。", "自決標次日起至110年12月31日止"),
        ("3.4 服务期：自合同签订之日起至2025年12月31日。", "自合同签订之日起至2025年12月31日"),
        ("4.合同履行期限：自合同签订生效之日起至2025年12月31日止。", "自合同签订生效之日起至2025年12月31日止"),
        ("服务期限：自中标通知书发出之日起至2026-06-30止。", "自中标通知书发出之日起至2026-06-30止"),
    ],
)
def test_a_span_from_the_contract_s_start_to_an_end_date(sentence: str, span: str) -> None:
    assert term_to_end_date(sentence) == span


@pytest.mark.parametrize(
    "sentence",
    [
        "获取招标文件时间：自公告发布之日起至2025年6月16日止。",  # the documents' sale
        "投标有效期：自投标截止之日起至2025年9月30日。",  # the bids' validity
        "本协议有效期为一年，自2025年7月1日起至2026年6月30日止。",  # from a date, not from the contract's start
        "服务期：自合同签订之日起一年。",  # a length, no end date
        "自決標次日起至 115 年 12 月止。",  # no day: no end date
    ],
)
def test_no_term_span_where_the_span_is_another_thing(sentence: str) -> None:
    assert term_to_end_date(sentence) is None
