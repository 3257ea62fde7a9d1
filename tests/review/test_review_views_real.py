"""The views on a real PDF through a real KB: the shared mainland tender (116 pages) ingested with the hashing
encoder (the views read no vector). Expectations read off its pages: p. 8 「资格审查不合格的投标人其投标将被否决」,
p. 110 「投标总报价和分项报价超过最高限价和分项限价的投标被视为无效投标报价，投标将被否决」, p. 13
「投标有效期 自投标截止时间起 90 日内有效」, p. 7 「计划开工日期 2025年11月10日」."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder


def test_the_shared_tender(shared_data: Path, tmp_path: Path) -> None:
    pdfs = sorted((shared_data / "pdfs" / "zh_tender").glob("*.pdf"))
    if not pdfs:
        pytest.skip("the shared tender is not here")
    kb = tmp_path / "t.kb"
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        knowledge_base.add(pdfs[:1])
        risks = knowledge_base.risks()
        timeline = knowledge_base.timeline()
    by_page = {(r.clause.where.page, r.stage) for r in risks if "否决" in r.clause.text}
    assert (8, "qualification") in by_page
    assert any(r.clause.where.page == 110 and "最高限价" in r.clause.text for r in risks)
    assert any(e.clause.where.page == 13 and e.value.replace(" ", "") == "90日" for e in timeline)
    assert ("2025-11-10", 7) in {(e.date, e.clause.where.page) for e in timeline}
