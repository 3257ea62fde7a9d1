"""Statements on the real default encoder (EmbeddingGemma) and a real document, end to end (slow): a Taiwanese
requirements document (tests/data/review/tw-req-tourism-elearning.docx) ingested, its statements stored with a vector
each, and a reviewer's questions answered by the statement that states the figure (read off the document by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.store.store import Store
from tests.support.paths import REPO, installed_model

pytestmark = pytest.mark.slow

DOC = REPO / "tests" / "data" / "review" / "tw-req-tourism-elearning.docx"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    installed_model("embeddinggemma-300m/model.onnx")
    path = tmp_path_factory.mktemp("statements") / "tw-req.kb"
    with api.open_kb(path, api.load_settings(environ={})) as knowledge_base:
        report = knowledge_base.add([DOC]).ingest
    assert [o.status for o in report.outcomes] == ["ingested"]
    assert report.units["statements"] == 1 and report.units["statement_vectors"] > 0
    return path


def test_every_statement_has_a_vector(kb: Path) -> None:
    with Store.open_existing(kb) as store:
        assert store.encoder_id == "embeddinggemma-300m-int8"
        counts = store.counts()
        assert counts["statements"] == counts["statement_vectors"] > 20
        assert store.statements.counts().unread_documents == 0 and store.integrity_check() == []


@pytest.mark.parametrize(
    ("question", "subject", "normal"),
    [
        ("保固保證金的金額是多少？", "保固保證金金額", "100000 TWD"),  # p. 9: (二)保固保證金金額為新臺幣10萬元整。
        ("服務建議書要送幾份？", "服務建議書一式", "10"),  # p. 11: 服務建議書一式 10 份
        ("評選項目「專案管理規劃」的配分是多少？", "專案管理規劃 · 配分", "20 points"),  # p. 12, the table
    ],
)
def test_a_question_finds_the_statement_of_its_figure(kb: Path, question: str, subject: str, normal: str) -> None:
    with api.open_kb(kb, api.load_settings(environ={})) as knowledge_base:
        found = knowledge_base.statements(query=question, k=3)
    assert (subject, normal) in [(s.subject, s.value.normal) for s in found]
