"""Values as documents print them: one table of forms, each read to the value it means (worked out by hand: 35 萬
900 元 is 350,000 + 900; 民國 114 年 is 1911 + 114 = 2025; 二分之一 is one half). PDF text puts spaces between
digits and 萬, wraps a date over two lines, writes case numbers with hyphens and letters, and uses full-width forms;
each row is one such form."""

from __future__ import annotations

import pytest

from pikelocal.domain.review import ValueKind
from pikelocal.text.values import as_printed, dates_as_printed, normalise, printed_as_other, values_in

ALL: tuple[ValueKind, ...] = ("amount", "date", "duration", "percentage", "count")

FORMS: list[tuple[str, ValueKind, str]] = [
    # numerals with spaces, as PDF text extracts them
    ("新臺幣 35 萬 900 元", "amount", "350900 TWD"),
    ("新臺幣35 萬 900元（含稅）", "amount", "350900 TWD"),
    ("預算金額：35 萬 900 元", "amount", "350900 元"),
    ("新臺幣 350,900 元", "amount", "350900 TWD"),
    ("1 億 2000 萬元", "amount", "120000000 元"),
    ("新臺幣 3 萬元", "amount", "30000 TWD"),
    # full-width forms
    ("新臺幣３５萬９００元", "amount", "350900 TWD"),
    ("３０％", "percentage", "30%"),
    ("１１４年１２月１５日", "date", "2025-12-15"),
    # ROC dates, spaced and wrapped over two lines
    ("114 年 12 月 15 日前", "date", "2025-12-15"),
    ("民國 115 年 1 月 31 日", "date", "2026-01-31"),
    ("自決標日起至 115 年 1 月 31\n日前完成", "date", "2026-01-31"),
    ("114 年 12 月 15\n日（星期一）", "date", "2025-12-15"),
    # a two-digit month or day split by the PDF's text (「2027 年1 1月10」 is 11 月; only 10–12 and 10–31 split so)
    ("服务期至2027 年1 1月10\n日止", "date", "2027-11-10"),
    ("114 年 1 2 月 1 5 日", "date", "2025-12-15"),
    ("2025年 1 月 2 日", "date", "2025-01-02"),
    ("114/12/15", "date", "2025-12-15"),
    ("中華民國一百十四年十二月十五日", "date", "2025-12-15"),
    # a Word table printing a date one part a cell (北京银行's 服务期限 row)
    ("| 服务期限 | 2026年 | 12月 | 16日 | 至 | 2027年 | 12月 | 15日 |", "date", "2026-12-16"),
    # fractions and shares
    ("二分之一以上", "percentage", "50%"),
    ("三分之二", "percentage", "66.67%"),
    ("四分之一", "percentage", "25%"),
    ("百分之三十", "percentage", "30%"),
    ("千分之五", "percentage", "0.5%"),
    # durations and counts, spaced
    ("簡報時間不得超過 15 分鐘", "duration", "15 minutes"),
    ("90 日曆天", "duration", "90 days"),
    ("一式 8 份", "count", "8"),
    ("委員 5 人", "count", "5"),
    # a form's blank filled in brackets
    ("簡報時間為（20）分鐘", "duration", "20 minutes"),
    ("简报时间为(20)分钟", "duration", "20 minutes"),
    ("服務建議書一式（10）份", "count", "10"),
    # a Chinese numeral wrapped over two lines
    ("之日起九\n十日内未申请登记的", "duration", "90 days"),
]


@pytest.mark.parametrize(("text", "kind", "expected"), FORMS)
def test_a_printed_form_reads_as_the_value_it_means(text: str, kind: ValueKind, expected: str) -> None:
    value = normalise(text, kind)
    assert value is not None and value.normal == expected


@pytest.mark.parametrize(
    "text",
    [
        "新臺幣 35 萬 900 元",  # one amount, not 35萬 and 900元
        "新臺幣35 萬 900元",
    ],
)
def test_a_spaced_amount_is_one_value(text: str) -> None:
    assert [v.normal for _s, _e, v in values_in(text, ALL)] == ["350900 TWD"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a year after 萬 is a date of its own, not the amount's remainder
        ("新臺幣 35 萬 2025 年 3 月 1 日前撥付", ["350000 TWD", "2025-03-01"]),
        # a case number's digits are no value
        ("案號：11402-39", []),
        ("案號：LP5-1140213", []),
        # a phone number's extension is no points
        ("電話：(02)2332-6228分機 15", []),
        # a clause number before 分值 or 分析 is no points
        ("2.2 分值构成与评分标准", []),
        ("3.1 分析方法", []),
        # a bracketed number at a clause's start numbers a list
        ("（1）日期及地點", []),
        ("內容如下：(2)項目名稱", []),
        # a split number that cannot be a month is no date
        ("2025年1 3月", []),
        # a year's cell and a count's cell are no date (only 年 | 月 | 日 in order join)
        ("| 2026年 | 12人 |", ["12"]),
    ],
)
def test_forms_that_are_not_one_value(text: str, expected: list[str]) -> None:
    assert [v.normal for _s, _e, v in values_in(text, ALL)] == expected


