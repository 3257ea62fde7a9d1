"""LawBench 1-1 (statute recitation) as article retrieval: PRC law articles, questions mapped to their gold article.

The articles come from ``law_articles.jsonl`` (one record per article of each law file); a question
"<category><law>第N条的内容是什么？" is resolved to the article it names, and :func:`choose_law_files` picks the law
files to index: the named ones plus unrelated distractors.
"""

from __future__ import annotations

import difflib
import logging
import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pikelocal.eval.datasets.reading import iter_jsonl, load_json_list, text_field

log = logging.getLogger(__name__)

PRC_PREFIX = "中华人民共和国"
_ARTICLE_RE = re.compile(r"第[零〇一二三四五六七八九十百千万]+条(?:之[一二三四五六七八九十]+)?")
_QUESTION_SUFFIXES = ("的内容是什么？", "的内容是什么?")


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


def load_law_articles(path: Path) -> list[LawArticle]:
    """The records of law_articles.jsonl (``{id, law, category, file, article, text, ...}``) in file order."""
    path = Path(path)
    keys = ("id", "law", "category", "file", "article", "text")
    return [LawArticle(*(text_field(record, key, where) for key in keys)) for where, record in iter_jsonl(path)]


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
    records = load_json_list(questions_json)
    by_name: dict[tuple[str, str], list[LawArticle]] = {}
    for art in articles:
        for law_name in {art.law, art.short_law}:
            by_name.setdefault((law_name, art.article), []).append(art)
    categories = sorted({art.category for art in articles}, key=len, reverse=True)

    pending: list[tuple[str, str, list[LawArticle]]] = []  # (question, answer, candidates) in file order
    unresolved: list[str] = []
    for index, record in enumerate(records):
        where = f"{questions_json}: item {index}"
        question = text_field(record, "question", where).strip()
        answer = text_field(record, "answer", where, "").removeprefix("答案:").removeprefix("答案：")
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
