"""The product's chains planned from a question's words (query/answer/chain_plan.py, patterns in
text/chain_phrasings.py): which chain, which figure, which documents; the questions that name none get no plan.
No model."""

from __future__ import annotations

import pytest

from pikelocal.query.answer.chain_plan import Chain, chain_plan, role_of
from pikelocal.query.answer.hop_plan import Comparison, hop_plan


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("未中标人的投标保证金按第几条的规定退还？退还期限是多少？", "duration"),
        ("中标人的履约保证金按哪一条的规定提交？比例是多少？", "percentage"),
        ("押標金依第幾條規定退還？退還期限是多少？", "duration"),
        ("Which clause sets the period for returning bid bonds, and within how many days are they returned?",
         "duration"),
        ("Which clause states the performance security, and what percentage is it?", "percentage"),
        ("What article does the deposit clause refer to, and what amount does it set?", "amount"),
    ],
)  # fmt: skip
def test_a_question_asking_which_article_and_a_figure_reads_the_cited_article(question: str, figure: str) -> None:
    plan = hop_plan(question)
    assert isinstance(plan, Chain) and plan.kind == "cited_article" and plan.figure == figure
    assert [h.reads for h in plan.hops] == ["article", "figure"]
    assert plan.hops[1].within == "article"  # hop 2 reads the article hop 1 found
    assert plan.compute == "figure"


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("乙方最迟应于哪一天完成全部材料交货？", "zh"),
        ("甲方组织验收的截止日期是哪一天？", "zh"),
        ("乙方最遲應於何日前交貨？", "zh"),
        ("By what date must the Contractor mobilise to site?", "en"),
        ("What is the deadline for delivery?", "en"),
    ],
)
def test_a_question_asking_for_a_last_day_counts_it_from_its_event(question: str, lang: str) -> None:
    plan = hop_plan(question)
    assert isinstance(plan, Chain) and plan.kind == "deadline" and plan.lang == lang
    assert [h.reads for h in plan.hops] == ["period_or_date", "date"]
    assert plan.hops[1].ask is not None and "{event}" in plan.hops[1].ask  # hop 2 asks the event hop 1 read
    assert plan.compute == "date_plus_period"


@pytest.mark.parametrize(
    ("question", "roles", "item", "figure"),
    [
        ("招标文件与投标文件中的投标保证金是否一致？", ("tender", "bid"), "投标保证金", "amount"),
        ("招標文件與投標文件的押標金是否一致？", ("tender", "bid"), "押標金", "amount"),
        ("投标保证金在投标文件和招标文件中是否相同？", ("bid", "tender"), "投标保证金", "amount"),
        ("招标文件与投标文件中的工期是否一致？", ("tender", "bid"), "工期", "duration"),
        ("Does the bid bond in the bid match the tender's?", ("bid", "tender"), "bid bond", "amount"),
        ("Is the completion period in the bid the same as in the tender?", ("bid", "tender"), "completion period",
         "duration"),
    ],
)  # fmt: skip
def test_an_item_in_two_documents_is_one_hop_per_document(
    question: str, roles: tuple[str, str], item: str, figure: str
) -> None:
    plan = hop_plan(question)
    assert isinstance(plan, Chain) and plan.kind == "two_documents" and plan.compute == "same_value"
    assert tuple(h.role for h in plan.hops) == roles and all(h.within == "document" for h in plan.hops)
    assert (plan.item, plan.figure) == (item, figure)


@pytest.mark.parametrize(
    "question",
    [
        "投标保证金是多少？",
        "投标保证金的金额是多少？",
        "本合同于何时签订？",
        "服務建議書的總頁數不得超過幾頁？",
        "第十五条的内容是什么？",
        "What is the bid bond?",
        "When was the contract signed?",
        "Who is the project manager named in the bid?",
        "招标文件的投标保证金是否需要以保函形式提交？",  # one document: no comparison
        "投标文件与投标文件中的报价是否一致？",  # the same role twice
        "Which of the following is a condition of the bid?",
        "根据《中华人民共和国民法典》，规定诉讼时效期间为三年的是第几条？",  # which article states it: no figure asked
        "“基准日”指投标截止时间前多少天的日期？",  # a period asked, not a day
        "最迟什么时候提异议？招标人多久内给答复？",
        "投标截止时间是什么时候？",  # a procedure's own closing time: stated, not counted
        "要求澄清招标文件的截止时间是什么时候？",
    ],
)
def test_a_question_naming_no_chain_gets_no_plan(question: str) -> None:
    assert hop_plan(question) is None, question


def test_the_benchmark_table_is_read_before_the_chains_and_chains_can_be_left_out() -> None:
    assert isinstance(hop_plan("Who was born first, Anna Sten or Lil Dagover?"), Comparison)
    assert chain_plan("Who was born first, Anna Sten or Lil Dagover?") is None
    assert hop_plan("招标文件与投标文件中的投标保证金是否一致？", chains=False) is None


def test_document_words_name_their_role() -> None:
    words = ("招標文件", "投标书", "the bid", "Tender", "服務建議書", "需求說明書", "invitation to tender", "合同")
    assert [role_of(w) for w in words] == ["tender", "bid", "bid", "tender", "bid", "tender", "tender", None]