@pytest.mark.parametrize(
    ("draft", "quote", "expected"),
    [
        # the reader copied the digits and dropped 萬 and the currency: 10 萬 is 100,000
        ("10", "(二)保固保證金金額為新臺幣10萬元整。", "100000 TWD"),
        ("1300", "預算金額為新臺幣 1300 萬元", "13000000 TWD"),
        ("5", "投标保证金人民币5万元", "50000 CNY"),
        ("2.5", "contract price of USD 2.5 million", "2500000 USD"),
        # no amount of the quote is the number scaled: the draft stays as drafted
        ("30", "履約保證金為新臺幣65萬元", "30"),
        ("35", "新臺幣35萬900元", "35"),
        # two scaled amounts that disagree: the draft stays
        ("5", "押標金新臺幣5萬元，保固金新臺幣5千元", "5"),
        # a draft with its unit is the reader's own reading
        ("10元", "新臺幣10萬元整", "10 元"),
    ],
)
def test_a_bare_number_is_read_as_its_quote_prints_it(draft: str, quote: str, expected: str) -> None:
    value = normalise(draft, "amount")
    assert value is not None
    assert as_printed(value, quote).normal == expected


@pytest.mark.parametrize(
    ("draft", "kind", "quote", "other"),
    [
        # the figure beside the one asked for: a deadline's days for the bond's amount, members for a weight
        ("30", "amount", "得標廠商應於決標日之次日起「30 日」內繳納履約保證金", True),
        ("5", "percentage", "評選委員會由委員 5 人組成", True),
        ("15", "count", "投標文件有效期為開標後 15 日", True),
        # printed as the kind asked for (a weight in points is a percentage), or scaled, or as a bare cell
        ("65", "amount", "額度為新臺幣 65 萬元", False),
        ("10", "percentage", "六、價格 標價組成內容合理性 10 分", False),
        ("5", "count", "评标委员会构成： 5 人，其中招标人代表 0 人", False),
        ("20", "percentage", "| 5 | 經費合理性 | 20 |", False),
        ("70", "count", "總滿分之合格分數為平均總評分70分", False),  # a score in points is a count of points
        # printed both ways: the reader may mean either
        ("30", "amount", "30 日內繳納新臺幣 30 萬元", False),
        # a draft with its own unit is the reader's own reading
        ("30元", "amount", "「30 日」內繳納", False),
    ],
)
def test_a_bare_number_printed_as_another_kind(draft: str, kind: ValueKind, quote: str, other: bool) -> None:
    value = normalise(draft, kind)
    assert value is not None
    assert printed_as_other(value, quote) is other


@pytest.mark.parametrize(
    ("answer", "quotes", "expected"),
    [
        # 115 + 1900: the ROC year converted wrongly; written with the quote's ROC year (115 + 1911 = 2026)
        ("2015年1月27日9:40", ["（三） 截止期限為民國 115年1月27日上午9時40分。"], "115年1月27日9:40"),
        ("2015-01-16", ["廠商請求釋疑之期限至 115年1月16日止。"], "115年1月16日"),
        # converted right: written with the ROC year too, so that its digits stand in the quote
        ("2026年1月27日", ["截止期限為民國 115 年 1 月 27 日"], "115年1月27日"),
        # written as the quote writes it, or a Gregorian date the quote prints: unchanged (PDF spacing not copied)
        ("115年1月27日", ["截止期限為民國 115年1月27日"], "115年1月27日"),
        ("2026-01-27", ["截止期限為2026年1月27日"], "2026-01-27"),
        ("2027年11月10日", ["至2027 年1 1月10日"], "2027年11月10日"),
        # the quote's year is Gregorian: the reader's year is its own reading, not a conversion
        ("2015年1月27日", ["截止期限為2025年1月27日"], "2015年1月27日"),
        # two ROC dates of that month and day in the quotes: which one is not known
        ("2015年1月27日", ["114年1月27日公告", "115年1月27日截止"], "2015年1月27日"),
        # no date of that day: unchanged
        ("2015年1月28日", ["截止期限為民國 115年1月27日"], "2015年1月28日"),
    ],
)
def test_an_answer_date_reads_as_its_quote_prints_it(answer: str, quotes: list[str], expected: str) -> None:
    assert dates_as_printed(answer, quotes) == expected
