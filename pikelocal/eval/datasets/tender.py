"""A page-retrieval set over one tender PDF: questions with their gold pages, evidence quotes and short answers.

Each JSON Lines record is ``{id, question, lang, gold_pages, evidence, answer}``: ``lang`` is zh-Hans, zh-Hant or
en; ``gold_pages`` the 1-based pages where an ``evidence`` string (an exact quote of the page's text, whitespace
aside) stands. :attr:`TenderQuestion.query` is the question as an :class:`EvalQuery` judging page keys ``p<N>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pikelocal.domain.errors import InputError
from pikelocal.eval.datasets.reading import iter_jsonl, text_field
from pikelocal.eval.datasets.records import EvalQuery

QuestionLang = Literal["zh-Hans", "zh-Hant", "en"]
QUESTION_LANGS: tuple[QuestionLang, ...] = get_args(QuestionLang)


def page_key(page_no: int) -> str:
    """The relevance key of a 1-based page: ``p48``."""
    return f"p{page_no}"


@dataclass(frozen=True, slots=True)
class TenderQuestion:
    """One question of the set, with the pages that answer it and the quotes that show it."""

    id: str
    question: str
    lang: QuestionLang
    gold_pages: tuple[int, ...]
    evidence: tuple[str, ...]
    answer: str

    @property
    def query(self) -> EvalQuery:
        """The question for a retrieval run: its gold pages as ``p<N>`` keys, each of grade 1."""
        return EvalQuery(self.id, self.question, {page_key(p): 1 for p in self.gold_pages})


def _pages(record: dict[str, Any], where: str) -> tuple[int, ...]:
    value = record.get("gold_pages")
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in value)
    ):
        raise InputError(f"{where}: gold_pages must be a non-empty list of page numbers (1 or more), got {value!r}")
    return tuple(value)


def _quotes(record: dict[str, Any], where: str) -> tuple[str, ...]:
    value = record.get("evidence")
    if not isinstance(value, list) or not value or not all(isinstance(e, str) and e.strip() for e in value):
        raise InputError(f"{where}: evidence must be a non-empty list of non-blank strings, got {value!r}")
    return tuple(value)


def _lang(record: dict[str, Any], where: str) -> QuestionLang:
    value = text_field(record, "lang", where)
    for lang in QUESTION_LANGS:
        if value == lang:
            return lang
    raise InputError(f"{where}: lang must be one of {', '.join(QUESTION_LANGS)}, got {value!r}")


def load_tender_questions(path: Path) -> list[TenderQuestion]:
    """The questions of a tender retrieval JSON Lines file, in file order; ids must be unique."""
    path = Path(path)
    questions: list[TenderQuestion] = []
    seen: set[str] = set()
    for where, record in iter_jsonl(path):
        qid = text_field(record, "id", where)
        if qid in seen:
            raise InputError(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        questions.append(
            TenderQuestion(
                id=qid,
                question=text_field(record, "question", where),
                lang=_lang(record, where),
                gold_pages=_pages(record, where),
                evidence=_quotes(record, where),
                answer=text_field(record, "answer", where),
            )
        )
    return questions
