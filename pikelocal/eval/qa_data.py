"""Loaders of QA benchmark items (multi-hop, LawBench, AusLaw) with the task their answers are scored by."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pikelocal.domain.errors import InputError
from pikelocal.eval.datasets.reading import iter_jsonl, load_json_list, text_field
from pikelocal.eval.qa_metrics import LAWBENCH_TASKS, clean_lawbench_gold

AUSLAW_TASKS = {"TF": "tf", "MCQ": "mcq", "QA": "text"}


@dataclass(frozen=True, slots=True)
class QAItem:
    """One benchmark question; ``task`` picks the scorer (see qa_metrics.score_item)."""

    item_id: str
    question: str
    answers: tuple[str, ...]
    task: str
    lang: str
    hops: int = 1
    kind: str = ""  # multi-hop: the question type; AusLaw: the source PDF's file name
    instruction: str = ""  # LawBench: the prompt the benchmark puts before the question


def load_multihop_questions(path: Path) -> list[QAItem]:
    """A *_questions.json of the multi-hop sets: ``[{id, question, answer, type, supporting_titles, ...}]``.

    hops is the number of distinct supporting titles (at least 1).
    """
    path = Path(path)
    items: list[QAItem] = []
    for index, record in enumerate(load_json_list(path)):
        where = f"{path}: item {index}"
        titles = record.get("supporting_titles") or []
        if not isinstance(titles, list):
            raise InputError(f"{where}: supporting_titles must be a list, got {type(titles).__name__}")
        items.append(
            QAItem(
                item_id=text_field(record, "id", where),
                question=text_field(record, "question", where),
                answers=(text_field(record, "answer", where),),
                task="text",
                lang="en",
                hops=max(1, len({str(t) for t in titles})),
                kind=text_field(record, "type", where, ""),
            )
        )
    return items


def _lawbench_task(path: Path) -> str:
    """The task a LawBench file holds (its stem), or InputError."""
    if path.stem not in LAWBENCH_TASKS:
        known = ", ".join(sorted(LAWBENCH_TASKS))
        raise InputError(f"{path}: unknown LawBench task {path.stem!r} (expected a file named one of {known})")
    return path.stem


def load_lawbench(path: Path) -> list[QAItem]:
    """A LawBench task file ``<task>.json``: ``[{instruction, question, answer}]``; ids are ``<task>#<index>``."""
    path = Path(path)
    task = _lawbench_task(path)
    items: list[QAItem] = []
    for index, record in enumerate(load_json_list(path)):
        where = f"{path}: item {index}"
        items.append(
            QAItem(
                item_id=f"{task}#{index}",
                question=text_field(record, "question", where),
                answers=(clean_lawbench_gold(text_field(record, "answer", where)),),
                task=task,
                lang="zh",
                instruction=text_field(record, "instruction", where, ""),
            )
        )
    return items


def load_auslaw(path: Path, types: tuple[str, ...] = ("TF", "MCQ")) -> list[QAItem]:
    """auslaw_questions.jsonl records ``{question_id, question_type, question, answer, source_pdf, ...}`` of ``types``.

    TF → task tf, MCQ → mcq, QA → text; kind is the source PDF's file name.
    """
    path = Path(path)
    if unknown := [t for t in types if t not in AUSLAW_TASKS]:
        raise InputError(f"unknown AusLaw question types {unknown} (choose from {', '.join(AUSLAW_TASKS)})")
    items: list[QAItem] = []
    for where, record in iter_jsonl(path):
        qtype = text_field(record, "question_type", where)
        if qtype not in AUSLAW_TASKS:
            raise InputError(f"{where}: unknown question_type {qtype!r} (expected TF, MCQ or QA)")
        if qtype not in types:
            continue
        items.append(
            QAItem(
                item_id=text_field(record, "question_id", where),
                question=text_field(record, "question", where),
                answers=(text_field(record, "answer", where),),
                task=AUSLAW_TASKS[qtype],
                lang="en",
                kind=PurePosixPath(text_field(record, "source_pdf", where, "")).name,
            )
        )
    return items


def _first_record(path: Path) -> dict[str, Any] | None:
    """The first object of a JSON Lines file; None when it has none."""
    return next((record for _, record in iter_jsonl(path)), None)


def detect_qa_layout(path: Path) -> Literal["multihop", "lawbench", "auslaw", "honesty"]:
    """Which QA set a file is: a *_questions.json, a LawBench ``<task>.json``, or a .jsonl with question_type."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: not found")
    if path.is_file():
        if path.name.endswith("_questions.json"):
            return "multihop"
        if path.suffix == ".json" and path.stem in LAWBENCH_TASKS:
            return "lawbench"
        first = _first_record(path) if path.suffix == ".jsonl" else None
        if first and "question_type" in first:
            return "auslaw"
        if first and "answerable" in first:
            return "honesty"
    raise InputError(
        f"{path}: not a QA set (expected a *_questions.json, a LawBench task file such as 1-2.json, "
        "or a .jsonl of records with question_type or answerable)"
    )


def load_qa(path: Path) -> list[QAItem]:
    """The items of any QA set file, by detect_qa_layout; AusLaw gives its TF and MCQ questions."""
    layout = detect_qa_layout(path)
    if layout == "multihop":
        return load_multihop_questions(path)
    if layout == "lawbench":
        return load_lawbench(path)
    if layout == "honesty":
        raise InputError(f"{path}: an honesty set is scored by `pikelocal eval qa` with its own table (eval.honesty)")
    return load_auslaw(path)
