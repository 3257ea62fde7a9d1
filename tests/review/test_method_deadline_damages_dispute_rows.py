"""Six items read by the system before the model (read_rows.method_row, clarification_row, damages_row, dispute_row,
subcontracting_row, joint_bid_row): the procurement method, the last day to ask for a clarification, the damages for
delay, the forum of disputes, subcontracting forbidden and joint bids refused. Each row is the documents' own
sentence (or its value), cited at its lines; an item whose sentence is not there is still the model's."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import load_settings
from tests.support.review_kb import reviewed

CHECKLIST = """
name = "four-mini"

[[items]]
id = "procurement_method"
label = "采购方式 / 招標方式"
section = "项目概况"
kind = "text"
question.hans = "本项目采用什么采购方式？"
hints = ["采购方式", "招标方式"]

[[items]]
id = "clarification_deadline"
label = "澄清与疑问截止 / 疑義提出期限"
section = "时间节点"
kind = "date"
question.hans = "对招标文件提出疑问或澄清要求的截止时间是什么时候？"
hints = ["澄清", "疑问"]

[[items]]
id = "liquidated_damages"
label = "违约金 / 逾期違約金"
section = "合同条款"
kind = "text"
question.hans = "逾期违约金如何计算？"
hints = ["违约金", "逾期"]

[[items]]
id = "subcontracting"
label = "分包 / 分包及轉包"
section = "资格"
kind = "yesno"
question.hans = "本项目是否允许分包？"
hints = ["分包", "转包"]

[[items]]
id = "joint_bid"
label = "联合体投标 / 共同投標"
section = "资格"
kind = "yesno"
question.hans = "本项目是否接受联合体投标？"
hints = ["联合体", "共同投標"]

[[items]]
id = "dispute"
label = "争议解决 / 爭議處理"
section = "合同条款"
kind = "text"
question.hans = "合同争议如何解决？"
hints = ["争议", "仲裁", "诉讼"]
"""

TEXT = """# 招标公告

本项目已具备招标条件，现对该项目进行国内公开招标。本项目不接受联合体投标。

投标人如对招标文件有疑问，应于2025年6月9日9:00前向招标人提出。

# 合同条款

供应商认为采购文件使其权益受到损害的，可以依法提出质疑，并可向人民法院提起行政诉讼。

中标人不得将本合同项下服务进行转包、分包。

乙方未按时完成服务的，每逾期一日，应按合同总价款的万分之五向甲方支付违约金。

本合同履行中发生的争议，双方应协商解决；协商不成的，任何一方均有权向甲方所在地人民法院提起诉讼。
"""

REPLY = "原文：本项目已具备招标条件。\n答案：文件未说明"


def test_each_item_is_its_sentence_and_the_model_is_not_asked(tmp_path: Path) -> None:
    rows = reviewed(tmp_path, load_settings(), TEXT, REPLY, CHECKLIST)
    method = rows["procurement_method"]
    assert (method.verdict, method.answer, method.extra.get("read")) == ("found", "公开招标", "procurement method")
    assert method.quotes[0].text == "本项目已具备招标条件，现对该项目进行国内公开招标。"
    deadline = rows["clarification_deadline"]
    assert deadline.extra.get("read") == "clarification deadline"
    assert deadline.values[0].normal == "2025-06-09" and deadline.answer == "2025年6月9日9:00前"
    damages = rows["liquidated_damages"]
    assert damages.extra.get("read") == "damages for delay" and "万分之五" in damages.answer
    dispute = rows["dispute"]
    assert dispute.extra.get("read") == "dispute forum"
    assert dispute.answer.startswith("协商不成的") and "行政诉讼" not in dispute.answer  # not the challenge's remedy
    subcontracting = rows["subcontracting"]
    assert subcontracting.extra.get("read") == "subcontracting forbidden" and subcontracting.values[0].normal == "no"
    joint = rows["joint_bid"]  # the model, asked, said the sources do not state it
    assert (joint.extra.get("read"), joint.values[0].normal) == ("joint bids refused", "no")
    assert joint.quotes[0].text == "本项目不接受联合体投标。"
    for row in (method, deadline, damages, dispute, subcontracting, joint):
        assert row.quotes[0].where.line_start is not None
        assert "draft" not in row.extra  # no model draft: the model was not asked


def test_without_their_sentences_the_model_answers(tmp_path: Path) -> None:
    text = (
        "# 招标公告\n\n本项目采购方式详见公告。\n\n如有疑问，请与采购代理机构联系。\n\n"
        "逾期违约金的计算方法在专用合同条款中约定。\n"
    )
    rows = reviewed(tmp_path, load_settings(), text, REPLY, CHECKLIST)
    items = ("procurement_method", "clarification_deadline", "liquidated_damages", "dispute", "subcontracting")
    for item in (*items, "joint_bid"):
        assert rows[item].extra.get("read") is None, item
        assert rows[item].verdict == "not_stated", item


DATA = Path(__file__).parent.parent / "data" / "review"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "item", "phrase"),
    [
        ("cn-tender-huayang-switchgear.pdf", "procurement_method", "公开招标"),  # p. 3, its gold quote
        ("tw-tender-ntpc-dispatch.pdf", "procurement_method", "限制性招標"),  # p. 1
        ("cn-tender-hanshan-pumps.pdf", "clarification_deadline", "提交截止时间2日前"),  # a page number splits it
        (
            "cn-tender-huayang-switchgear.pdf",
            "clarification_deadline",
            "投标截止日10日前",
        ),  # a data sheet's label above
        ("cn-tender-hanshan-pumps.pdf", "liquidated_damages", "万分之三"),  # p. 25
        ("cn-tender-yulin-safety.pdf", "dispute", "人民法院提起诉讼"),  # p. 39, the clause's second half
        ("tw-rfp-moea-warehouse.pdf", "procurement_method", None),  # left to other documents (gold: not stated)
    ],
)
def test_real_tenders(tmp_path: Path, name: str, item: str, phrase: str | None) -> None:
    """The real tenders of the review gold sheets (rule-writing ones), each row as its gold sheet has it."""
    from pikelocal import api
    from pikelocal.embed.fake import HashEncoder
    from pikelocal.review.checklist import load_checklist
    from pikelocal.review.conflicts import Corpus
    from pikelocal.review.read_rows import clarification_row, damages_row, dispute_row, method_row
    from pikelocal.store.store import Store

    kb = tmp_path / "t.kb"
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert not knowledge_base.add([DATA / name]).ingest.failed
    with Store.open_existing(kb) as store:
        corpus = Corpus.read(store)
    checklist = load_checklist("tender-zh")
    wanted = next(i for i in checklist.items if i.id == item)
    reader = {"procurement_method": method_row, "clarification_deadline": clarification_row,
              "liquidated_damages": damages_row, "dispute": dispute_row}[item]  # fmt: skip
    row = reader(checklist, wanted, "?", corpus)
    assert (row is None) if phrase is None else (row is not None and phrase in row.answer.replace(" ", ""))
