"""Pooled multi-hop QA sets (HotpotQA, 2Wiki): a JSON corpus of paragraphs and JSON questions naming their gold ones.

Each question may list the paragraphs it was given (``context_doc_ids``: gold and distractors), its pool; see
:func:`pikelocal.eval.datasets.records.pooled`.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from pikelocal.domain.errors import InputError
from pikelocal.eval.datasets.reading import load_json_list, text_field
from pikelocal.eval.datasets.records import CorpusDoc, EvalQuery, EvalSet

log = logging.getLogger(__name__)

MULTIHOP_STEMS = {"hotpotqa": "hotpotqa_dev500", "2wiki": "2wikimultihopqa_dev500"}


def _gold_ids(record: dict[str, Any], where: str) -> list[str]:
    """The question's gold_doc_ids as strings (a JSON list, or a string holding one)."""
    value = record.get("gold_doc_ids")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as err:
            raise InputError(f"{where}: gold_doc_ids {value!r} is not a JSON list") from err
    if not isinstance(value, list) or not all(isinstance(g, str | int) and not isinstance(g, bool) for g in value):
        raise InputError(f"{where}: gold_doc_ids must be a list of ids, got {value!r}")
    return [str(g) for g in value]


def load_multihop(corpus_json: Path, questions_json: Path, name: str | None = None) -> EvalSet:
    """A pooled multi-hop set: corpus ``[{doc_id, title, text}]`` and questions ``[{id, question, gold_doc_ids}]``."""
    corpus_json, questions_json = Path(corpus_json), Path(questions_json)
    docs: dict[str, CorpusDoc] = {}
    for index, record in enumerate(load_json_list(corpus_json)):
        where = f"{corpus_json}: item {index}"
        doc_id = text_field(record, "doc_id", where)
        if doc_id in docs:
            raise InputError(f"{where}: duplicate doc_id {doc_id!r}")
        docs[doc_id] = CorpusDoc(doc_id, text_field(record, "title", where, ""), text_field(record, "text", where))
    queries: list[EvalQuery] = []
    for index, record in enumerate(load_json_list(questions_json)):
        where = f"{questions_json}: item {index}"
        query_id, text = text_field(record, "id", where), text_field(record, "question", where)
        gold = _gold_ids(record, where)
        if absent := [g for g in gold if g not in docs]:
            raise InputError(f"{where}: gold doc ids {absent} are not in {corpus_json.name}")
        if not gold:
            log.warning("%s: question %s has no gold documents (skipped)", questions_json, query_id)
            continue
        pool = tuple(str(d) for d in record.get("context_doc_ids") or ())
        queries.append(EvalQuery(query_id, text, dict.fromkeys(gold, 1), pool))
    return EvalSet(name or corpus_json.stem.removesuffix("_corpus"), tuple(docs.values()), tuple(queries))


def find_multihop(folder: Path, which: str) -> tuple[Path, Path]:
    """(corpus, questions) JSON paths of ``which`` ("hotpotqa" or "2wiki") in the multihop folder."""
    folder = Path(folder)
    if which not in MULTIHOP_STEMS:
        raise InputError(f"unknown multi-hop set {which!r} (choose from {', '.join(MULTIHOP_STEMS)})")
    stem = MULTIHOP_STEMS[which]
    paths = folder / f"{stem}_corpus.json", folder / f"{stem}_questions.json"
    for path in paths:
        if not path.is_file():
            raise InputError(f"{path}: file not found (the {which} multi-hop set)")
    return paths
