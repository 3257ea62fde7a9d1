"""Value normalisation for reviews: amounts, dates, durations, percentages, counts, yes/no and names in
their normal forms, with the spans they stand at. Every expected value below is worked out by hand from what the
text means (新臺幣35萬900元 is 350,000 + 900 Taiwan dollars; 民國114年 is 1911 + 114 = 2025), not copied from output.
"""

from __future__ import annotations

import pytest

from pikelocal.domain.review import Value, ValueKind
from pikelocal.text.values import counted_deadline, is_blank_date, normalise, same_value, values_in

ALL: tuple[ValueKind, ...] = ("amount", "date", "duration", "percentage", "count")


def found(text: str, kinds: tuple[ValueKind, ...] = ALL) -> list[tuple[str, str, str]]:
    """(kind, normal, text as written) of every value in ``text``."""
    return [(v.kind, v.normal, v.text) for _s, _e, v in values_in(text, kinds)]


def normal(text: str, kind: ValueKind) -> str | None:
    value = normalise(text, kind)
    return value.normal if value else None


# --- amounts ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("新臺幣350,900元", "350900 TWD"),
        ("新臺幣35萬900元", "350900 TWD"),
        ("新台币35万900元", "350900 TWD"),
        ("NT$350,900", "350900 TWD"),
        ("人民币伍拾万元整", "500000 CNY"),
        ("RMB 2,000", "2000 CNY"),
        ("¥50,000", "50000 CNY"),
        ("￥50,000", "50000 CNY"),
        ("35万900元", "350900 元"),  # 元 alone names no currency
        ("1.5亿元", "150000000 元"),
        ("壹萬貳仟元", "12000 元"),
        ("３５０，９００元", "350900 元"),
        ("US$1.5 million", "1500000 USD"),
        ("$350,900.50", "350900.5 USD"),
        ("350,900 dollars", "350900 USD"),
        ("A$5,000", "5000 AUD"),
        ("AUD 2,000,000", "2000000 AUD"),
        ("500澳元", "500 AUD"),
    ],
)
def test_amounts(text: str, expected: str) -> None:
    assert normal(text, "amount") == expected


def test_amount_keeps_its_text_and_number() -> None:
    [(start, end, value)] = values_in("投标保证金为新臺幣35萬900元，逾期不候。", ("amount",))
    assert (start, end) == (6, 16)
    assert value == Value("amount", "新臺幣35萬900元", "350900 TWD", 350_900.0, "TWD")


def test_two_amounts_of_one_sum() -> None:
    text = "提交投标保证金人民币伍万元整（¥50,000），以银行保函缴纳。"
    assert found(text) == [("amount", "50000 CNY", "人民币伍万元整"), ("amount", "50000 CNY", "¥50,000")]


@pytest.mark.parametrize("text", ["千元", "万元以上", "全长约3.2公里", "总分100分"])
def test_not_amounts(text: str) -> None:
    assert normalise(text, "amount") is None


# --- dates --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025年12月15日", "2025-12-15"),
        ("2025年12月15号", "2025-12-15"),
        ("二〇二五年十二月十五日", "2025-12-15"),
        ("2025-12-15", "2025-12-15"),
        ("2025/12/15", "2025-12-15"),
        ("２０２５／１２／１５", "2025-12-15"),
        ("15 December 2025", "2025-12-15"),
        ("15th day of December, 2025", "2025-12-15"),
        ("December 15, 2025", "2025-12-15"),
        ("Dec. 15 2025", "2025-12-15"),
        ("15/12/2025", "2025-12-15"),  # day first
        ("12/15/2025", "2025-12-15"),  # 15 cannot be a month
        ("民國114年12月15日", "2025-12-15"),
        ("中華民國114年12月15日", "2025-12-15"),
        ("民國九十九年一月五日", "2010-01-05"),
        ("114/12/15", "2025-12-15"),
        ("2025年12月", "2025-12"),  # a month only
        ("December 2025", "2025-12"),
    ],
)
def test_dates(text: str, expected: str) -> None:
    assert normal(text, "date") == expected


@pytest.mark.parametrize("text", ["2025年月日", "2025 年 10 月 日 时 分", "____年__月__日", "于 年 月 日前提交"])
def test_a_form_date_left_blank_is_no_date(text: str) -> None:
    assert found(text, ("date",)) == []
    assert is_blank_date(text)


@pytest.mark.parametrize("text", ["詳請參閱服務建議書○頁。", "押標金新臺幣○○元整", "○年○月○日", "共〇份", "○○天內完成"])
def test_a_blank_printed_as_circles_is_no_value(text: str) -> None:
    assert values_in(text, ALL) == []


def test_a_circle_beside_other_digits_is_a_zero() -> None:
    assert found("二〇二五年十二月十五日", ("date",)) == [("date", "2025-12-15", "二〇二五年十二月十五日")]


