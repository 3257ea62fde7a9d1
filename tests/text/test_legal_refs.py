"""The grammar of citations to laws (pikelocal.text.legal_refs): Chinese and English forms, lists, self and earlier-law
references, near-misses that must not match, Han numerals, article starts and the keys laws are matched by."""

from __future__ import annotations

import pytest

from pikelocal.text.legal_refs import article_starts, clause_starts, find_refs, is_law_title, law_keys, name_candidates


def cited(text: str) -> list[tuple[str | None, str | None, str, str]]:
    """(law, article, detail, the matched text) of each citation found."""
    return [(r.law, r.article, r.detail, text[r.start : r.end]) for r in find_refs(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # the sample tender's citation
            "根据《中华人民共和国招标投标法实施条例》第四条第三款的规定，财政部门依法",
            [("中华人民共和国招标投标法实施条例", "4", "第三款", "《中华人民共和国招标投标法实施条例》第四条第三款")],
        ),
        ("依政府採購法第64條規定辦理", [("政府採購法", "64", "", "政府採購法第64條")]),
        ("按照招标投标法第 46 条", [("招标投标法", "46", "", "招标投标法第 46 条")]),
        ("依照中华人民共和国民法典第五百条", [("中华人民共和国民法典", "500", "", "中华人民共和国民法典第五百条")]),
        ("刑法第二百六十四条之一", [("刑法", "264-1", "", "刑法第二百六十四条之一")]),
        ("依照对外贸易法第十条", [("对外贸易法", "10", "", "对外贸易法第十条")]),  # 对 opens the name, not a cut
        (  # 适用 inside the name (法律适用法) is no introducer: LawBench's 8 unresolved questions were all this law
            "依照涉外民事关系法律适用法第十九条",
            [("涉外民事关系法律适用法", "19", "", "涉外民事关系法律适用法第十九条")],
        ),
        ("适用刑法第十条", [("刑法", "10", "", "刑法第十条")]),  # 适用 before a two-character name still cuts
        (
            "违反招标投标法第五十条、第五十一条的",
            [("招标投标法", "50", "", "招标投标法第五十条"), ("招标投标法", "51", "", "第五十一条")],
        ),
        (  # a list of paragraphs, then another article of the same law (a judicial interpretation of 公司法)
            "适用公司法第七十一条第二款、第三款或者第七十二条规定的",
            [
                ("公司法", "71", "第二款、第三款", "公司法第七十一条第二款、第三款"),
                ("公司法", "72", "", "第七十二条"),
            ],
        ),
        (
            "民法典和劳动合同法第十条",  # 和 before the name: the name is what follows it
            [("劳动合同法", "10", "", "劳动合同法第十条")],
        ),
        ("第十条至第十二条", [(None, "10", "", "第十条"), (None, "12", "", "第十二条")]),
        ("本法第十条规定", [(None, "10", "", "本法第十条")]),
        ("依照本条例第五条第二款第（一）项", [(None, "5", "第二款", "本条例第五条第二款")]),
        ("应按第11条执行", [(None, "11", "", "第11条")]),
        ("见第６４条", [(None, "64", "", "第６４条")]),  # full-width digits
        (
            "根据《民法典》第一百四十三条，以及该法第一百四十四条",
            [("民法典", "143", "", "《民法典》第一百四十三条"), ("民法典", "144", "", "该法第一百四十四条")],
        ),
        (
            "《建筑法》《招标投标法》及其相关的法律",
            [("建筑法", None, "", "《建筑法》"), ("招标投标法", None, "", "《招标投标法》")],
        ),
        ("《刑法修正案（十一）》", [("刑法修正案（十一）", None, "", "《刑法修正案（十一）》")]),
        ("《示范文本》第三条", [("示范文本", "3", "", "《示范文本》第三条")]),  # an article of any titled text
    ],
)
def test_chinese_citations(text: str, expected: list[tuple[str | None, str | None, str, str]]) -> None:
    assert cited(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "《示范文本》第一章的格式",  # a titled text that is not a law, and a chapter
        "《投标人事前信用承诺书》",
        "第三章 总则 第2页 第一次 第3节",  # chapter, page, time, section: not articles
        "满足以下第一条件",  # 条件 (a condition)
        "本合同第二条款",  # 条款 is the word "clause", not 第二条 + 款
        "第零条",  # no article 0
        "第一二条",  # not a number
        "这一条路和那条河",  # no 第
        "第一条 为了规范招标投标活动\n  第二条　在境内",  # articles' own headings, at line starts
    ],
)
def test_chinese_near_misses(text: str) -> None:
    assert find_refs(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "section 12 of the Insurance Contracts Act 1984 applies",
            [("Insurance Contracts Act 1984", "12", "", "section 12 of the Insurance Contracts Act 1984")],
        ),
        (
            "ss 54 and 55 of the Insurance Contracts Act 1984 (Cth)",
            [
                ("Insurance Contracts Act 1984 (Cth)", "54", "", "ss 54"),
                ("Insurance Contracts Act 1984 (Cth)", "55", "", "55"),
            ],
        ),
        (
            "Insurance Contracts Act 1984 (Cth) s 54(1) provides",
            [("Insurance Contracts Act 1984 (Cth)", "54", "(1)", "Insurance Contracts Act 1984 (Cth) s 54(1)")],
        ),
        (
            "Under the Contracts Review Act 1980 (NSW), s 7",
            [("Contracts Review Act 1980 (NSW)", "7", "", "the Contracts Review Act 1980 (NSW), s 7")],
        ),
        ("under s 54(1)(b), the insurer", [(None, "54", "(1)(b)", "s 54(1)(b)")]),
        ("see s. 7 and section 9A", [(None, "7", "", "s. 7"), (None, "9A", "", "section 9A")]),
        ("cl 3.2 of the contract", [(None, "3.2", "", "cl 3.2")]),
        (
            "the Contracts Review Act 1980 (NSW) gives relief",
            [("Contracts Review Act 1980 (NSW)", None, "", "the Contracts Review Act 1980 (NSW)")],
        ),
        (
            "Under Insurance Contracts Act 1984 the insurer",  # a sentence's first word is not part of the name
            [("Insurance Contracts Act 1984", None, "", "Under Insurance Contracts Act 1984")],
        ),
    ],
)
def test_english_citations(text: str, expected: list[tuple[str | None, str | None, str, str]]) -> None:
    assert cited(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "its 54 members",  # no word boundary before s
        "items 54 and 55",
        "the Plaintiff's 3 claims",  # possessive s
        "the act of signing",  # lower case
        "Acting Justice Smith",  # Act inside a word
        "Class Actions were filed",
        "this Act applies",  # the citing Act itself, by a determiner: not a citation of a named law
        "section A of the form",  # no number
        "s54",  # no space after a bare s
    ],
)
def test_english_near_misses(text: str) -> None:
    assert find_refs(text) == []


