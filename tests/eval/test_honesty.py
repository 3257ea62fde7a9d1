"""The honesty benchmark: its data file, the gold-answer matching, and a run with a scripted model on a real KB."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.errors import InputError
from pikelocal.eval.honesty import holds_answer, load_honesty, run_honesty
from pikelocal.eval.qa_data import detect_qa_layout
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.text.script import detect_script
from tests.support.answer_kb import ENC, build

DATA = Path(__file__).parents[1] / "data" / "honesty_qa.jsonl"
SHARED_DATA = Path(__file__).parents[2].parent / "shared" / "data"


def test_the_benchmark_has_the_questions_the_issue_asks_for() -> None:
    items = load_honesty(DATA)
    answerable = [i for i in items if i.answerable]
    unanswerable = [i for i in items if not i.answerable]
    assert len(answerable) >= 60 and len(unanswerable) >= 60
    assert len({i.item_id for i in items}) == len(items)
    for script in ("hans", "hant", "en"):
        assert sum(i.script == script for i in items) >= 20, script
    assert all(detect_script(i.question) == i.script for i in items)  # the label matches the question's script
    assert {i.source_pdf.split("/")[1] for i in items} == {"zh_tender", "zh_law", "en_legal_au"}
    assert detect_qa_layout(DATA) == "honesty"


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data is not beside the checkout")
def test_every_gold_fact_stands_on_its_gold_page() -> None:
    from pikelocal.ingest.read.parse import parse_document

    pages: dict[str, dict[int, str]] = {}
    for item in load_honesty(DATA):
        if not item.answerable:
            continue
        if item.source_pdf not in pages:
            doc = parse_document(SHARED_DATA / item.source_pdf)
            pages[item.source_pdf] = {p.page_no: p.text for p in doc.pages}
        text = pages[item.source_pdf][item.page]
        assert "".join(item.fact.split()) in "".join(text.split()), item.item_id
        assert holds_answer(text, item.answers), item.item_id


def test_gold_answers_match_by_words_numbers_or_script() -> None:
    assert holds_answer("投標有效期為90日曆天 [1]。", ("90日历天",))  # traditional answer, simplified gold
    assert holds_answer("The price was $11,250,000.", ("$11,250,000",))
    assert holds_answer("押标金为6.8万元", ("6.8万元",)) and holds_answer("68,000元", ("6.8万元",))
    assert not holds_answer("投标有效期为60日历天", ("90日历天",))
    assert not holds_answer("第1条", ("第一千零七十七条", "第1077条"))  # near in words, wrong in value
    assert holds_answer("It was Justice Basten JA who dissented.", ("Basten JA",))
    assert not holds_answer("The documents do not state it.", ("Basten JA",))


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "h.jsonl"
    bad.write_text('{"id": "x", "question": "q", "script": "hans", "answerable": true}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"h.jsonl: line 1: an answerable item needs an answer"):
        load_honesty(bad)


def test_an_unanswerable_item_may_stand_on_no_page(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text(
        '{"id": "u", "question": "評選會議訂於哪一天舉行？", "script": "hant", "answerable": false, "page": null}\n',
        encoding="utf-8",
    )
    (item,) = load_honesty(path)
    assert not item.answerable and item.page == 0


ITEMS = [
    {"id": "a1", "question": "投标保证金的金额是多少？", "script": "hans", "answerable": True, "answer": "五万元",
     "aliases": [], "fact": "投标保证金的金额为人民币五万元", "source_pdf": "x", "page": 1, "missing": ""},
    {"id": "u1", "question": "履约保证金的退还利息是多少？", "script": "hans", "answerable": False, "answer": "",
     "aliases": [], "fact": "", "source_pdf": "x", "page": 1, "missing": "履约保证金的利息"},
    {"id": "u2", "question": "投標保證金的利息是多少？", "script": "hant", "answerable": False, "answer": "",
     "aliases": [], "fact": "", "source_pdf": "x", "page": 1, "missing": "投標保證金的利息"},
]  # fmt: skip
REPLIES = {  # the model's drafts: right and uncited; an invention reusing a real number; an honest "not stated"
    "投标保证金的金额是多少？": "投标保证金的金额为人民币五万元。",
    "履约保证金的退还利息是多少？": "履约保证金的退还利息为合同价款的百分之十 [1]。",
    "投標保證金的利息是多少？": "文档中没有说明投标保证金的利息。",
}


# the same drafts quote first (answer.quote, the default): the invention quotes a real sentence about another thing
QUOTED = {
    "投标保证金的金额是多少？": "原文：投标保证金的金额为人民币五万元。\n答案：五万元",
    "履约保证金的退还利息是多少？": "原文：履约保证金为合同价款的百分之十。\n答案：合同价款的百分之十",
    "投標保證金的利息是多少？": "原文：无\n答案：文档中没有说明",
}
CITED_PROSE = replace(Settings(), answer=replace(Settings().answer, quote=False))  # the claim-checked prompt


def answer(messages: Sequence[Message], params: GenParams) -> str:
    prompt = messages[-1].content
    replies = QUOTED if params.tag == "answer-quote" else REPLIES
    return next(reply for question, reply in replies.items() if question in prompt)


def test_a_quoted_run_scores_the_answer_its_draft_and_the_reader_failures(tmp_path: Path) -> None:
    kb = build(tmp_path)
    data = tmp_path / "h.jsonl"
    data.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in ITEMS) + "\n", encoding="utf-8")
    llm = FakeLLM({"answer-quote": answer})
    table, path = run_honesty(Settings(), data, kb, results_file=tmp_path / "a.jsonl", encoder=ENC, llm=llm)
    rows = {r["item_id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    assert rows["a1"]["correct"] and rows["a1"]["answer"] == "五万元 [1]" and rows["a1"]["cite_right"] == 1
    assert rows["a1"]["gold_sent"] and rows["a1"]["draft"] == "五万元"
    assert rows["u1"]["not_stated"] and not rows["u1"]["draft_not_stated"]  # a real quote about another thing
    assert rows["u2"]["not_stated"] and rows["u2"]["answer"] == "文件中沒有說明這一點。"
    assert "reader failures (answerable, the gold answer in the sources sent, answer wrong or not stated):" in table
    assert "0.0% (0/1) of answerable questions; the gold answer was sent for 100.0% (1/1)" in table


def test_a_reader_failure_is_a_wrong_answer_with_the_gold_fact_in_the_sources(tmp_path: Path) -> None:
    kb = build(tmp_path)
    data = tmp_path / "h.jsonl"
    data.write_text(json.dumps(ITEMS[0], ensure_ascii=False) + "\n", encoding="utf-8")
    llm = FakeLLM({"answer-quote": "原文：无\n答案：文档中没有说明"})
    table, _ = run_honesty(Settings(), data, kb, results_file=tmp_path / "a.jsonl", encoder=ENC, llm=llm)
    assert "100.0% (1/1) of answerable questions; the gold answer was sent for 100.0% (1/1)" in table


def test_a_run_scores_the_checked_answer_and_the_models_draft(tmp_path: Path) -> None:
    kb = build(tmp_path)
    data = tmp_path / "h.jsonl"
    data.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in ITEMS) + "\n", encoding="utf-8")
    results = tmp_path / "answers.jsonl"
    llm = FakeLLM({"answer": answer})
    table, path = run_honesty(CITED_PROSE, data, kb, results_file=results, encoder=ENC, llm=llm)
    rows = {r["item_id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    assert rows["a1"]["correct"] and rows["a1"]["cite_right"] == 1 and rows["a1"]["cite_shown"] == 1
    assert rows["a1"]["draft_correct"] and rows["a1"]["draft_cite_shown"] == 0  # the model cited nothing
    assert rows["u1"]["not_stated"] and not rows["u1"]["draft_not_stated"]  # the invention is caught
    assert rows["u2"]["not_stated"] and rows["u2"]["answer"] == "文件中沒有說明投標保證金的利息。"
    assert rows["u2"]["script_ok"] and not rows["u2"]["draft_script_ok"]
    assert "| checked (shown) | 100.0% (1/1) | 100.0% (2/2) | 100.0% (1/1) | 100.0% (1/1)" in table
    assert "| model's draft (no checks) | 100.0% (1/1) | 50.0% (1/2) | - | 0.0% (0/1)" in table
    again = FakeLLM({"answer": answer})
    run_honesty(CITED_PROSE, data, kb, results_file=results, encoder=ENC, llm=again)
    assert again.calls_for("answer") == []  # a finished run asks nothing again
    # a killed run leaves a torn last line: the next run answers that item again and keeps the others
    kept = [line for line in results.read_text(encoding="utf-8").splitlines() if '"u2"' not in line]
    results.write_text("\n".join(kept) + '\n{"item_id": "u2", "mo', encoding="utf-8")
    # answered again from the KB's LLM cache: a model the caller passes in sits behind the cache like the
    # configured one, so the torn item costs no model call
    third = FakeLLM({"answer": answer})
    run_honesty(CITED_PROSE, data, kb, results_file=results, encoder=ENC, llm=third)
    assert third.calls_for("answer") == []
    lines = results.read_text(encoding="utf-8").splitlines()
    assert lines[-2] == '{"item_id": "u2", "mo' and json.loads(lines[-1])["item_id"] == "u2"