def test_a_filled_date_or_a_month_is_not_blank() -> None:
    assert not is_blank_date("2025年10月25日") and not is_blank_date("2025年10月底") and not is_blank_date("按月支付")
    assert found("2025年10月底", ("date",)) == [("date", "2025-10", "2025年10月")]


def test_roc_year_in_a_taiwanese_text() -> None:
    assert found("投標截止日期為114年12月15日下午5時。", ("date",)) == [("date", "2025-12-15", "114年12月15日")]
    assert normal("本標案於99年1月5日開標", "date") == "2010-01-05"  # two digits: ROC only in a traditional text
    assert normal("本项目于99年1月5日开标", "date") is None


def test_wrapped_date_is_read() -> None:
    text = "投標截止日期為民國114 年 12 月 15\n日下午5時"
    [(start, end, value)] = values_in(text, ("date",))
    assert value.normal == "2025-12-15"
    assert text[start:end] == value.text == "民國114 年 12 月 15\n日"


@pytest.mark.parametrize("text", ["2025年度工作计划", "2025年", "in 2025 and 2026", "2025年2月30日", "may 2025"])
def test_not_dates(text: str) -> None:
    assert normalise(text, "date") is None  # a year alone, no 30 February, "may" as a verb


# --- percentages --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30%", "30%"), ("３０％", "30%"), ("30 %", "30%"), ("百分之三十", "30%"), ("百分之30", "30%"),
        ("30 percent", "30%"), ("30 per cent", "30%"), ("thirty percent", "30%"), ("2.5%", "2.5%"),
        ("千分之五", "0.5%"), ("5‰", "0.5%"),
    ],
)  # fmt: skip
def test_percentages(text: str, expected: str) -> None:
    assert normal(text, "percentage") == expected


def test_percentage_is_not_also_an_amount() -> None:
    assert found("金额为中标合同金额的10%。") == [("percentage", "10%", "10%")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("（1）投标报价： 26.25 分；", "26.25 points"), ("投标报价 （0～25分）", "25 points"),
     ("scored out of 30 points", "30 points"), ("２０分", "20 points")],
)  # fmt: skip
def test_a_weight_in_points_is_a_percentage_whose_unit_is_points(text: str, expected: str) -> None:
    assert normal(text, "percentage") == expected


@pytest.mark.parametrize(
    "text", ["十分重要", "三分之一", "3分期付款", "答辩时间30分钟", "第2分包", "第3分册", "下设5分公司"]
)
def test_no_points_in(text: str) -> None:
    assert not [n for _k, n, _t in found(text) if n.endswith("points")]


# --- durations ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "days"),
    [
        ("30日历天", "30 days", 30.0),
        ("計畫工期為240日曆天", "240 days", 240.0),
        ("90天", "90 days", 90.0),
        ("合格后28日内退还", "28 days", 28.0),
        ("三个月", "3 months", None),
        ("一个半月", "1.5 months", None),
        ("一年半", "1.5 years", None),
        ("保固期两年半", "2.5 years", None),
        ("6 months", "6 months", None),
        ("2 years", "2 years", None),
        ("近五年内", "5 years", None),
        ("2周", "2 weeks", 14.0),
        ("15个工作日", "15 working days", None),
        ("15 working days", "15 working days", None),
        ("thirty (30) days", "30 days", 30.0),
        ("within 14 calendar days", "14 days", 14.0),
        ("24小时", "24 hours", 1.0),
    ],
)
def test_durations(text: str, expected: str, days: float | None) -> None:
    value = normalise(text, "duration")
    assert value is not None
    assert (value.normal, value.number) == (expected, days)


@pytest.mark.parametrize(
    "text",
    # 中邮人寿's 「提供7×24小时的免费技术支持」: the hours of a service's cover, read as its term of 24 hours
    [
        "每月15日",
        "于15日前提交",
        "3月",
        "第5日",
        "2025年",
        "114年度",
        "年满18周岁",
        "提供7×24小时的免费技术支持",
        "5*8小时服务",
    ],
)
def test_not_durations(text: str) -> None:
    # days of the month, March, an ordinal, years, an age, days by hours of cover
    assert normalise(text, "duration") is None


# --- counts -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4人", "4"), ("正本1份，副本8份", "1"), ("共30頁", "30"), ("四家", "4"), ("not more than four", "4"),
        ("three (3) copies", "3"), ("四", "4"), ("The answer is 4.", "4"), ("not fewer than three", "3"),
        ("a maximum of four", "4"),
    ],
)  # fmt: skip
def test_counts(text: str, expected: str) -> None:
    assert normal(text, "count") == expected


def test_a_dates_digits_are_not_counts() -> None:
    assert found("2025年12月15日前提交8份", ("count",)) == [("count", "8", "8份")]


def test_ordinal_is_not_a_count() -> None:
    assert found("第3页 共10页", ("count",)) == [("count", "10", "10页")]


@pytest.mark.parametrize("text", ["详见第3条", "电话0571-88888888", "9:30开标", "2025年12月15日"])
def test_no_count_in(text: str) -> None:
    assert normalise(text, "count") is None  # an article, a phone number, a time, a date


