"""The title block: a project's name and purchaser read from the heading lines of a first page (no model). Each
expected name is the bracketed or headed project as a reader sees it on the page."""

from __future__ import annotations

import pytest

from pikelocal.review.title_block import title_block

CASES: list[tuple[str, str | None, str, tuple[int, int] | None]] = [
    ("臺北市某區公所「社區長照據點服務委託案」需求說明書\n\n壹、採購標的及預算", "社區長照據點服務委託案",
     "臺北市某區公所", (1, 1)),
    ("臺中市某局「智慧路燈維運服務委託案」評選須知\n\n一、評選方式", "智慧路燈維運服務委託案", "臺中市某局", (1, 1)),
    ("115年觀光e學院建置維運案\n需求說明書\n\n1、本採購適用政府採購法", "115年觀光e學院建置維運案", "", (1, 2)),
    ("  \n港區資訊系統建置與維運計畫\n建議書徵求文件\n中華民國114年11月", "港區資訊系統建置與維運計畫", "", (2, 3)),
    ("黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件\n招标人：黄梅县水利和湖泊局",
     "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计", "", (1, 1)),
    ("某 某 市 「 道 路 养 护 服 务 」 采 购 文 件", "道路养护服务", "", (1, 1)),  # PDF text spaces it out
    # a cover's title wrapped over three short lines, read whole (not its last line alone)
    ("某某控股集团安全环\n保管家项目（二次）\n竞争性磋商文件\n\n一、项目概况",
     "某某控股集团安全环保管家项目（二次）", "", (1, 3)),
    ("110 年度\n某縣政府復康巴士預約系統\n功能建置需求說明書", "110 年度某縣政府復康巴士預約系統功能建置", "", (1, 3)),
    # the agency's line above the title, or a labelled field, is not part of the name
    ("交通部某署\n115年某系統建置維運案\n需求說明書", "115年某系統建置維運案", "", (2, 3)),
    ("案號：A-1\n某某系統建置案\n需求說明書", "某某系統建置案", "", (2, 3)),
    # a running header with the page's number above the title (a tender printed from the e-procurement system)
    ("本文件係為廠商以電子檔案所列印 1\n某某整合智慧系統投標須知\n一、本機關為採購下列標的", "某某整合智慧系統", "",
     (2, 2)),
    # an RFP's header: the purchaser, a dash and the project; the kind on its own line with its abbreviation
    ("某某水公司 - AI 智能客服系統建置案\n\nAI智能客服系統建置案\n服務建議書徵求須知（RFP）", "AI 智能客服系統建置案",
     "某某水公司", (1, 1)),
    ("港區智慧巡檢系統建置案\n服務建議書徵求須知（RFP）", "港區智慧巡檢系統建置案", "", (1, 2)),
    # a dash between words that end no agency's name is no header of a purchaser and a project
    ("附件一 - 評分表\n一、本機關為採購下列標的", None, "", None),
    # no title block: a template's cover, a page that opens with its body, a labelled field
    ("湖北省水利水电工程\n勘察设计招标文件示范文本\n（2024 年电子化第二版）", None, "", None),
    ("需求說明書\n\n1、本採購適用政府採購法及其主管機關所訂定之規定。\n2、招標機關：交通部觀光署", None, "", None),
    ("第一章 总则\n1.1 本合同适用于下列服务。", None, "", None),
    ("標的名稱：道路養護採購案\n需求說明書", None, "", None),
    # a sentence that quotes a law in brackets names no project
    ("依「政府採購法」第22條第1項第9款辦理，並準用最有利標。\n需求說明書", None, "", None),
    ("本案依「政府採購法」辦理", None, "", None),
]  # fmt: skip


@pytest.mark.parametrize(("page", "name", "purchaser", "lines"), CASES)
def test_title_block(page: str, name: str | None, purchaser: str, lines: tuple[int, int] | None) -> None:
    block = title_block(page)
    if name is None:
        assert block is None
        return
    assert block is not None
    assert (block.name, block.purchaser, (block.line_start, block.line_end)) == (name, purchaser, lines)
