"""The bidder's past performance asked for or scored, read by the system (``text/experience_rules.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.text.experience_rules import experience_rule
from tests.support.review_kb import reviewed


@pytest.mark.parametrize(
    "sentence",
    [
        "近3年内（2023年1月1日至今），投标人具有至少1项为金融机构提供人员外包的业绩经验，须提供合同作为证明文件。",
        "4.2022 年 1 月 1 日至今，至少有 1 例国内同类项目案例。",
        "3.1.3 投标人业绩要求：无。",  # none asked: stated all the same
        "三、投標廠商於截止投標日前 3 年內 1,000 萬以上大型軟體系統建置案實績",
        "根据投标人自2020年1月1日至今完成的同类项目业绩，每提供一个得2分，最高得10分。",
    ],
)
def test_a_sentence_asking_or_scoring_the_bidder_s_past_work(sentence: str) -> None:
    assert experience_rule(sentence) == " ".join(sentence.split())


@pytest.mark.parametrize(
    "sentence",
    [
        "9.实施人员应当具备较强的安全意识，渗透测试经验应当3年以上，有过3次以上的类似项目经验；",  # a person's
        "投标人提供的项目经理业绩证明材料应反映出项目经理在此业绩中担任过项目经理的岗位。",  # the manager's
        "1.投标人投标所使用的资格、信誉、荣誉、业绩与企业认证必须为本法人所拥有。",  # a list of what it holds
        "同一家银行的多个业绩合同按一项业绩计分。",  # how they are counted
        "投标人应如实填写类似项目业绩表。",  # past work named, but no period, number or points
    ],
)
def test_what_is_no_statement_of_the_past_work_asked(sentence: str) -> None:
    assert experience_rule(sentence) is None


EXPERIENCE = """name = "experience"
[[items]]
id = "experience"
label = "类似业绩 / 類似實績"
kind = "text"
question.hans = "对投标人的类似业绩有什么要求？"
hints = ["业绩", "类似项目"]
"""


def test_the_experience_asked_is_read_without_the_model(tmp_path: Path) -> None:
    text = "# 资格要求\n\n投标人应如实填写类似项目业绩表。\n\n3.1.3 投标人业绩要求：近3年内至少1个同类项目业绩。\n"
    row = reviewed(tmp_path, load_settings(environ={}), text, "原文：无\n答案：文档中没有说明", EXPERIENCE)[
        "experience"
    ]
    assert (row.verdict, row.extra.get("read"), row.trace_id) == ("found", "experience", None)
    assert row.answer == "3.1.3 投标人业绩要求：近3年内至少1个同类项目业绩。"