def test_mixed_text_reads_both_languages() -> None:
    text = "依照《中华人民共和国民法典》第五百条 and s 54 of the Insurance Contracts Act 1984"
    assert [(r.law, r.article) for r in find_refs(text)] == [
        ("中华人民共和国民法典", "500"),
        ("Insurance Contracts Act 1984", "54"),
    ]


def test_article_starts_at_line_starts_only() -> None:
    text = (
        "第一章 总则\n第一条 为了规范招标投标活动\n依照第三条的规定\n  第二条　在中华人民共和国境内\n"
        "第二条 重复的不算\n第十条之一 补充"
    )
    assert [(a.article, text[a.offset :].lstrip()[:3]) for a in article_starts(text)] == [
        ("1", "第一条"),
        ("2", "第二条"),
        ("10-1", "第十条"),
    ]


def test_english_section_headings_only_when_asked() -> None:
    text = "4 Definitions\nIn this Act:\n7 Principal relief\n(1) Where the Court finds"
    assert article_starts(text) == []
    assert [a.article for a in article_starts(text, english=True)] == ["4", "7"]


def test_law_titles_and_keys() -> None:
    assert is_law_title("中华人民共和国招标投标法实施条例") and is_law_title("招标投标法(2017-12-27)")
    assert not is_law_title("示范文本") and not is_law_title("投标人事前信用承诺书")
    assert law_keys("中华人民共和国招标投标法(2017-12-27)") >= {"招标投标法"}
    assert "招标投标法" not in law_keys("中华人民共和国招标投标法实施条例")  # a law is not its regulations
    assert law_keys("Contracts Review Act 1980 (NSW)") >= {"contractsreviewact1980(nsw)", "contractsreviewact"}
    assert name_candidates("违反招标投标法")[:3] == ["违反招标投标法", "反招标投标法", "招标投标法"]


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        ("第15条 保证金退还\n投标保证金在5日内退还。\n第16条 其他", [("15", 0), ("16", 24)]),
        ("## 第十五條 退還\n押標金於決標後退還。", [("15", 0)]),
        ("15. Refund of the bid bond\nThe bond is returned within 10 days.", [("15", 0)]),
        ("12.3 Refund\nClause 7 Delivery\nArticle 5 Scope", [("12.3", 0), ("7", 12), ("5", 30)]),
        ("The works shall be completed within 120 days.\n2025 was a good year.", []),  # no heading, a year mid-text
        ("本条所称第3条的规定", []),  # a citation inside a sentence is no heading
    ],
)
def test_clause_starts(text: str, starts: list[tuple[str, int]]) -> None:
    assert [(s.article, s.offset) for s in clause_starts(text)] == starts
