"""A form's ticked box read by the system: the option after the item's term, a negative tick answering an amount
item ("there is none"), a yes/no item answered no, and no reading across the next clause's number or from a tick
far from the term."""

from __future__ import annotations

from pathlib import Path

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.review import ChecklistItem
from pikelocal.embed.fake import HashEncoder
from pikelocal.review.checklist import load_checklist
from pikelocal.review.conflicts import Corpus
from pikelocal.review.ticks import as_yes_no, ticked_option
from pikelocal.store.store import Store

REVIEW_DATA = Path(__file__).resolve().parents[1] / "data" / "review"
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


def test_a_form_s_legend_of_its_marks_is_no_tick() -> None:
    # the data sheet's legend names the marks (「以“■”或“☑”表示」): between them stands no option
    legend = "一、“□”为选择项，采购人/采购代理机构采用相应内容的以“■”或“☑”表示，不采 用相应内容的仍然以“□”表示\n"
    assert ticked_option(corpus(legend), item("name", "采购代理机构")) is None
    assert ticked_option(corpus(legend + FORM), item("text", "踏勘现场")) is not None  # the form's own ticks still read


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


def test_a_bare_yes_or_no_answers_only_a_yes_no_item() -> None:
    # 否 answers whether the committee may pick the winner, not how many sit on it nor how the award is made
    assert ticked_option(corpus(FORM), item("count", "评标委员会")) is None
    assert ticked_option(corpus(FORM), item("text", "确定中标人")) is None
    found = ticked_option(corpus(FORM), item("yesno", "确定中标人"))
    assert found is not None and found.option == "否"


def test_a_real_word_form_s_wingdings_boxes_answer_their_items(tmp_path: Path) -> None:
    """The held-out switchgear tender (a Word form printed to PDF): its boxes come out of the text layer as
    private-use glyphs, read at ingest as ☑ and □, so the form's ticks answer their items."""
    kb = tmp_path / "t.kb"
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert not knowledge_base.add([REVIEW_DATA / "cn-tender-huayang-switchgear.pdf"]).ingest.failed
    with Store.open_existing(kb) as store:
        read = Corpus.read(store)
    items = {i.id: i for i in load_checklist("tender-zh").items}
    answers = {n: t.option for n in items if (t := ticked_option(read, items[n])) is not None}
    # read by hand from pp. 6-8: 1.4.2 ☑不接受, 1.10.1 ☑不允许, 3.2.4 最高投标限价 ☑无; 1.9.1 投标预备会 ☑不召开
    # is the pre-bid meeting's box, no site visit's (the site visit's hint 投标预备会 only helps find one)
    assert {n: answers.get(n) for n in ("joint_bid", "site_visit", "subcontracting", "max_price")} == {
        "joint_bid": "不接受", "site_visit": None, "subcontracting": "不允许", "max_price": "无",
    }  # fmt: skip
    assert "evaluators" not in answers  # 7.4 是否授权评标委员会确定中标人 □是 ☑否 says nothing of how many sit


def test_a_box_after_a_label_naming_another_thing_is_not_the_term_s() -> None:
    # 「开标前答疑会」 starts with the opening's term but is the pre-bid meeting: its 不召开 is no opening date
    form = "12 开标前答疑会 ■不召开 □召开\n"
    opening = ChecklistItem("bid_opening", "开标时间 / 開標時間", "date", {"hans": "?"}, ("开标", "开标时间"))
    assert ticked_option(corpus(form), opening) is None
    meeting = ChecklistItem("meeting", "答疑会", "text", {"hans": "?"}, ("开标前答疑会", "答疑会"))
    found = ticked_option(corpus(form), meeting)
    assert found is not None and found.option == "不召开"


def test_a_lone_tick_after_a_numbered_row_s_label_with_a_remark_answers_it() -> None:
    # a data sheet printing only the chosen option (成都): the bracketed remark names no other thing
    row = "| 10 | 成交服务费 | 由成交供应商交纳 |\n| 11 | 联合体（实质性要求） | ☑本项目不允许联合体参加 |\n"
    found = ticked_option(corpus(row), item("yesno", "联合体"))
    assert found is not None and as_yes_no(found.option) == "no" and found.line.startswith("| 11 | 联合体")
    # a label naming another thing outside its brackets is that thing's field
    other = "| 11 | 联合体分包（实质性要求） | ☑本项目不允许联合体参加 |\n"
    assert ticked_option(corpus(other), item("yesno", "联合体")) is None


def test_a_label_wrapped_in_a_narrow_cell_is_still_the_term() -> None:
    # 温岭's data sheet as pypdf gives it: the label 「是否允许联合体」 wrapped over two lines before its boxes
    sheet = "序号 事项 本项目的特别规定\n1\n是否允许联合\n体\n□是 /☑否\n2 是否允许分包 □是 /☑ 否\n"
    found = ticked_option(corpus(sheet), item("yesno", "联合体"))
    assert found is not None and (found.option, as_yes_no(found.option)) == ("否", "no")


def test_an_option_that_opens_with_its_subject_reads_by_its_verb() -> None:
    # 北京银行's data sheet: 「☑本项目不接受联合体投标 □本项目接受联合体投标」 is a no
    assert as_yes_no("本项目不接受联合体投标") == "no" and as_yes_no("本项目接受联合体投标") == "yes"
    assert as_yes_no("本次不组织") == "no" and as_yes_no("本案允許") == "yes"


