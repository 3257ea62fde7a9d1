"""The selection reader on the real default LLM and encoder (slow): two figures in one sentence, the model picks the
statement whose subject the question asks about, and the answer is that statement's value, cited at its line.

On the issue's unseen Taiwanese tender the quote-first reader answered the answer-time question with the presentation
time standing beside it in the same sentence (15 for 10). Here the reader sees one line per figure (簡報時間 … 15
分鐘, 答詢時間 … 10 分鐘) and writes one number.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.domain.answers import QueryTrace
from tests.support.paths import installed_model
from tests.support.text_kb import one_text_kb

pytestmark = pytest.mark.slow
RULES = """臺中市某局「智慧路燈維運服務委託案」評選須知

一、本案採購預算金額為新臺幣 35 萬 900 元（含稅）。
二、廠商簡報時間不得超過15分鐘，答詢時間不得超過10分鐘，簡報逾時者應即停止。
三、評選委員會由委員7人組成，服務建議書一式8份。
"""
SETTINGS = {"ingest.late": False, "answer.mode": "naive", "answer.select": True}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    return one_text_kb(tmp_path_factory.mktemp("select-real"), "評選須知.txt", RULES, SETTINGS)


def ask(kb: Path, question: str) -> QueryTrace:
    with api.open_kb(kb, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        return knowledge_base.ask(question, api.AskRequest(mode="naive"))


@pytest.mark.parametrize(
    ("question", "value", "line"),
    [
        ("廠商答詢時間最長為幾分鐘？", "10分鐘", 4),  # not the presentation's 15 beside it
        ("簡報時間最長為幾分鐘？", "15分鐘", 4),
        ("本案的採購預算是多少？", "35 萬 900 元", 3),  # printed with spaces, read as one amount
    ],
)
def test_the_figure_asked_for_is_picked_from_its_own_line(kb: Path, question: str, value: str, line: int) -> None:
    trace = ask(kb, question)
    answer = trace.answer
    assert not answer.unsupported and value in answer.text, (answer.text, answer.claims)
    (claim,) = answer.claims
    assert claim.method == "select" and claim.evidence is not None and claim.evidence.line_start == line
    assert sum(c.prompt_tokens for c in trace.calls) <= 350  # the budget for a typed answer


def test_a_figure_the_rules_do_not_state_is_not_stated(kb: Path) -> None:
    trace = ask(kb, "本案押標金金額是多少？")
    assert trace.answer.unsupported, (trace.answer.text, trace.answer.claims)
