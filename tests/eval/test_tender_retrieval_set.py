"""The tender retrieval set (tests/data/tender_retrieval_qa.jsonl) checked against the product's own PDF text.

Each evidence quote must stand on a gold page of the parsed tender PDF and on no page outside gold_pages, and every
gold page must hold a quote: the gold pages are then both right and complete. Whitespace is ignored on both sides
(the PDF's line breaks fall anywhere in Chinese text).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from pikelocal.domain.errors import InputError
from pikelocal.eval.datasets.tender import TenderQuestion, load_tender_questions, page_key
from pikelocal.ingest.read.parse import parse_document

DATA = Path(__file__).parents[1] / "data" / "tender_retrieval_qa.jsonl"
TENDER = Path("pdfs") / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
PAGES = 116


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def questions() -> list[TenderQuestion]:
    return load_tender_questions(DATA)


@pytest.fixture(scope="module")
def page_texts(shared_data: Path) -> dict[int, str]:
    """Page number -> the parsed page's text without whitespace; the PDF is parsed once for the module."""
    pdf = shared_data / TENDER
    if not pdf.is_file():
        pytest.skip(f"{pdf} is absent")
    document = parse_document(pdf)
    return {page.page_no: squeeze(page.text) for page in document.pages}


def test_the_set_has_30_questions_with_unique_ids_in_three_languages(questions: list[TenderQuestion]) -> None:
    assert len(questions) == 30
    assert len({q.id for q in questions}) == 30
    assert Counter(q.lang for q in questions) == {"zh-Hans": 20, "zh-Hant": 6, "en": 4}
    assert all(q.question.strip() and q.answer.strip() for q in questions)


def test_gold_pages_spread_over_the_document(questions: list[TenderQuestion]) -> None:
    gold = {p for q in questions for p in q.gold_pages}
    assert all(1 <= p <= PAGES for p in gold)
    assert len(gold) >= 25
    assert any(p <= 20 for p in gold) and any(50 < p <= 80 for p in gold) and any(p > 100 for p in gold)


def test_queries_judge_the_gold_pages_by_page_key(questions: list[TenderQuestion]) -> None:
    for q in questions:
        assert q.query.query_id == q.id and q.query.text == q.question
        assert q.query.relevant == {page_key(p): 1 for p in q.gold_pages}
    assert page_key(48) == "p48"


def test_the_parsed_pdf_has_every_page(page_texts: dict[int, str]) -> None:
    assert sorted(page_texts) == list(range(1, PAGES + 1))


def test_each_evidence_stands_on_a_gold_page_and_on_no_other_page(
    questions: list[TenderQuestion], page_texts: dict[int, str]
) -> None:
    problems: list[str] = []
    for q in questions:
        for quote in q.evidence:
            found = sorted(p for p, text in page_texts.items() if squeeze(quote) in text)
            if not found:
                problems.append(f"{q.id}: {quote!r} is on no page")
            elif outside := [p for p in found if p not in q.gold_pages]:
                problems.append(f"{q.id}: {quote!r} is also on pages {outside} (gold {list(q.gold_pages)})")
    assert not problems, "\n".join(problems)


def test_every_gold_page_holds_evidence(questions: list[TenderQuestion], page_texts: dict[int, str]) -> None:
    problems = [
        f"{q.id}: gold page {p} holds none of {list(q.evidence)}"
        for q in questions
        for p in q.gold_pages
        if not any(squeeze(quote) in page_texts[p] for quote in q.evidence)
    ]
    assert not problems, "\n".join(problems)


# --- the loader's errors ----------------------------------------------------------------------------------------

GOOD = {"id": "x1", "question": "q", "lang": "en", "gold_pages": [3], "evidence": ["e"], "answer": "a"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lang": "fr"}, "lang must be one of"),
        ({"gold_pages": []}, "gold_pages must be"),
        ({"gold_pages": [0]}, "gold_pages must be"),
        ({"gold_pages": ["3"]}, "gold_pages must be"),
        ({"evidence": [" "]}, "evidence must be"),
        ({"answer": None}, "missing field 'answer'"),
    ],
)
def test_a_bad_record_is_a_one_line_input_error(tmp_path: Path, change: dict[str, object], message: str) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(GOOD | change) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        load_tender_questions(path)
    assert f"{path}:1" in str(err.value) and "\n" not in str(err.value)


def test_a_repeated_id_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text((json.dumps(GOOD) + "\n") * 2, encoding="utf-8")
    with pytest.raises(InputError, match="duplicate id 'x1'"):
        load_tender_questions(path)
