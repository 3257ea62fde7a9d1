"""Loaders for evaluation sets: BEIR folders, pooled multi-hop QA (HotpotQA, 2Wiki) and LawBench 1-1 law articles."""

from __future__ import annotations

import difflib
import json
import logging
import math
import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pikelocal.errors import InputError

log = logging.getLogger(__name__)

T = TypeVar("T")

MULTIHOP_STEMS = {"hotpotqa": "hotpotqa_dev500", "2wiki": "2wikimultihopqa_dev500"}
PRC_PREFIX = "中华人民共和国"
_ARTICLE_RE = re.compile(r"第[零〇一二三四五六七八九十百千万]+条(?:之[一二三四五六七八九十]+)?")
_QUESTION_SUFFIXES = ("的内容是什么？", "的内容是什么?")
_MISSING = object()


@dataclass(frozen=True, slots=True)
class CorpusDoc:
    """One retrievable document."""

    doc_id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class EvalQuery:
    """One query and its judged documents: ``relevant`` maps doc_id to a grade > 0."""

    query_id: str
    text: str
    relevant: dict[str, int]
    pool: tuple[str, ...] = ()  # multi-hop sets: the paragraphs given with this question (gold + distractors)


@dataclass(frozen=True, slots=True)
class EvalSet:
    """A named corpus with the queries to evaluate against it."""

    name: str
    docs: tuple[CorpusDoc, ...]
    queries: tuple[EvalQuery, ...]


@dataclass(frozen=True, slots=True)
class LawArticle:
    """One article of a PRC law (a record of law_articles.jsonl); ``id`` is ``<file>#第N条``."""

    id: str
    law: str
    category: str
    file: str
    article: str
    text: str

    @property
    def short_law(self) -> str:
        """The law's name without a leading 中华人民共和国, as LawBench questions name it."""
        return self.law.removeprefix(PRC_PREFIX)


@dataclass(frozen=True, slots=True)
class LawQuestions:
    """LawBench questions mapped to their gold article.

    ``resolved`` holds (question, article) pairs in file order; ``unresolved`` the questions no article matched;
    ``ambiguous`` the resolved questions whose law has several versions with that article (the version whose text
    is closest to the answer was chosen).
    """

    resolved: list[tuple[str, LawArticle]]
    unresolved: list[str]
    ambiguous: list[str] = field(default_factory=list)


# --- reading helpers -------------------------------------------------------------------------------------------


def _open_error(path: Path, err: OSError | UnicodeDecodeError) -> InputError:
    """The one-line InputError for a file that cannot be read."""
    if isinstance(err, FileNotFoundError):
        return InputError(f"{path}: file not found")
    if isinstance(err, IsADirectoryError):
        return InputError(f"{path}: is a folder, expected a file")
    if isinstance(err, UnicodeDecodeError):
        return InputError(f"{path}: not UTF-8 text")
    return InputError(f"{path}: cannot read ({err.strerror or err})")


def _iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line without its newline) for each non-blank line of a UTF-8 text file."""
    try:
        with path.open(encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, start=1):
                line = line.rstrip("\r\n")
                if line.strip():
                    yield lineno, line
    except (OSError, UnicodeDecodeError) as err:
        raise _open_error(path, err) from err


def _iter_jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """("path:line", object) for each non-blank line of a JSON Lines file; each line must be a JSON object."""
    for lineno, line in _iter_lines(path):
        where = f"{path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{where}: malformed JSON ({err.msg})") from err
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
        yield where, record


def _load_json_list(path: Path) -> list[dict[str, Any]]:
    """A JSON file holding a list of objects."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise _open_error(path, err) from err
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: malformed JSON at line {err.lineno} ({err.msg})") from err
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of objects, got {type(data).__name__}")
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(f"{path}: item {index} is {type(item).__name__}, expected an object")
    return data


def _field(record: dict[str, Any], key: str, where: str, default: Any = _MISSING) -> str:
    """``record[key]`` as a string (ints become their decimal string); ``default`` when missing or null."""
    value = record.get(key)
    if value is None:
        if default is _MISSING:
            raise InputError(f"{where}: missing field {key!r}")
        return default
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"{where}: field {key!r} must be a string, got {type(value).__name__}")
    return str(value)


def _check_folder(folder: Path, what: str) -> None:
    """Raise InputError unless ``folder`` is an existing folder."""
    if not folder.is_dir():
        raise InputError(f"{folder}: {'not found' if not folder.exists() else 'not a folder'} (expected {what})")


