"""The period to obtain the tender documents read from the notice's sentence inviting bidders to obtain them
(「请于…至…登录…下载电子招标文件」), before the model is asked; a labelled field of the period comes first."""

from __future__ import annotations

from pathlib import Path

from pikelocal.config import load_settings
from tests.support.review_kb import reviewed

PERIOD = """name = "period"
[[items]]
id = "document_period"
label = "招标文件获取时间 / 領標期間"
kind = "date"
question.hans = "招标文件的获取时间是什么时候？"
hints = ["获取招标文件", "招标文件获取"]
"""
NOT_STATED = "原文：无\n答案：文档中没有说明"


def test_the_invitation_s_period_answers_without_the_model(tmp_path: Path) -> None:
    notice = (
        "# 招标公告\n\n4.1凡有意参加投标者，请于2024年12月20日08时30分至2024年12月24日23时59分(北京时间，下同)，"
        "登录宝华智慧招标共享平台下载电子招标文件。\n"
    )
    row = reviewed(tmp_path, load_settings(environ={}), notice, NOT_STATED, PERIOD)["document_period"]
    assert (row.verdict, [v.normal for v in row.values], row.extra.get("read")) == (
        "found",
        ["2024-12-20"],
        "document period",
    )
    assert row.trace_id is None and "下载电子招标文件" in row.quotes[0].text


def test_a_labelled_field_of_the_period_comes_first(tmp_path: Path) -> None:
    notice = (
        "# 招标公告\n\n1、招标文件获取时间：2024年12月18日至2024年12月19日\n\n"
        "请于2024年12月20日08时30分至2024年12月24日23时59分登录平台下载电子招标文件。\n"
    )
    row = reviewed(tmp_path, load_settings(environ={}), notice, NOT_STATED, PERIOD)["document_period"]
    assert ([v.normal for v in row.values], row.extra.get("read")) == (["2024-12-18"], "labelled field")
