"""Concept groups: one vocabulary across the mainland, Taiwan and English. The built-in groups align the terms a
review meets (押標金 = 投标保证金 = bid bond); a user's file adds groups or terms; a bad entry is one line naming the
file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.text.concepts import ConceptError, builtin_groups, fold, load_groups, only_terms

ALIGNED: list[tuple[str, str, str]] = [
    # (Taiwan's or English term, the mainland's, the concept both name)
    ("押標金", "投标保证金", "bid_bond"),
    ("bid security", "投标保证金", "bid_bond"),
    ("履約保證金", "履约保证金", "performance_bond"),
    ("決標", "定标", "award"),
    ("履約期限", "服务期", "contract_term"),
    ("執行期程", "工期", "contract_term"),
    ("評選", "评标", "evaluation"),
    ("評審", "评标", "evaluation"),
    ("案號", "招标编号", "case_number"),
    ("廠商", "供应商", "bidder"),
    ("服務建議書", "投标文件", "bid_documents"),
    ("預算金額", "采购预算", "budget"),
    ("征询文件", "招标文件", "tender_documents"),  # 民生银行's inquiry (征询) names its documents so
    ("获取时间", "获取招标文件", "document_period"),  # 「征询文件的获取：（1）获取时间：…」
    ("合同估算价", "采购预算", "budget"),  # a works tender's estimate (肥西), not its cap (最高投标限价)
    ("陈述及答辩", "讲标", "presentation"),  # 肥西's video presentation by the project manager
    ("响应文件开启时间", "开标时间", "bid_opening"),  # a 磋商's opening (成都): its responses are opened
    ("營業秘密", "商业秘密", "confidentiality"),  # what a duty of confidence keeps (苏州)
]


@pytest.mark.parametrize(("theirs", "ours", "concept"), ALIGNED)
def test_one_notion_in_two_vocabularies_is_one_concept(theirs: str, ours: str, concept: str) -> None:
    groups = builtin_groups()
    assert groups.concepts_in(theirs) == groups.concepts_in(ours) == {concept}


@pytest.mark.parametrize(
    ("text", "concepts"),
    [
        ("履约保证金为合同价款的10%", {"performance_bond", "contract_price"}),  # the longest term: not 保证金
        ("押 標 金", {"bid_bond"}),  # PDF text spaces out labels
        ("The bid bonds are due", {"bid_bond"}),  # plural, any case
        ("a pre-bid  meeting", {"prebid_meeting"}),  # hyphen and spaces
        ("taxi", set()),  # English terms match whole words only
        ("保证金", set()),  # a word that names several notions is no term
        ("服務建議書一式 10 份", {"copies", "bid_documents"}),  # 一式…份 counts the copies
        ("內容採中文直式橫書", {"language"}),  # a language named is about the language
        ("Proposals shall be written in English", {"language", "bid_documents"}),
        ("投標文件有效期至少自投標時起至開標後 50 日止", {"bid_validity", "bid_opening"}),  # not bid_documents
        ("登记截止时间：2005 年 4 月 30 日", {"registration"}),  # registering to bid, not the bid deadline
        ("递送截止时间：2005 年 5 月 11 日", {"bid_deadline"}),
    ],
)
def test_terms_are_found_as_documents_print_them(text: str, concepts: set[str]) -> None:
    assert builtin_groups().concepts_in(text) == concepts


def test_a_question_is_expanded_with_the_other_names_of_its_concepts() -> None:
    extra = builtin_groups().expansion("本案押標金多少？")
    assert "投标保证金" in extra and "bid bond" in extra
    assert "押標金" not in extra and "押标金" not in extra  # a name already in the question, in either script
    assert len({fold(t) for t in extra}) == len(extra)  # one of each


def test_a_concept_weighs_the_words_its_term_replaced() -> None:
    weights = builtin_groups().weights(fold("投标保证金和押標金"))
    assert weights == {"bid_bond": 4}  # 投标保证金: four bigrams; the longer of the two names


def test_a_user_file_adds_a_group_and_extends_a_known_one(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        '[concepts.bid_bond]\nhant = ["保證金額度"]\n\n[concepts.drone]\nlabel = "drone"\nhans = ["无人机"]\n'
        'hant = ["無人機"]\nen = ["UAV", "drone"]\n',
        encoding="utf-8",
    )
    groups = load_groups(path)
    assert groups.concepts_in("保證金額度") == {"bid_bond"}  # a known group extended
    assert groups.concepts_in("押標金") == {"bid_bond"}  # keeping its own terms
    assert groups.concepts_in("無人機") == groups.concepts_in("UAV") == {"drone"}  # a new group
    assert builtin_groups().concepts_in("無人機") == set()  # the built-in ones are not changed


@pytest.mark.parametrize(
    ("body", "line", "says"),
    [
        ('[concepts.bid_bond]\nhant = "押標金"\n', 1, "hant must be a list of strings"),
        ('\n\n[concepts.x]\nhans = ["金"]\n', 3, "too short"),
        ('[concepts.x]\nen = ["押標金"]\n', 1, "is Chinese"),
        ('[concepts.x]\nlabel = "x"\n', 1, "has no terms"),
        ('[concepts.x]\nhans = ["投标"]\nfr = ["caution"]\n', 1, "unknown key 'fr'"),
        ('[concepts."Bad Name"]\nhans = ["投标"]\n', 1, "lower-case letters"),
        ("[other]\nx = 1\n", None, "unknown key 'other'"),
        ("[concepts.x\n", None, "not valid TOML"),
        pytest.param("a = " + "[" * 3000 + "]" * 3000 + "\n", None, "nested too deeply", id="deeply-nested"),
    ],
)
def test_a_bad_entry_is_one_line_naming_the_file_and_line(
    tmp_path: Path, body: str, line: int | None, says: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ConceptError) as err:
        load_groups(path)
    message = str(err.value)
    assert "\n" not in message and says in message
    assert message.startswith(f"{path}:{line}:" if line is not None else f"{path}:")


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConceptError, match="concepts file not found"):
        load_groups(tmp_path / "absent.toml")


@pytest.mark.parametrize(
    ("text", "concepts"),
    [
        ("本案採用何種評選方式？", {"award_basis", "evaluation"}),  # 評選方式 holds 評選
        ("由各評審委員辦理序位評比", {"evaluation_committee", "evaluation"}),  # 評審委員 holds 評審
        ("evaluation committee members", {"evaluation_committee", "evaluation"}),
        ("本项目采用以下方式支持中小企业发展", {"sme"}),
        ("履约保证金", {"performance_bond"}),  # no other term inside it
    ],
)
def test_broad_concepts_are_the_terms_and_the_terms_they_hold(text: str, concepts: set[str]) -> None:
    assert builtin_groups().broad_concepts_in(text) == concepts


@pytest.mark.parametrize(
    ("text", "only"),
    [
        # a role or a field's label, alone or with filler words
        ("招标人", True), ("本案之招標機關", True), ("the purchaser", True), ("招标编号", True), ("Purchaser.", True),
        # a value, or a value after its label
        ("黄梅县水利和湖泊局", False), ("采购人：黄梅县水利和湖泊局", False), ("Harbour City Council", False),
        ("HBHM-202510SL-007001", False), ("的", False), ("", False),
    ],
)  # fmt: skip
def test_an_answer_that_is_only_concept_names_names_no_value(text: str, only: bool) -> None:
    assert only_terms(text) is only
