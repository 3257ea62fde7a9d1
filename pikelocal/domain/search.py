"""What a search returns: ranked chunks with a snippet of the matched text, or relevant segments (runs of
consecutive chunks) with their values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pikelocal.domain.documents import ChunkRecord, DocumentRecord, SummaryNode
from pikelocal.domain.references import StoredRef


@dataclass(frozen=True)
class Snippet:
    text: str
    marks: tuple[tuple[int, int], ...]  # [start, end) of matched terms within ``text``
    clipped_start: bool  # text was cut before / after the snippet
    clipped_end: bool

    def marked(
        self, open_mark: str = "[", close_mark: str = "]", clean: Callable[[str], str] = lambda text: text
    ) -> str:
        """The text with each matched term wrapped in the given markers, and … where the text was cut; ``clean``
        is applied to the text's pieces, never to the markers (which may be terminal colour codes)."""
        out, pos = [], 0
        for s, e in self.marks:
            out += [clean(self.text[pos:s]), open_mark, clean(self.text[s:e]), close_mark]
            pos = e
        out.append(clean(self.text[pos:]))
        return ("…" if self.clipped_start else "") + "".join(out) + ("…" if self.clipped_end else "")


@dataclass(frozen=True)
class Hit:
    chunk: ChunkRecord
    document: DocumentRecord
    score: float  # bm25: -bm25 (higher is better); dense/late: cosine similarity; questions, hybrid: RRF score
    ranks: Mapping[str, int]  # 1-based rank of this chunk in each source ranking that found it ("refs": cited)
    snippet: Snippet
    cites: tuple[StoredRef, ...] = ()  # the citations of laws and articles in the chunk, with where they lead
    via: str = ""  # a fact hop's fact, "subject relation object", when the chunk was reached through it


@dataclass(frozen=True)
class Fact:
    """One stored triple of the entity graph, with its ends' entity ids and names."""

    id: int
    subject_id: int
    subject: str
    relation: str
    object_id: int
    object: str


@dataclass(frozen=True)
class FactHop:
    """A chunk reached from the question through a fact (``query.retrieve.hops``): the passage nearest the name of an
    end of a triple near the question, one the question does not name."""

    chunk_id: int
    entity: str  # the end's name, searched for
    fact: Fact
    similarity: float  # cosine of the chunk to the end's name


@dataclass(frozen=True)
class SegmentCell:
    """One chunk as relevant segment extraction sees it (``query.context.segments``): where it is, what it is worth, and
    what it costs. Chunks of a document with consecutive ``ord`` are contiguous."""

    doc_id: int
    ord: int
    value: float  # from its rank and score in the ranking, less the irrelevant-chunk penalty
    tokens: int  # estimated tokens of its text


@dataclass(frozen=True)
class SegmentSpan:
    """A run of consecutive chunks of one document chosen by ``query.context.segments.best_segments``."""

    doc_id: int
    first_ord: int
    last_ord: int  # inclusive
    value: float  # the sum of its chunks' values
    tokens: int  # its chunks' estimated tokens, with the per-segment overhead


@dataclass(frozen=True)
class Segment:
    """A relevant segment with its chunks: what ``KnowledgeBase.segments`` returns and answering reads."""

    document: DocumentRecord
    chunks: tuple[ChunkRecord, ...]  # consecutive, in document order
    values: tuple[float, ...]  # each chunk's value (negative: a chunk the ranking did not find, or found late)
    ranks: tuple[int | None, ...]  # each chunk's 1-based rank in the ranking, None where it is not ranked

    @property
    def value(self) -> float:
        return sum(self.values)

    @property
    def pages(self) -> tuple[int | None, int | None]:
        found = [p for c in self.chunks for p in (c.page_start, c.page_end) if p is not None]
        return (min(found), max(found)) if found else (None, None)

    @property
    def lines(self) -> tuple[int | None, int | None]:
        return self.chunks[0].line_start, self.chunks[-1].line_end


@dataclass(frozen=True)
class SummaryHit:
    """A summary-tree node a search found (``search --summaries``; ``ask`` on an overview question)."""

    node: SummaryNode
    score: float  # RRF of its dense and BM25 ranks
    document: DocumentRecord | None  # None: a cluster across documents
    chunk_ids: tuple[int, ...]  # the chunks below it, in document order
    pages: tuple[int | None, int | None]  # first and last page of those chunks (of its document)


@dataclass(frozen=True)
class FusionTuning:
    """Hybrid's BM25 and late weights as a KB chose them on its own atomic questions (``query.retrieve.fusion_tuning``):
    each question is a query whose right answer is known, its own chunk. Stored in the KB by ``enrich``."""

    bm25_weight: float
    late_weight: float | None  # None: the KB has no late vectors, so the configured weight stays
    queries: int  # atomic questions asked
    ndcg: float  # their nDCG@10 (their own chunk the one relevant hit) at the chosen weights
    best_ndcg: float  # the best of the grid; the chosen weights are the simplest within 2 standard errors of it
    configured_ndcg: float  # at the configured weights
    encoder_id: str  # the rankings' encoder: a KB re-embedded with another one ignores the tuning
    fusion: str  # the fusion method tuned (search.fusion): weights of another method do not carry over
    kb_questions: int  # the KB's atomic questions then: enrich tunes again once they are 10 % more