def test_a_table_s_clause_number_cell_starts_a_field_for_a_short_term() -> None:
    # the Beijing Bank tender's 前附表 (a Word table, one row a line): the site visit's own row, not the pre-bid
    # meeting's two rows on, though 投标预备会 is also one of the item's terms
    form = "| 1.6.1 | 踏勘现场 | ☑不组织 □组织，踏勘时间： |\n| 1.7.1 | 投标预备会 | ☑不召开 □召开，会议时间： |\n"
    visit = item("date", "现场踏勘", "踏勘", "投标预备会")
    found = ticked_option(corpus(form), visit)
    assert found is not None and found.option == "不组织"
    assert ticked_option(corpus("| 3.5 | 其他 | 踏勘 ☑不组织 □组织 |\n"), visit) is None  # mid-cell: no field start


def test_a_box_after_a_label_counting_the_term_is_no_answer_about_it() -> None:
    # 「评标委员会推荐中标候选人的人数 ☑常规类项目」 says how many candidates, not how the winner is chosen
    form = "| 6.3.2 | 评标委员会推荐中标候选人的人数 | ☑常规类项目： □选一个中标人的项目 |\n"
    assert ticked_option(corpus(form), item("text", "中标候选人")) is None
    found = ticked_option(corpus(form), item("count", "中标候选人"))
    assert found is not None and found.option == "常规类项目"  # a count item may still read the field's box


def labelled(label: str, kind: str, *hints: str) -> ChecklistItem:
    return ChecklistItem("x", label, kind, {"hans": "?"}, hints)  # type: ignore[arg-type]


BOND = labelled("投标保证金 / 押標金", "amount", "投标保证金")
CAP = labelled("最高限价 / 上限價格", "amount", "最高限价")


def test_a_ticked_option_that_names_the_term_itself_answers_it() -> None:
    # a Word form's options name the thing (昆山农商银行's 招标书, boxes in Wingdings 2)
    bond = ticked_option(corpus("1、项目投标保证金信息\n□有投标保证金       ☑无投标保证金\n"), BOND)
    assert bond is not None and bond.option == "无投标保证金" and bond.line == "□有投标保证金 ☑无投标保证金"
    # a bare 否 ticked against the term's own option denies it; the blank amount is no value
    cap = ticked_option(corpus("（一）是否限价招标\n□ 是        最高限价           （元）          ☑ 否\n"), CAP)
    assert cap is not None and cap.option == "无最高限价"
    # the positive option ticked is read as printed (an amount item then takes it from elsewhere: read_rows)
    has = ticked_option(corpus("☑有投标保证金 □无投标保证金\n"), BOND)
    assert has is not None and has.option == "有投标保证金"


def test_options_naming_the_term_with_no_tick_or_two_ticks_answer_nothing() -> None:
    assert ticked_option(corpus("□有投标保证金 □无投标保证金\n"), BOND) is None
    assert ticked_option(corpus("☑有投标保证金 ☑无投标保证金\n"), BOND) is None
    # a box on the next line is not the term's option run
    assert ticked_option(corpus("□有投标保证金\n其他内容 ☑无\n"), BOND) is None


def test_options_about_another_thing_or_opening_with_the_term_answer_nothing() -> None:
    # the budget's hint 最高限价 names a ceiling price: 「无最高限价」 says nothing of the budget (昆山农商银行)
    budget = labelled("采购预算 / 採購預算", "amount", "预算", "最高限价")
    assert ticked_option(corpus("□ 是 最高限价 （元） ☑ 否\n"), budget) is None
    # an option that opens with the term names who acts (阳西's data sheet), not whether there is a purchaser
    purchaser = labelled("采购人 / 招標機關", "name", "采购人")
    form = "31 确定中标人的 方式 中标人数量：1 名 □采购人委托评标委员会直接确认中标人 ☑采购人确认中标人\n"
    assert ticked_option(corpus(form), purchaser) is None


def test_a_box_asking_whether_the_thing_is_waived_says_nothing_of_its_amount() -> None:
    # 肥西's data sheet (安徽 2023 template): the box answers the waiver, the amount stands in the field above it
    form = "（1）履约保证金金额： 合同金额的 2%\n（4）本招标项目是否减免履约保证金： ☑不减免 □减免 （5）其他要求：无\n"
    bond = labelled("履约保证金 / 履約保證金", "amount", "履约保证金")
    assert ticked_option(corpus(form), bond) is None
    assert ticked_option(corpus("3.4.1 履约保证金 ☑不提交 □提交\n"), bond) is not None  # whether one is asked: read
    # a yes/no item may still read the box: it asks whether, as the box does
    waived = ticked_option(corpus(form), labelled("履约保证金 / 履約保證金", "yesno", "履约保证金"))
    assert waived is not None and waived.option == "不减免"


def test_a_numbered_field_s_lone_tick_and_a_hint_of_another_thing() -> None:
    # 肥西's data sheet as PDF text: the chosen option alone after a numbered label, then the pre-bid meeting's
    form = "1.9.1 踏勘现场 ☑不组织，投标人自行踏勘\n1.10.1 投标预备会 ☑不召开 □ 召开形式： /\n"
    visit = labelled("现场踏勘 / 現場勘查", "date", "现场踏勘", "踏勘", "投标预备会")
    found = ticked_option(corpus(form), visit)
    assert found is not None and found.option == "不组织"
    # the hint 投标预备会 finds the meeting, whose box is no answer about a site visit
    assert ticked_option(corpus(form.split("\n", 1)[1]), visit) is None
    # a lone tick in prose, with no clause number before its term, is no form
    assert ticked_option(corpus("本项目踏勘现场 ☑不组织。\n"), visit) is None
