"""BEIR folders: ``corpus.jsonl``, ``queries.jsonl`` and graded relevance judgments in ``qrels/<split>.tsv``."""

from __future__ import annotations

import logging
import math
from pathlib import Path

from pikelocal.domain.errors import InputError
from pikelocal.eval.datasets.reading import check_folder, iter_jsonl, iter_lines, text_field
from pikelocal.eval.datasets.records import CorpusDoc, EvalQuery, EvalSet

log = logging.getLogger(__name__)


def _parse_grade(text: str, where: str) -> int:
    """A qrels score: an integer, or a float with an integral value."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value.is_integer():
        raise InputError(f"{where}: score {text!r} is not an integer")
    return int(value)


def _load_qrels(path: Path) -> dict[str, dict[str, int]]:
    """query-id → {corpus-id: score > 0} from a BEIR qrels TSV (header ``query-id corpus-id score`` optional)."""
    qrels: dict[str, dict[str, int]] = {}
    first = True
    for lineno, line in iter_lines(path):
        fields = [part.strip() for part in line.split("\t")]
        if first and fields[0].lower() in ("query-id", "query_id", "qid"):
            first = False
            continue
        first = False
        where = f"{path}:{lineno}"
        if len(fields) != 3 or not fields[0] or not fields[1]:
            raise InputError(f"{where}: expected 3 tab-separated fields (query-id, corpus-id, score), got {line!r}")
        grade = _parse_grade(fields[2], where)
        if grade > 0:
            qrels.setdefault(fields[0], {})[fields[1]] = grade
    return qrels


def load_beir(folder: Path, split: str = "test", name: str | None = None) -> EvalSet:
    """A BEIR folder: corpus.jsonl, queries.jsonl and qrels/<split>.tsv. Keeps queries with a judgment > 0."""
    folder = Path(folder)
    check_folder(folder, "a BEIR folder with corpus.jsonl, queries.jsonl and qrels/")
    docs: dict[str, CorpusDoc] = {}
    for where, record in iter_jsonl(folder / "corpus.jsonl"):
        doc_id = text_field(record, "_id", where)
        if doc_id in docs:
            raise InputError(f"{where}: duplicate _id {doc_id!r}")
        docs[doc_id] = CorpusDoc(doc_id, text_field(record, "title", where, ""), text_field(record, "text", where))
    texts: dict[str, str] = {}
    for where, record in iter_jsonl(folder / "queries.jsonl"):
        texts[text_field(record, "_id", where)] = text_field(record, "text", where)
    qrels = _load_qrels(folder / "qrels" / f"{split}.tsv")
    if missing := sorted(set(qrels) - set(texts)):
        log.warning("%s: %d judged queries are not in queries.jsonl (skipped): %s", folder, len(missing), missing[:5])
    unknown = sum(1 for judged in qrels.values() for doc_id in judged if doc_id not in docs)
    if unknown:
        log.warning("%s: %d judgments name documents that are not in corpus.jsonl", folder, unknown)
    queries = tuple(EvalQuery(qid, text, dict(qrels[qid])) for qid, text in texts.items() if qrels.get(qid))
    return EvalSet(name or folder.resolve().name, tuple(docs.values()), queries)
