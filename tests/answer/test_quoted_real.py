"""Quote, then answer on the real default LLM and encoder (slow), over a traditional-Chinese tender text of our own
written like the issue's Taiwanese evaluation rules: bracketed numbers (【 4 】人, 【8】份), a table whose date cell
wraps over two lines, a rule that forbids (不得播放影片).

On 2026-11-27 (2-core AMD EPYC, AVX-512 VNNI) the cited-prose prompt (``answer.quote = false``) answered
"文件中沒有說明…" to the members, the copies and the video questions although the sources held each; quote-then-answer
answered all seven questions it was tried on, each cited to the line that holds it (docs/BENCHMARKS.md, "Quote, then
answer").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.domain.answers import QueryTrace
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
RULES = Path(__file__).parents[1] / "data" / "tender_rules_zh_hant.txt"
SETTINGS = {"ingest.late": False, "answer.mode": "naive", "answer.quote": True}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    path = tmp_path_factory.mktemp("quoted-real") / "kb.sqlite"
    with api.open_kb(path, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        assert knowledge_base.add([RULES]).ingest.count("ingested") == 1
    return path


def ask(kb: Path, question: str) -> QueryTrace:
    with api.open_kb(kb, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        return knowledge_base.ask(question, api.AskRequest(mode="naive"))


def cited_lines(trace: QueryTrace) -> str:
    """The lines of the rules that the kept answer's evidence points to, joined without spaces."""
    lines = RULES.read_text(encoding="utf-8").splitlines()
    out = []
    for c in trace.answer.claims:
        assert c.verdict == "supported" and c.evidence is not None, c
        assert c.evidence.line_start is not None and c.evidence.line_end is not None
        out.append("".join(lines[c.evidence.line_start - 1 : c.evidence.line_end]))
    return "".join("".join(out).split())


def test_the_members_are_answered_from_the_bracketed_line(kb: Path) -> None:
    trace = ask(kb, "廠商參與簡報的人員最多幾人？")
    assert trace.answer.text.startswith("4"), (trace.answer.draft, trace.answer.claims)
    assert "廠商參與簡報相關成員不得超過【4】人" in cited_lines(trace)


def test_the_copies_are_answered_from_the_bracketed_line(kb: Path) -> None:
    trace = ask(kb, "服務建議書需要準備幾份？")
    assert "8" in trace.answer.text and not trace.answer.unsupported, (trace.answer.draft, trace.answer.claims)
    assert "服務建議書應準備【8】份" in cited_lines(trace)


def test_a_date_wrapped_over_two_lines_of_a_table_cell_is_answered_and_cited_to_both(kb: Path) -> None:
    trace = ask(kb, "期中報告書應於何時前提送？")
    assert "115" in trace.answer.text and "6" in trace.answer.text and "30" in trace.answer.text, trace.answer
    assert "於115年6月30日前提送至本局" in cited_lines(trace)


def test_a_forbidden_act_is_answered_no_from_the_rule_that_forbids_it(kb: Path) -> None:
    trace = ask(kb, "簡報時可以播放影片嗎？")
    assert trace.answer.text.startswith("否"), (trace.answer.draft, trace.answer.claims)
    assert "簡報時不得播放影片" in cited_lines(trace)


def test_a_fact_the_rules_do_not_state_is_not_stated(kb: Path) -> None:
    trace = ask(kb, "本案押標金金額是多少？")
    assert trace.answer.unsupported and trace.answer.text == "文件中沒有說明這一點。", trace.answer
