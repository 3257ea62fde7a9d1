"""Answering on the real default LLM and the real default encoder over real PDFs (slow).

A Chinese tender PDF and an English statute: one simple question each, answered with a citation whose pages
hold the fact (checked against the PDF's own text), and one question each about something the documents do not
contain, which must get the "documents do not state" answer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pypdf
import pytest

from pikelocal import api
from pikelocal.domain.answers import QueryTrace, Source
from pikelocal.store.store import Store
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
TENDER = "zh_tender/黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
STATUTE = "en_legal_au/Statutes_Contracts Review Act 1980 (NSW).pdf"
# llm.batch = 2: these asks run on the batch engine, as they do wherever `pikelocal calibrate` found batching to pay
# (the other real-model tests, the TUI's among them, run llama-cpp-python's one-sequence path)
SETTINGS = {"ingest.late": False, "answer.rounds": 2, "llm.batch": 2}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    path = tmp_path_factory.mktemp("ask-real") / "kb.sqlite"
    with api.open_kb(path, settings()) as knowledge_base:
        report = knowledge_base.add([shared_data / "pdfs" / TENDER, shared_data / "pdfs" / STATUTE]).ingest
    assert report.count("ingested") == 2
    return path


def settings() -> api.Settings:
    return api.load_settings(environ={}, overrides=SETTINGS)


def ask(kb: Path, question: str, mode: api.AnswerMode | None = None) -> api.QueryTrace:
    with api.open_kb(kb, settings()) as knowledge_base:
        return knowledge_base.ask(question, api.AskRequest(mode=mode))


def pages_holding(pdf: Path, pattern: str) -> set[int]:
    """1-based pages whose extracted text matches ``pattern`` (whitespace ignored), straight from pypdf."""
    reader = pypdf.PdfReader(pdf)
    return {
        i for i, page in enumerate(reader.pages, start=1) if re.search(pattern, re.sub(r"\s", "", page.extract_text()))
    }


def cited(trace: QueryTrace) -> list[Source]:
    return [s for s in trace.answer.sources if s.number in trace.answer.cited]


def covers(source: Source, pages: set[int]) -> bool:
    assert source.page_start is not None and source.page_end is not None
    return any(source.page_start <= p <= source.page_end for p in pages)


def test_a_chinese_question_is_answered_in_chinese_with_a_correct_citation(kb: Path, shared_data: Path) -> None:
    trace = ask(kb, "勘察设计服务期是多少日历天？", mode="decompose")
    answer = trace.answer
    assert "1095" in answer.text, answer.text
    assert trace.mode == "decompose" and trace.rounds and len(trace.rounds) <= 2
    # every call after the first reuses the shared prefix (system text and sources): the model runs far fewer
    # prompt tokens than are sent
    assert len(trace.calls) >= 2 and not any(c.cached for c in trace.calls)
    assert trace.prompt_evaluated < 0.6 * trace.prompt_tokens, [
        (c.tag, c.prompt_tokens, c.evaluated) for c in trace.calls
    ]
    pages = pages_holding(shared_data / "pdfs" / TENDER, "1095日历天|1095天")
    assert pages, "the fact is not in the PDF's text any more"
    assert any(covers(s, pages) and s.path.endswith(Path(TENDER).name) for s in cited(trace)), answer
    assert not answer.unsupported and answer.removed_citations == 0


def test_an_english_question_is_answered_with_a_correct_citation(kb: Path, shared_data: Path) -> None:
    """The cited-prose prompt (answer.quote = false) answers this one. Quote-then-answer, the default, quotes the
    right sentence and then answers "The documents do not state this." (a reader failure, docs/BENCHMARKS.md "Quote,
    then answer"): the second test holds what the system does with it."""
    question = "When does section 1 of the Contracts Review Act 1980 commence?"
    overrides = {**SETTINGS, "answer.quote": False}
    with api.open_kb(kb, api.load_settings(environ={}, overrides=overrides)) as knowledge_base:
        trace = knowledge_base.ask(question, api.AskRequest(mode="naive"))
    answer = trace.answer
    assert "assent" in answer.text.lower(), answer.text
    pages = pages_holding(shared_data / "pdfs" / STATUTE, "shallcommenceonthedateofassent")
    assert any(covers(s, pages) for s in cited(trace)), answer
    assert all(s.line_start is not None and s.line_end is not None for s in cited(trace))


def test_a_quoted_answer_is_cited_or_not_stated_never_invented(kb: Path) -> None:
    trace = ask(kb, "When does section 1 of the Contracts Review Act 1980 commence?", mode="naive")
    answer = trace.answer
    if answer.unsupported:
        assert answer.text == "The documents do not state this." and answer.cited == ()
    else:
        assert "assent" in answer.text.lower(), answer
        assert all(c.evidence is not None and "assent" in c.evidence.text for c in answer.claims)


@pytest.mark.parametrize(
    "question",
    [
        "招标文件规定的火星探测器发射日期是哪一天？",
        "What colour is the Minister's car under the Contracts Review Act 1980?",
    ],
)
def test_a_question_about_something_absent_gets_documents_do_not_state(kb: Path, question: str) -> None:
    trace = ask(kb, question, mode="naive")
    assert trace.answer.unsupported, trace.answer.text
    zh = re.search(r"[\u4e00-\u9fff]", question) is not None
    assert (re.search(r"[\u4e00-\u9fff]", trace.answer.text) is not None) == zh  # in the question's language


TRACED_QUESTIONS = (
    "What colour is the Minister's car under the Contracts Review Act 1980?",
    "招标文件规定的火星探测器发射日期是哪一天？",
)


def test_every_question_left_a_trace(kb: Path) -> None:
    """Self-contained: asks its own questions and finds exactly one new trace for each (whatever ran before)."""
    newest_before = max((r.id for r in api.open_kb(kb, settings()).history(1)), default=0)
    for question in TRACED_QUESTIONS:
        ask(kb, question, mode="naive")
    rows = [r for r in api.open_kb(kb, settings()).history(len(TRACED_QUESTIONS) + 10) if r.id > newest_before]
    assert [r.question for r in rows] == list(reversed(TRACED_QUESTIONS))  # newest first, one per question
    with Store.open_existing(kb) as store:
        assert store.integrity_check() == []
    for row in rows:
        shown = api.open_kb(kb, settings()).trace(row.id)
        assert shown.question == row.question
        assert shown.calls and shown.calls[-1].tag == "answer-quote" and shown.total_s > 0  # naive quotes first


def test_reranked_and_compressed_naive_answer_runs_on_the_real_models(kb: Path) -> None:
    """The real LLM reorders the top 6 hits in one call and the real encoder cuts the context to the sentences
    nearest the question (700 tokens). Not asserted: the answer's figure. With compression this question was
    once answered wrong (60 days, a deadline on the next printed line): the sentence giving 1,095 days on p. 80
    was cut at its line breaks, as if it were a form's rows. Since compress.py keeps a sentence wrapped over full
    printed lines whole (2026-11-26), naive answered it right at 700 and 1,000 tokens, and decompose at 1,000 (not
    at 700); tests/answer/test_compress.py holds that sentence."""
    overrides = {**SETTINGS, "answer.rerank": 6, "answer.compress_tokens": 700}
    with api.open_kb(kb, api.load_settings(environ={}, overrides=overrides)) as knowledge_base:
        trace = knowledge_base.ask("勘察设计服务期是多少日历天？", api.AskRequest(mode="naive"))
    assert [c.tag for c in trace.calls] == ["rerank", "answer-quote"]
    answer = trace.answer
    assert any(s.pieces for s in answer.sources)  # the context was cut to sentences
    assert sum(len(s.text) for s in answer.sources) < 1400  # ~700 estimated tokens of Chinese, plus the marks
    assert all(s.path.endswith(Path(TENDER).name) for s in cited(trace))
    assert all(s.page_start is not None and s.line_start is not None for s in answer.sources)