# --- BEIR ------------------------------------------------------------------------------------------------------


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
    for lineno, line in _iter_lines(path):
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
    _check_folder(folder, "a BEIR folder with corpus.jsonl, queries.jsonl and qrels/")
    docs: dict[str, CorpusDoc] = {}
    for where, record in _iter_jsonl(folder / "corpus.jsonl"):
        doc_id = _field(record, "_id", where)
        if doc_id in docs:
            raise InputError(f"{where}: duplicate _id {doc_id!r}")
        docs[doc_id] = CorpusDoc(doc_id, _field(record, "title", where, ""), _field(record, "text", where))
    texts: dict[str, str] = {}
    for where, record in _iter_jsonl(folder / "queries.jsonl"):
        texts[_field(record, "_id", where)] = _field(record, "text", where)
    qrels = _load_qrels(folder / "qrels" / f"{split}.tsv")
    if missing := sorted(set(qrels) - set(texts)):
        log.warning("%s: %d judged queries are not in queries.jsonl (skipped): %s", folder, len(missing), missing[:5])
    unknown = sum(1 for judged in qrels.values() for doc_id in judged if doc_id not in docs)
    if unknown:
        log.warning("%s: %d judgments name documents that are not in corpus.jsonl", folder, unknown)
    queries = tuple(EvalQuery(qid, text, dict(qrels[qid])) for qid, text in texts.items() if qrels.get(qid))
    return EvalSet(name or folder.resolve().name, tuple(docs.values()), queries)


# --- pooled multi-hop QA ---------------------------------------------------------------------------------------


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
    for index, record in enumerate(_load_json_list(corpus_json)):
        where = f"{corpus_json}: item {index}"
        doc_id = _field(record, "doc_id", where)
        if doc_id in docs:
            raise InputError(f"{where}: duplicate doc_id {doc_id!r}")
        docs[doc_id] = CorpusDoc(doc_id, _field(record, "title", where, ""), _field(record, "text", where))
    queries: list[EvalQuery] = []
    for index, record in enumerate(_load_json_list(questions_json)):
        where = f"{questions_json}: item {index}"
        query_id, text, gold = _field(record, "id", where), _field(record, "question", where), _gold_ids(record, where)
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


def detect_layout(path: Path) -> Literal["beir", "multihop"]:
    """The layout at ``path``: beir for a folder with corpus.jsonl (or that file), multihop for *_corpus.json."""
    path = Path(path)
    if path.is_dir():
        if (path / "corpus.jsonl").is_file():
            return "beir"
        if any(path.glob("*_corpus.json")):
            return "multihop"
    elif path.is_file():
        if path.name == "corpus.jsonl":
            return "beir"
        if path.name.endswith("_corpus.json"):
            return "multihop"
    elif not path.exists():
        raise InputError(f"{path}: not found")
    raise InputError(f"{path}: not an evaluation set (expected a folder with corpus.jsonl, or a *_corpus.json file)")


def subset(queries: Sequence[T], limit: int | None, seed: int = 0) -> list[T]:
    """A deterministic random sample of ``limit`` items, kept in their original order; all when limit is None."""
    if limit is None or limit >= len(queries):
        return list(queries)
    if limit < 0:
        raise InputError(f"the query limit must be 0 or more, got {limit}")
    picked = sorted(random.Random(seed).sample(range(len(queries)), limit))
    return [queries[i] for i in picked]


def pooled(evalset: EvalSet, queries: Sequence[EvalQuery]) -> EvalSet:
    """``evalset`` cut down to the paragraphs pooled for ``queries`` (their gold and distractor paragraphs)."""
    keep: dict[str, None] = {}
    for q in queries:
        keep.update(dict.fromkeys(q.pool or q.relevant))
    docs = {d.doc_id: d for d in evalset.docs}
    return EvalSet(f"{evalset.name}-pooled{len(queries)}", tuple(docs[k] for k in keep if k in docs), tuple(queries))


# --- LawBench 1-1: statute recitation → article retrieval ------------------------------------------------------


def load_law_articles(path: Path) -> list[LawArticle]:
    """The records of law_articles.jsonl (``{id, law, category, file, article, text, ...}``) in file order."""
    path = Path(path)
    keys = ("id", "law", "category", "file", "article", "text")
    return [LawArticle(*(_field(record, key, where) for key in keys)) for where, record in _iter_jsonl(path)]


def _similarity(answer: str, text: str) -> float:
    """How alike a LawBench answer and an article text are, ignoring whitespace and commas."""

    def norm(s: str) -> str:
        return re.sub(r"[\s,，]", "", s)

    return difflib.SequenceMatcher(None, norm(answer), norm(text), autojunk=False).ratio()