# --- what holds no value ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["联系电话：0571-88888888", "Tel: +61 2 9999 8888", "详见第5.2.1条", "第十条 投标保证金", "Section 5.2.1 applies"],
)
def test_non_values(text: str) -> None:
    assert values_in(text, ALL) == []


def test_spans_left_to_right_without_overlap() -> None:
    text = "The Contractor shall complete the Works within 180 days of 1 July 2025, or pay A$5,000 per day up to 10%."
    spans = values_in(text, ALL)
    assert [(v.kind, v.normal) for _s, _e, v in spans] == [
        ("duration", "180 days"), ("date", "2025-07-01"), ("amount", "5000 AUD"), ("percentage", "10%"),
    ]  # fmt: skip
    assert all(e1 <= s2 for (_a, e1, _v), (s2, _b, _w) in zip(spans, spans[1:], strict=False))
    assert all(text[s:e] == v.text for s, e, v in spans)


# --- answers: yes/no, names, text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("是", "yes"), ("是的，允许。", "yes"), ("正确", "yes"), ("否", "no"), ("否，本项目不接受联合体投标", "no"),
        ("错误", "no"), ("不正确", "no"), ("不接受", "no"), ("Yes, it is.", "yes"), ("No.", "no"), ("true", "yes"),
        ("False", "no"), ("「是」", "yes"),
    ],
)  # fmt: skip
def test_yes_no(text: str, expected: str) -> None:
    assert normal(text, "yesno") == expected


def test_names_collapse_space_and_width() -> None:
    assert normal("  ＡＣＭＥ　Pty\n  Ltd． ", "name") == "ACME Pty Ltd"
    assert normal("「城东新区建设局」。", "name") == "城东新区建设局"
    assert normal(" ，。 ", "text") is None


# --- comparing ----------------------------------------------------------------------------------------------------


def value(text: str, kind: ValueKind) -> Value:
    found_value = normalise(text, kind)
    assert found_value is not None
    return found_value


def test_same_value() -> None:
    assert same_value(value("新臺幣35萬900元", "amount"), value("350,900元", "amount"))
    assert same_value(value("人民币伍万元整", "amount"), value("50,000元", "amount"))
    assert same_value(value("人民币伍万元整", "amount"), value("¥50,000", "amount"))
    assert not same_value(value("US$50,000", "amount"), value("50,000元", "amount"))
    assert not same_value(value("人民币5万元", "amount"), value("人民币6万元", "amount"))
    assert same_value(value("民國114年12月15日", "date"), value("2025-12-15", "date"))
    assert not same_value(value("2025年12月15日", "date"), value("2025年12月20日", "date"))
    assert same_value(value("百分之十", "percentage"), value("10%", "percentage"))
    assert same_value(value("2周", "duration"), value("14天", "duration"))
    assert not same_value(value("3个月", "duration"), value("90天", "duration"))  # a month is no fixed number of days
    # a year is twelve months: 质量保证期为验收之日起 12 个月 states the same term as 质保期一年
    assert same_value(value("12个月", "duration"), value("一年", "duration"))
    assert same_value(value("24 months", "duration"), value("2 years", "duration"))
    assert same_value(value("一年半", "duration"), value("18个月", "duration"))
    assert not same_value(value("12个月", "duration"), value("2年", "duration"))
    assert not same_value(value("1年", "duration"), value("365天", "duration"))  # a year is no fixed number of days
    assert same_value(value("ACME Ltd", "name"), value("Acme  LTD", "name"))
    assert not same_value(value("10%", "percentage"), value("10", "count"))
    assert same_value(value("25分", "percentage"), value("25%", "percentage"))  # 25 of 100 points
    assert not same_value(value("26.25分", "percentage"), value("25分", "percentage"))


@pytest.mark.parametrize(
    ("text", "number", "phrase"),
    [
        ("时间：投标截止日10日前", "10", "投标截止日10日前"),
        ("投标截止时间 10 日前以书面 形式提出。", "10", "投标截止时间 10 日前"),  # spaced, as PDF text is
        ("均应在磋商响应截止期 5 天以前，按公告的地址通知", "5", "均应在磋商响应截止期 5 天以前"),
        ("应当在获取招标文件之日起7个工作日内提出", "7", "应当在获取招标文件之日起7个工作日内"),
        ("於開標日三日前以書面提出", "3", "於開標日三日前"),
        ("截止投標日前 3 年內之實績", "3", None),  # a window of years for experience, no deadline
        ("验收合格后 10 日内付款", "10", None),  # counted from no event of the procedure
        ("投标截止时间 10 日前", "5", None),  # another count
        ("请于 10 日前提交", "10", None),  # no event named in its clause
    ],
)
def test_a_deadline_counted_from_an_event(text: str, number: str, phrase: str | None) -> None:
    span = counted_deadline(text, number)
    assert (text[span[0] : span[1]] if span else None) == phrase
