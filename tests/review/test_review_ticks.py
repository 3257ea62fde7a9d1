"""A form's ticked box read by the system: the option after the item's term, a negative tick answering an amount
item ("there is none"), a yes/no item answered no, and no reading across the next clause's number or from a tick
far from the term."""

from __future__ import annotations

from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.review import ChecklistItem
from pikelocal.review.conflicts import Corpus
from pikelocal.review.ticks import as_yes_no, ticked_option

FORM = (
    "1.9.1 踏勘现场 ☑不组织 □组 织，踏勘时间： / \n"
    "1.11 分包 ☑不允许 □允 许，分包要求： / \n"
    "3.4.1 投标保证金的\n递交 ☑不提交 □提交，\n"
    "7.1 是否授权评标委员会确定中标人 □是 ☑否，推荐的中标候选人数：不超过3 个\n7.3 技术经济补偿 ☑不补偿 □补 偿\n"
)


def corpus(text: str) -> Corpus:
    return Corpus(
        {1: "招标文件"}, {1: [ChunkRecord(1, 1, 0, text, 0, len(text), None, None, None, None, (), "", None)]}, {}
    )


def item(kind: str, *hints: str) -> ChecklistItem:
    return ChecklistItem("x", "x", kind, {"hans": "?"}, hints)  # type: ignore[arg-type]


def test_the_ticked_option_after_the_term_is_read() -> None:
    found = ticked_option(corpus(FORM), item("text", "踏勘现场", "现场踏勘"))
    assert found is not None and found.option == "不组织" and found.line.startswith("1.9.1 踏勘现场 ☑不组织")
    bond = ticked_option(corpus(FORM), item("amount", "投标保证金"))
    assert bond is not None and bond.option == "不提交"  # the term wrapped to the next line: still the same field


def test_a_yes_no_reading_follows_the_options_negation() -> None:
    found = ticked_option(corpus(FORM), item("yesno", "分包"))
    assert found is not None and (found.option, as_yes_no(found.option)) == ("不允许", "no")
    assert as_yes_no("允许") == "yes" and as_yes_no("否") == "no" and as_yes_no("是") == "yes"


def test_a_tick_of_the_next_clause_or_far_away_is_not_the_terms() -> None:
    assert ticked_option(corpus(FORM), item("text", "中标候选人数")) is None  # 不超过3 个 / 7.3 … ☑不补偿
    assert (
        ticked_option(
            corpus("投标保证金按规定递交，详见第三章的说明和附件所列的各项要求 ☑不提交 □提交"),
            item("amount", "投标保证金"),
        )
        is None
    )
    assert (
        ticked_option(corpus("本项目的投标保证金 ☑ 见附件。"), item("amount", "投标保证金")) is None
    )  # no box beside it


def test_a_two_character_term_labels_a_field_only_where_one_starts() -> None:
    assert (
        ticked_option(corpus(FORM), item("text", "递交")) is None
    )  # 投标保证金的递交 ☑不提交: the bond's, not the bid's
    found = ticked_option(corpus(FORM), item("yesno", "分包"))
    assert found is not None and found.option == "不允许"  # "1.11 分包 ☑不允许"