def resolve_lawbench_questions(questions_json: Path, articles: Sequence[LawArticle]) -> LawQuestions:
    """Map each LawBench 1-1 question ("<category><law>第N条的内容是什么？") to its gold article.

    The law is named without its 中华人民共和国 prefix (the full name is accepted too); the category prefix is
    optional and, when no law of that category has the article, ignored. Where several versions of the law have
    the article, the one whose text is closest to the answer wins; ties go to the version most other questions
    clearly resolved to, then to the first file name (the oldest of dated versions). Unmatched questions are
    returned in ``unresolved``, never dropped silently.
    """
    questions_json = Path(questions_json)
    records = _load_json_list(questions_json)
    by_name: dict[tuple[str, str], list[LawArticle]] = {}
    for art in articles:
        for law_name in {art.law, art.short_law}:
            by_name.setdefault((law_name, art.article), []).append(art)
    categories = sorted({art.category for art in articles}, key=len, reverse=True)

    pending: list[tuple[str, str, list[LawArticle]]] = []  # (question, answer, candidates) in file order
    unresolved: list[str] = []
    for index, record in enumerate(records):
        where = f"{questions_json}: item {index}"
        question = _field(record, "question", where).strip()
        answer = _field(record, "answer", where, "").removeprefix("答案:").removeprefix("答案：")
        candidates = _question_candidates(question, by_name, categories)
        if candidates:
            pending.append((question, answer, candidates))
        else:
            unresolved.append(question)

    votes: Counter[str] = Counter()  # how often each file is the clear best, to break ties between equal versions
    for _, answer, candidates in pending:
        scores = [(_similarity(answer, c.text) if len(candidates) > 1 else 1.0, c.file) for c in candidates]
        best = max(s for s, _ in scores)
        if sum(1 for s, _ in scores if s == best) == 1:
            votes[next(f for s, f in scores if s == best)] += 1

    resolved: list[tuple[str, LawArticle]] = []
    ambiguous: list[str] = []
    for question, answer, candidates in pending:
        if len(candidates) > 1:
            ambiguous.append(question)
            ordered = sorted(candidates, key=lambda c: c.file)  # max() keeps the first of equals
            candidates = [max(ordered, key=lambda c: (_similarity(answer, c.text), votes[c.file]))]
        resolved.append((question, candidates[0]))
    if unresolved:
        log.warning("%s: %d of %d questions name no known article", questions_json, len(unresolved), len(records))
    return LawQuestions(resolved, unresolved, ambiguous)


def _question_candidates(
    question: str, by_name: dict[tuple[str, str], list[LawArticle]], categories: Sequence[str]
) -> list[LawArticle]:
    """The articles (one per law version) a question names; empty when it names none."""
    head = next((question.removesuffix(s) for s in _QUESTION_SUFFIXES if question.endswith(s)), None)
    if head is None:
        return []
    match = next((m for m in _ARTICLE_RE.finditer(head) if m.end() == len(head)), None)
    if match is None:
        return []
    named, article = head[: match.start()], match.group()
    category = next((c for c in categories if named.startswith(c) and len(named) > len(c)), None)
    if category is not None:
        found = by_name.get((named[len(category) :], article), [])
        if in_category := [art for art in found if art.category == category]:
            return _distinct(in_category)
        if found:  # the law exists under another category
            return _distinct(found)
    return _distinct(by_name.get((named, article), []))  # no category prefix: the whole head is the law


def _distinct(articles: Sequence[LawArticle]) -> list[LawArticle]:
    """The articles with repeats of the same record dropped."""
    return list({art.id: art for art in articles}.values())


def choose_law_files(
    resolved: Sequence[tuple[str, LawArticle]], articles: Sequence[LawArticle], extra_ratio: float = 1.0, seed: int = 0
) -> list[str]:
    """The law files the questions name plus ceil(extra_ratio × that many) other files, chosen by ``seed``; sorted.

    Other versions of a named law are never added as distractors: their identical articles would make a correct
    hit count as a miss.
    """
    if extra_ratio < 0:
        raise ValueError(f"extra_ratio must be 0 or more, got {extra_ratio}")
    named = {art.file for _, art in resolved}
    named_laws = {art.law for _, art in resolved}
    pool = sorted({art.file for art in articles if art.file not in named and art.law not in named_laws})
    wanted = math.ceil(len(named) * extra_ratio)
    if wanted > len(pool):
        log.warning("only %d other law files to add, %d wanted", len(pool), wanted)
    extra = random.Random(seed).sample(pool, min(wanted, len(pool)))
    return sorted(named.union(extra))
