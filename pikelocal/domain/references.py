"""Citations of laws and their articles found in documents (``pikelocal.text.legal_refs``), and where they lead."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LegalRef:
    """One citation as the grammar reads it, e.g. 《中华人民共和国招标投标法实施条例》第四条第三款 or "s 54(1) of the
    Insurance Contracts Act 1984 (Cth)"."""

    start: int  # [start, end) of the citation in the text it was found in
    end: int
    law: str | None  # the cited law's name as written (without 《》, the leading "the"); None: the citing text's own
    article: str | None  # "46", "64-1" (第64條之1), "54A", "3.2"; None: the law as a whole
    detail: str = ""  # finer than the article, as written: "第三款", "(1)(b)"

    @property
    def label(self) -> str:
        """A short human form: "招标投标法实施条例 第4条第三款", "Insurance Contracts Act 1984 s 54(1)"."""
        law = self.law or "(this document)"
        if self.article is None:
            return law
        english = self.law is not None and self.law.isascii()
        art = f"s {self.article}{self.detail}" if english else f"第{self.article}条{self.detail}"
        return f"{law} {art}"


@dataclass(frozen=True)
class ArticleStart:
    """Where an article (第N条, or a numbered section of an Act) begins in a chunk's text."""

    article: str
    offset: int  # in the chunk's text


@dataclass(frozen=True)
class StoredRef:
    """A citation stored in the KB, from a chunk, with what it resolved to (None where the cited law, or its article,
    is not in the KB)."""

    id: int
    chunk_id: int
    doc_id: int
    ref: LegalRef
    text: str  # the citation as it stands in the chunk
    target_doc: int | None
    target_chunk: int | None
    target_title: str | None  # the cited document's title, when resolved
    page: int | None = None  # first page of the citing chunk (None: an unpaged document)
    target_page: int | None = None  # first page of the cited article's chunk
    page_end: int | None = None  # last page of the citing chunk

    def destination(self) -> str:
        """Where the citation leads, in words: the cited law's title and article (with its page), or why nowhere."""
        if self.resolved:
            if self.ref.article is None:
                return f"{self.target_title} (the whole law)"
            page = f", p. {self.target_page}" if self.target_page is not None else ""
            return f"{self.target_title} {self.ref.label.rsplit(' ', 1)[-1]}{page}"
        if self.target_doc is not None:
            return f"{self.target_title}: article {self.ref.article} not found in it"
        return "own document: no such article" if self.ref.law is None else "not in the KB"

    @property
    def resolved(self) -> bool:
        """An article citation that reached its article's chunk, or a whole-law citation that reached the law."""
        return self.target_chunk is not None if self.ref.article is not None else self.target_doc is not None


@dataclass(frozen=True)
class RefCounts:
    refs: int  # citations stored
    resolved: int  # of them, those that reached their article (or, citing a whole law, the law)
    articles: int  # article starts known (where 第N条 begins in a law of the KB)
    unread: int  # chunks not yet read for citations (a KB made before they were; the next ingest reads them)
