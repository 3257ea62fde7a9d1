"""Sentences announcing when and where the bids are opened, as tenders print them (the forms of four tenders'
notices: 宝山's 将于…开标室开标, 罗店's 磋商将于…开启, 厦门国际银行's 兹定于…公开开标, 民生's 兹定于…征询会议)."""

from __future__ import annotations

import pytest

from pikelocal.text.bid_openings import opening_announced


@pytest.mark.parametrize(
    ("sentence", "day", "place"),
    [
        (
            "本次招标将于 2024-11-26 09:00:00 时整在上海市宝山区友谊支路 238 号 4 楼开标室（http://www.zfcg.sh.gov.cn）"
            "开标，投标人可以派授权代表出席开标会议。",
            "2024-11-26",
            "上海市宝山区友谊支路 238 号 4 楼开标室",  # the web address in brackets is no place
        ),
        ("本次磋商将于 2024-12-23 09:30:00时整在上海市宝山区宝杨路 1850 号 3 号楼 4 楼开启", "2024-12-23",
         "上海市宝山区宝杨路 1850 号 3 号楼 4 楼"),
        ("兹定于2026年5月25日9:30时，在上海市静安区延安西路358号美丽园大厦19楼1902-1会议室公开开标。", "2026-05-25",
         "上海市静安区延安西路358号美丽园大厦19楼1902-1会议室"),
        ("兹定于 2026年 08月 11日 9时 30分 00秒(北京时间)在北京市丰台区丽泽路 24号院平安幸福中心 B 座 12 层 1226 "
         "会议室进行公开征询会议，届时请供应商派授权代表现场参加征询会议。", "2026-08-11",
         "北京市丰台区丽泽路 24号院平安幸福中心 B 座 12 层 1226 会议室"),
    ],
)  # fmt: skip
def test_an_announced_opening_gives_its_day_and_place(sentence: str, day: str, place: str) -> None:
    found = opening_announced(sentence)
    assert found is not None
    assert (found.date.normal, found.place) == (day, place)


@pytest.mark.parametrize(
    "sentence",
    [
        "招标人定于2025年3月1日9时在项目现场组织踏勘，随后开标。",  # another event is announced
        "开标时间：2025年1月1日9时。",  # a labelled field, the field reader's
        "本项目将于2025年3月1日在政府采购网公告中标结果。",  # no opening
        "投标人应于2025年3月1日前在开标室递交投标文件并参加开标。",  # a deadline (前), not an announcement
    ],
)
def test_no_opening_where_none_is_announced(sentence: str) -> None:
    assert opening_announced(sentence) is None
