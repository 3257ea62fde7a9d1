"""A question that asks what an article says ("个人独资企业法第十九条的内容是什么？", "What does section 54 of the
Insurance Contracts Act 1984 provide?") is answered by the system, not the model: the article is found in the
sources by its heading (第十九条 at the start of a line; a numbered section of an Act) in a source of the law the
question names, and its text, up to the next article, is the answer, cited where it stands. No LLM call.

The small model asked for the shortest answer cut such an article to a phrase ("2千元以下的罚款") or wrote none;
the article itself is what a reviewer asked for. Where the article is not among the sources, the question goes
to the model as any other (``query/answer/quoted.py``). Measured: docs/BENCHMARKS.md, "Quote, then answer on the other
sets" (LawBench 1-1).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pikelocal.domain.answers import Source
from pikelocal.domain.references import LegalRef
from pikelocal.text.legal_refs import article_starts, find_refs, law_keys, name_candidates
from pikelocal.text.question_kind import asks_article_text

# A heading between two articles (a chapter's or section's: "## 第二节 组织机构", "第三章 …") ends the one before.
_HEADING_LINE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]|第[一二三四五六七八九十百零〇\d]+[章节節编編][ \t　])", re.MULTILINE)


@dataclass(frozen=True)
class ArticleSpan:
    source: Source
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.source.text[self.start : self.end].strip()


def asked_article(question: str) -> LegalRef | None:
    """The one article whose words ``question`` asks for, or None (no such ask, or several articles named)."""
    if not asks_article_text(question):
        return None
    refs = [r for r in find_refs(question) if r.article is not None]
    return refs[0] if len(refs) == 1 and not refs[0].detail else None


def _of_law(source: Source, law: str | None) -> bool:
    """Whether ``source`` is a text of the law ``law`` names (any law when the question names none)."""
    if law is None:
        return True
    stem = source.path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    own = law_keys(stem) | (law_keys(source.title) if source.title else set())
    return any(key in own for key in name_candidates(law))


def article_span(
    ref: LegalRef, sources: Sequence[Source], *, english: bool, law_docs: Sequence[int] = ()
) -> ArticleSpan | None:
    """Where article ``ref`` stands in the first source of its law that holds its heading: from the heading to
    the next article's (or the source's end). ``law_docs``, when given, are the law's documents as the KB resolves
    its name (the most specific name first: 社会保险法 before 保险法, which the sources alone cannot tell apart);
    else a source's own name must match the law's."""
    for source in sources:
        if not (source.doc_id in law_docs if law_docs else _of_law(source, ref.law)):
            continue
        starts = article_starts(source.text, english=english)
        for i, start in enumerate(starts):
            if start.article == ref.article:
                end = starts[i + 1].offset if i + 1 < len(starts) else len(source.text)
                heading = _HEADING_LINE.search(source.text, start.offset + 1, end)
                span = ArticleSpan(source, start.offset, heading.start() if heading else end)
                if span.text:
                    return span
    return None
