"""Claim checking on the real default LLM and encoder (slow): a traditional-Chinese tender text of our own that,
like the issue's Taiwanese RFP, states a budget and a scoring table but sets no bid bond (押標金).

The bid-bond question must come back "文件中沒有說明這一點。" with no citation, whatever number the model reuses; the
answerable questions must keep their fact, cited to the very line that holds it, in traditional characters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.domain.answers import QueryTrace
from pikelocal.text.script import in_script
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
RFP = Path(__file__).parents[1] / "data" / "tender_rfp_zh_hant.txt"
SETTINGS = {"ingest.late": False}


def settings() -> api.Settings:
    return api.load_settings(environ={}, overrides=SETTINGS)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    path = tmp_path_factory.mktemp("checked-real") / "kb.sqlite"
    with api.open_kb(path, settings()) as knowledge_base:
        assert knowledge_base.add([RFP]).ingest.count("ingested") == 1
    return path


def ask(kb: Path, question: str) -> QueryTrace:
    with api.open_kb(kb, settings()) as knowledge_base:
        return knowledge_base.ask(question, api.AskRequest(mode="naive"))


def cited_lines(trace: QueryTrace) -> list[str]:
    """The lines of the RFP that the answer's supported claims point to."""
    lines = RFP.read_text(encoding="utf-8").splitlines()
    out = []
    for c in trace.answer.claims:
        if c.verdict == "supported":
            assert c.evidence is not None and c.evidence.line_start is not None and c.evidence.line_end is not None
            out.append("".join(lines[c.evidence.line_start - 1 : c.evidence.line_end]))
    return out


def test_the_bid_bond_the_tender_does_not_set_is_not_stated(kb: Path) -> None:
    trace = ask(kb, "本案押標金金額是多少？")
    answer = trace.answer
    assert answer.unsupported and answer.cited == (), (answer.draft, answer.text)
    assert answer.text == "文件中沒有說明這一點。", answer.text  # never the question with words cut out
    assert "35" not in answer.text and "[" not in answer.text
    assert in_script(answer.text, "hant")


def test_a_table_row_answer_is_cited_to_its_own_line(kb: Path) -> None:
    trace = ask(kb, "評分項目「執行計畫與預期成果」的配分是多少？")
    answer = trace.answer
    assert "30" in answer.text and not answer.unsupported, (answer.draft, answer.text)
    lines = cited_lines(trace)
    assert any("執行計畫與預期成果30" in "".join(line.split()) for line in lines), lines
    assert in_script(answer.text, "hant", keep=[RFP.read_text(encoding="utf-8")])


def test_a_prose_fact_is_cited_to_its_line_in_the_questions_script(kb: Path) -> None:
    trace = ask(kb, "廠商簡報時間是多久？")
    answer = trace.answer
    assert "15" in answer.text and not answer.unsupported, (answer.draft, answer.text)
    assert any("15分鐘" in line for line in cited_lines(trace))
    assert in_script(answer.text, "hant", keep=[RFP.read_text(encoding="utf-8")])
    shown = api.open_kb(kb, settings()).trace(trace.id)  # the stored trace keeps every verdict and its evidence
    assert [c.verdict for c in shown.answer.claims] == [c.verdict for c in answer.claims]
