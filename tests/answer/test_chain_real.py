"""The product's chains on the real default LLM and encoder (slow), over the composed Chinese tender and bid of
tests/data/hop/: a cited article's figure, a deadline counted from the contract's signing, and the bid bond of the
tender against the bid's. The values were read from the documents by hand; each must be cited by the sentences it
rests on, in both documents where two are compared."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.domain.answers import QueryTrace
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
DATA = Path(__file__).parents[1] / "data" / "hop"
SETTINGS = {"ingest.late": False, "answer.hop": True}


def settings() -> api.Settings:
    return api.load_settings(environ={}, overrides=SETTINGS)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    path = tmp_path_factory.mktemp("chain-real") / "kb.sqlite"
    with api.open_kb(path, settings()) as knowledge_base:
        report = knowledge_base.add(sorted(DATA.glob("*.md")))
        assert report.ingest.count("ingested") == 4
    return path


def ask(kb: Path, question: str) -> QueryTrace:
    with api.open_kb(kb, settings()) as knowledge_base:
        return knowledge_base.ask(question, api.AskRequest(mode="naive"))


def cited(trace: QueryTrace) -> str:
    return " ".join(c.evidence.text for c in trace.answer.claims if c.verdict == "supported" and c.evidence)


def test_the_cited_articles_figure(kb: Path) -> None:
    trace = ask(kb, "未中标人的投标保证金按第几条的规定退还？退还期限是多少？")
    assert trace.answer.text.startswith("5日（第23条）"), trace.answer.text
    assert "按本文件第23条规定的期限退还" in cited(trace) and "中标通知书发出后5日内退还" in cited(trace)


def test_a_deadline_counted_from_the_signing(kb: Path) -> None:
    trace = ask(kb, "乙方最迟应于哪一天完成全部材料交货？")
    assert trace.answer.text.startswith("2025年3月31日"), trace.answer.text  # 1 March + 30 days
    assert "合同签订之日起30日内" in cited(trace) and "本合同于2025年3月1日签订" in cited(trace)


def test_the_bid_bond_of_the_tender_against_the_bids(kb: Path) -> None:
    trace = ask(kb, "招标文件与投标文件中的投标保证金是否一致？")
    assert trace.answer.text.startswith("一致"), trace.answer.text  # 伍万元整 = 50,000元
    assert "人民币伍万元整" in cited(trace) and "人民币50,000元" in cited(trace)
    paths = {Path(c.evidence.path).name for c in trace.answer.claims if c.evidence is not None}
    assert paths == {"招标文件_城区道路养护.md", "投标文件_宏远建设.md"}
