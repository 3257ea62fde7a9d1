"""The award's rule read by the system (read_rows.award_row): the model, shown the ranking sentence, answered the
evaluation method (综合评分法); the row is the sentence itself, cited at its lines, and the evaluation method's own
item keeps its own answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.text.award_rules import states_award_rule
from pikelocal.text.sentences import clean_sentence, sentence_spans
from tests.support.review_kb import reviewed

CHECKLIST = """
name = "award-mini"

[[items]]
id = "award_method"
label = "定标方式 / 決標方式"
section = "项目概况"
kind = "text"
question.hans = "本项目以什么原则确定中标人？"
hints = ["定标", "中标候选人", "确定中标人"]

[[items]]
id = "evaluation_method"
label = "评标方法 / 評選方式"
section = "评标"
kind = "text"
question.hans = "本项目采用什么评标方法？"
hints = ["评标方法", "综合评分法"]
"""

TEXT = """# 评标办法

本项目采用综合评分法。

得分相同的，按投标报价由低到高顺序排列。

评标委员会按总分从高到低排序，推荐第一名为中标候选人。
"""


def test_the_ranking_sentence_answers_the_award_and_not_the_evaluation_method(tmp_path: Path) -> None:
    reply = "原文：本项目采用综合评分法。\n答案：综合评分法"
    rows = reviewed(tmp_path, load_settings(), TEXT, reply, CHECKLIST)
    award = rows["award_method"]
    assert award.verdict == "found"
    assert award.answer == "评标委员会按总分从高到低排序，推荐第一名为中标候选人。"  # not the tie's rule before it
    assert award.quotes[0].where.line_start == award.quotes[0].where.line_end
    assert award.extra.get("read") == "award rule"
    # the evaluation method's own item is read too, by its own reader (text/evaluation_methods.py)
    assert rows["evaluation_method"].extra.get("read") == "evaluation method"
    assert rows["evaluation_method"].answer == "综合评分法"


def test_without_a_ranking_sentence_the_model_answers(tmp_path: Path) -> None:
    text = "# 评标办法\n\n本项目采用综合评分法。\n"
    reply = "原文：本项目采用综合评分法。\n答案：综合评分法"
    award = reviewed(tmp_path, load_settings(), text, reply, CHECKLIST)["award_method"]
    assert award.extra.get("read") is None


DATA = Path(__file__).parent.parent / "data" / "review"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "phrase"),
    [
        ("cn-tender-hanshan-pumps.pdf", "按照投标人最后得分由高到低排出中标候选人"),  # p. 63, its gold quote
        ("cn-tender-luodian-canteen.pdf", "磋商小组按照得分由高到低的顺序推荐3位中标候选人"),  # p. 18
        ("tw-tender-ntpc-dispatch.pdf", "本採購案決標原則：最有利標"),  # p. 12, its gold quote
        ("tw-rfp-moea-warehouse.pdf", None),  # the award rule is in documents not included (gold: not stated)
    ],
)
def test_real_tenders_first_award_rule(name: str, phrase: str | None) -> None:
    from pikelocal.ingest.read.parse import parse_document

    text = "\n".join(p.text for p in parse_document(DATA / name).pages)
    said = [clean_sentence(text[a:b]) for a, b in sentence_spans(text)]
    first = next((s for s in said if states_award_rule(s)), None)
    assert (first is None) if phrase is None else (first is not None and phrase in first.replace(" ", ""))
