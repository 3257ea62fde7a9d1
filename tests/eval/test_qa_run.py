"""`eval qa` on a real KB file with a scripted fake LLM: scores per mode, answers kept, a stopped run resumed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.errors import InputError
from pikelocal.eval.qa import QAResult, complete_items, format_table, load_results, run_qa
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from tests.support.answer_kb import ENC, build
from tests.support.cli import run_cli

QUESTIONS = [
    {"id": "q1", "question": "投标保证金是多少？", "answer": "五万元", "type": "bridge", "supporting_titles": ["a"]},
    {"id": "q2", "question": "履约保证金是多少？", "answer": "合同价款的百分之十", "type": "bridge",
     "supporting_titles": ["a", "b"]},
    {"id": "q3", "question": "How much notice ends the agreement?", "answer": "thirty days", "type": "comparison",
     "supporting_titles": ["a", "b"]},
]  # fmt: skip
REPLIES = {  # by question: what the fake model answers (q3 is half right: F1 2/3 against "thirty days")
    "投标保证金是多少？": "五万元 [1]",
    "履约保证金是多少？": "文档中没有说明。",
    "How much notice ends the agreement?": "Thirty days' written notice [1].",
}


# naive quotes first (answer.quote): the same answers, each after the sentence it stands in
QUOTED = {
    "投标保证金是多少？": "原文：投标保证金的金额为人民币五万元。\n答案：五万元",
    "履约保证金是多少？": "原文：无\n答案：文档中没有说明",
    "How much notice ends the agreement?": "Quote: Either party may terminate this agreement by written notice."
    " Termination takes effect thirty days after the notice.\nAnswer: Thirty days' written notice",
}


def answer(messages: Sequence[Message], params: GenParams) -> str:
    prompt = messages[-1].content
    replies = QUOTED if params.tag == "answer-quote" else REPLIES
    return next(reply for question, reply in replies.items() if question in prompt)


def answer_calls(llm: FakeLLM) -> int:
    return len(llm.calls_for("answer")) + len(llm.calls_for("answer-quote"))


def result(**changes: object) -> QAResult:
    """A scored answer with made-up costs; ``changes`` sets the fields a test is about."""
    base = QAResult("q", "naive", "text", 2, "", ("a",), 0.0, 0.0, 0.0, 0.0, 1, 10, 1, None, 1.0, 1.0, False, None)
    return replace(base, **changes)


def fake() -> FakeLLM:
    return FakeLLM(
        {
            "answer": answer,
            "answer-quote": answer,
            "propose_subquestions": '{"sub_questions": []}',
            "select_atom": '{"pick": 1}',
        }
    )


def test_scores_per_mode_and_a_resumed_run_asks_nothing_again(tmp_path: Path) -> None:
    kb = build(tmp_path)
    data = tmp_path / "tiny_questions.json"
    data.write_text(json.dumps(QUESTIONS, ensure_ascii=False), encoding="utf-8")
    results = tmp_path / "answers.jsonl"
    llm = fake()
    first = run_qa(Settings(), data, kb, modes=("naive", "decompose"), take=2, results_file=results,
                   encoder=ENC, llm=llm)  # fmt: skip
    assert len(first.results) == 4 and complete_items(first) == {"q1", "q2"}
    assert answer_calls(llm) == 4
    # a killed run leaves at most a torn last line; the next run ignores it and answers the rest
    with results.open("a", encoding="utf-8") as fh:
        fh.write('{"item_id": "q3", "mode": "na')
    again = fake()
    run = run_qa(Settings(), data, kb, modes=("naive", "decompose"), results_file=results, encoder=ENC, llm=again)
    assert answer_calls(again) == 2  # only q3, in both modes
    assert complete_items(run) == {"q1", "q2", "q3"}
    by = {(r.item_id, r.mode): r for r in run.results}
    assert by[("q1", "naive")].em == 1.0 and by[("q1", "naive")].prediction == "五万元"
    assert by[("q2", "decompose")].f1 == 0.0
    assert abs(by[("q3", "naive")].f1 - 2 / 3) < 1e-9  # "thirty days written notice" vs "thirty days"
    assert by[("q3", "naive")].hops == 2 and by[("q1", "naive")].hops == 1
    assert set(load_results(results)) == set(by)
    table = format_table(run)
    assert "| naive | 3 | 0.333 | 0.556 |" in table  # EM (1 + 0 + 0) / 3, F1 (1 + 0 + 2/3) / 3
    assert "| decompose | 3 | 0.333 | 0.556 |" in table
    assert "1 hops" in table and "2 hops" in table
    assert (
        "F1 by the data's question type (AusLaw: the source file):" in table and "| bridge | comparison |" in table
    )  # the data's types: q1 and q2 bridge, q3 comparison
    assert "| naive | 0.500 (2) | 0.667 (1) |" in table
    assert "decompose against naive, question by question: F1 higher on 0, lower on 0, equal on 3" in table
    assert all(r.draft_f1 == r.f1 for r in by.values())  # the check kept every draft as it was
    assert "naive: the drafts before the claim check score F1 0.556, the checked answers 0.556 (3 questions)" in table


def test_head_to_head_counts_each_question_once_per_mode() -> None:
    from pikelocal.eval.qa import QARun, head_to_head

    f1s = {
        ("q1", "naive"): 1.0,
        ("q1", "decompose"): 0.5,
        ("q2", "naive"): 0.0,
        ("q2", "decompose"): 1.0,
        ("q3", "naive"): 0.4,
        ("q3", "decompose"): 0.4,
        ("q4", "naive"): 0.9,
    }  # q4: naive only, not compared
    results = [result(item_id=i, mode=m, f1=f) for (i, m), f in f1s.items()]
    run = QARun("t", Path("kb"), Path("r"), ("naive", "decompose"), results)
    assert head_to_head(run, {"q1", "q2", "q3", "q4"}) == [
        "",
        "decompose against naive, question by question: F1 higher on 1, lower on 1, equal on 1"
        " (mean difference +0.167).",  # (-0.5 + 1.0 + 0) / 3
    ]
    assert head_to_head(replace(run, modes=("decompose",)), {"q1"}) == []  # no baseline asked: nothing to say


def test_lawbench_without_its_kb_is_refused_before_any_model_or_file(tmp_path: Path) -> None:
    data = tmp_path / "1-1.json"
    data.write_text(json.dumps([{"instruction": "回答", "question": "问？", "answer": "答案:甲"}]), encoding="utf-8")
    kb = tmp_path / "law.kb"
    with pytest.raises(InputError, match="eval retrieval"):
        run_qa(Settings(), data, kb, encoder=ENC, llm=fake())
    assert not kb.exists()


def test_eval_qa_rejects_an_unknown_mode_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "tiny_questions.json"
    data.write_text(json.dumps(QUESTIONS, ensure_ascii=False), encoding="utf-8")
    proc = run_cli("eval", "qa", str(data), "--kb", str(tmp_path / "x.kb"), "--modes", "naive,magic")
    assert proc.returncode == 2 and "unknown mode(s) ['magic']" in proc.stderr
    assert not (tmp_path / "x.kb").exists()


def test_building_the_kb_shows_progress_before_the_first_answer(tmp_path: Path) -> None:
    """A new user's `eval qa` used to print nothing for the minutes it spent building its KB."""

    from pikelocal.domain.events import Event, Notice, StageFinished, StageStarted

    corpus = [
        {"doc_id": "a", "title": "Bid bond", "text": "The bid bond of the Qingsong tender is fifty thousand yuan."},
        {"doc_id": "b", "title": "Notice", "text": "Either party may end the agreement with thirty days notice."},
    ]
    questions = [{"id": "q1", "question": "How much notice ends the agreement?", "gold_doc_ids": ["b"],
                  "answer": "thirty days", "type": "bridge", "supporting_titles": ["Notice"]}]  # fmt: skip
    (tmp_path / "tiny_corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    data = tmp_path / "tiny_questions.json"
    data.write_text(json.dumps(questions), encoding="utf-8")
    settings = replace(Settings(), encoder=replace(Settings().encoder, model="minilm"))
    events: list[Event] = []
    answered: list[int] = []
    llm = FakeLLM(
        {"answer-quote": "Quote: Either party may end the agreement with thirty days notice.\nAnswer: Thirty days"}
    )
    run_qa(settings, data, tmp_path / "new.kb", modes=("naive",), sink=events.append, llm=llm,
           on_result=lambda _r: answered.append(len(events)))  # fmt: skip
    notices = [e for e in events if isinstance(e, Notice)]
    assert notices and "building the KB" in notices[0].message
    assert any(isinstance(e, StageStarted) for e in events) and any(isinstance(e, StageFinished) for e in events)
    assert answered == [len(events)]  # all of it came before the answer


def test_check_effect_counts_answers_the_claim_check_lowered_or_raised() -> None:
    from pikelocal.eval.qa import QARun, check_effect

    results = [
        result(item_id="q1", f1=0.0, draft_f1=1.0),  # a right draft withdrawn as "not stated"
        result(item_id="q2", f1=0.5, draft_f1=0.25),  # an unsupported sentence dropped
        result(item_id="q3", f1=0.5, draft_f1=0.5),
        result(item_id="q4", f1=1.0),  # no draft kept (an older results file): left out
    ]
    run = QARun("t", Path("kb"), Path("r"), ("naive",), results)
    assert check_effect(run, {"q1", "q2", "q3", "q4"}) == [
        "",
        "naive: the drafts before the claim check score F1 0.583, the checked answers 0.333 (3 questions);"
        " the check lowered F1 on 1, raised it on 1.",  # (1 + 0.25 + 0.5) / 3 and (0 + 0.5 + 0.5) / 3
    ]
    assert check_effect(run, {"q4"}) == []
