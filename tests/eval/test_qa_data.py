"""QA item loaders: synthetic files in tmp_path, then the real sets in ../shared/data (skipped if absent)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from pikelocal.domain.errors import InputError
from pikelocal.eval.qa_data import (
    QAItem,
    detect_qa_layout,
    load_auslaw,
    load_lawbench,
    load_multihop_questions,
    load_qa,
)
from pikelocal.eval.qa_metrics import extract_choices, score_item


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def one_line(err: pytest.ExceptionInfo[InputError]) -> str:
    message = str(err.value)
    assert "\n" not in message
    return message


AUSLAW = [
    {"question_id": "Q1", "question_type": "TF", "question": "Is it? True or False?", "answer": "TRUE",
     "source_pdf": "pdfs/en_legal_au/Breach of Contract.pdf"},
    {"question_id": "Q2", "question_type": "MCQ", "question": "Which?\nA) x\nB) y", "answer": "A, B",
     "source_pdf": "pdfs/en_legal_au/Employment contract law.pdf"},
    {"question_id": "Q3", "question_type": "QA", "question": "Why?", "answer": "Because.", "source_pdf": "a/b.pdf"},
]  # fmt: skip


# --- synthetic files -------------------------------------------------------------------------------------------


def test_multihop_questions(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "tiny_questions.json",
        [
            {"id": "q1", "question": "Who?", "answer": "Ann", "type": "bridge", "supporting_titles": ["X", "Y", "X"]},
            {"id": 7, "question": "Which?", "answer": "yes"},  # no titles, no type
        ],
    )
    items = load_multihop_questions(path)
    assert items[0] == QAItem("q1", "Who?", ("Ann",), "text", "en", hops=2, kind="bridge")
    assert items[1] == QAItem("7", "Which?", ("yes",), "text", "en", hops=1, kind="")
    bad = write_json(tmp_path / "bad_questions.json", [{"id": "q1", "question": "Who?"}])
    with pytest.raises(InputError) as err:
        load_multihop_questions(bad)
    assert one_line(err) == f"{bad}: item 0: missing field 'answer'"


def test_lawbench(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "1-2.json",
        [
            {"instruction": "选出正确答案", "question": "问一?A:甲;B:乙", "answer": "正确答案：B。"},
            {"instruction": "选出正确答案", "question": "问二?", "answer": "正确答案：D。"},
        ],
    )
    items = load_lawbench(path)
    assert items[0] == QAItem("1-2#0", "问一?A:甲;B:乙", ("B。",), "1-2", "zh", instruction="选出正确答案")
    assert [i.item_id for i in items] == ["1-2#0", "1-2#1"]
    assert items[1].answers == ("D。",)


def test_lawbench_bad_files(tmp_path: Path) -> None:
    unknown = write_json(tmp_path / "9-9.json", [{"question": "q", "answer": "a"}])
    with pytest.raises(InputError) as err:
        load_lawbench(unknown)
    assert one_line(err).startswith(f"{unknown}: unknown LawBench task '9-9'")
    with pytest.raises(InputError) as err:
        load_lawbench(tmp_path / "1-1.json")
    assert one_line(err) == f"{tmp_path / '1-1.json'}: file not found"
    not_list = write_json(tmp_path / "3-1.json", {"question": "q", "answer": "a"})
    with pytest.raises(InputError) as err:
        load_lawbench(not_list)
    assert one_line(err) == f"{not_list}: expected a JSON list of objects, got dict"


def test_auslaw(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "aus.jsonl", AUSLAW)
    items = load_auslaw(path)
    assert [(i.item_id, i.task, i.answers) for i in items] == [("Q1", "tf", ("TRUE",)), ("Q2", "mcq", ("A, B",))]
    assert items[0].kind == "Breach of Contract.pdf" and items[0].lang == "en"
    only_qa = load_auslaw(path, types=("QA",))
    assert only_qa == [QAItem("Q3", "Why?", ("Because.",), "text", "en", kind="b.pdf")]
    with pytest.raises(InputError, match="unknown AusLaw question types"):
        load_auslaw(path, types=("ESSAY",))
    odd = write_jsonl(tmp_path / "odd.jsonl", [{**AUSLAW[0], "question_type": "ESSAY"}])
    with pytest.raises(InputError) as err:
        load_auslaw(odd)
    assert one_line(err) == f"{odd}:1: unknown question_type 'ESSAY' (expected TF, MCQ or QA)"


def test_detect_qa_layout(tmp_path: Path) -> None:
    multihop = write_json(tmp_path / "x_questions.json", [{"id": "1", "question": "Q?", "answer": "A"}])
    lawbench = write_json(tmp_path / "3-6.json", [{"question": "Q?", "answer": "正确答案:C。"}])
    auslaw = write_jsonl(tmp_path / "aus.jsonl", AUSLAW)
    assert detect_qa_layout(multihop) == "multihop" and load_qa(multihop)[0].task == "text"
    assert detect_qa_layout(lawbench) == "lawbench" and load_qa(lawbench)[0].answers == ("C。",)
    assert detect_qa_layout(auslaw) == "auslaw" and [i.item_id for i in load_qa(auslaw)] == ["Q1", "Q2"]
    plain = write_jsonl(tmp_path / "plain.jsonl", [{"question": "Q?"}])
    other = write_json(tmp_path / "9-9.json", [])
    for path in (plain, other, tmp_path, tmp_path / "missing.json"):
        with pytest.raises(InputError) as err:
            detect_qa_layout(path)
        assert one_line(err).startswith(f"{path}: ")


# --- the real sets in ../shared/data ---------------------------------------------------------------------------


def test_real_multihop(shared_data: Path) -> None:
    hotpot = load_qa(shared_data / "multihop" / "hotpotqa_dev500_questions.json")
    assert len(hotpot) == 500
    assert hotpot[0] == QAItem(
        "5a7d5c175542991319bc93b1",
        "Between Harvey Pekar and Denise Levertov who was born earlier?",
        ("Denise Levertov",),
        "text",
        "en",
        hops=2,
        kind="comparison",
    )
    wiki = load_multihop_questions(shared_data / "multihop" / "2wikimultihopqa_dev500_questions.json")
    assert len(wiki) == 500 and wiki[0].answers == ("Cork",) and wiki[0].kind == "compositional"
    assert Counter(i.hops for i in wiki) == {2: 370, 4: 130}  # bridge_comparison questions have four titles


@pytest.mark.parametrize("task", ["1-1", "1-2", "3-1", "3-2", "3-6", "3-8"])
def test_real_lawbench(shared_data: Path, task: str) -> None:
    path = shared_data / "legal_zh" / "lawbench" / f"{task}.json"
    assert detect_qa_layout(path) == "lawbench"
    items = load_qa(path)
    assert len(items) == 250 and {i.task for i in items} == {task} and items[0].item_id == f"{task}#0"
    assert len({i.instruction for i in items}) == 1  # one prompt per task
    assert not any(i.answers[0].startswith(("答案", "法条", "正确答案", "回答")) for i in items)
    assert all(score_item(task, i.answers[0], i.answers).em == 1.0 for i in items)  # each gold scores itself
    if task in ("1-2", "3-6"):
        assert all(len(extract_choices(i.answers[0])) == 1 for i in items)  # single choice
    first = {"1-2": "B。", "3-1": "刑法第264条", "3-6": "C。"}
    if task in first:
        assert items[0].answers == (first[task],)


def test_real_auslaw(shared_data: Path) -> None:
    path = shared_data / "legal_en" / "auslaw_questions.jsonl"
    assert detect_qa_layout(path) == "auslaw"
    items = load_qa(path)
    assert len(items) == 100 and Counter(i.task for i in items) == {"tf": 50, "mcq": 50}
    assert (items[0].item_id, items[0].answers, items[0].task) == ("Q0001", ("F",), "tf")
    assert items[0].kind == "Contract scope of the penalty doctrine(ANZ Bank).pdf"
    assert all(score_item(i.task, i.answers[0], i.answers).em == 1.0 for i in items)  # golds parse: T/TRUE, A, B
    assert len(load_auslaw(path, types=("TF", "MCQ", "QA"))) == 150
