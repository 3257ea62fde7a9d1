"""What answering produces: candidates, rounds, sources, the answer and its trace (frozen, JSON round-trippable)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pikelocal.domain.kinds import AnswerMode, CandidateSource, Verdict
from pikelocal.domain.shown import shown_name


@dataclass(frozen=True)
class Candidate:
    """Something the selector may pick: an atomic question (or, in the chunk backup, a chunk) and its chunk."""

    chunk_id: int
    text: str  # the atomic question, or the chunk's opening words in the chunk backup
    score: float  # cosine similarity (atoms) or RRF score (chunks)
    source: CandidateSource
    question_id: int | None = None


@dataclass(frozen=True)
class Round:
    """One round of Algorithm 1: proposals → candidates → the pick → the chunk it adds."""

    number: int
    proposals: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    picked: int | None  # index into ``candidates``; None when the selector chose none
    chunk_added: int | None
    stop: str | None = None  # why the loop stopped after (or in) this round
    backup: str | None = None  # which backup found the candidates, when the sub-questions found none
    chunk_location: str | None = None  # where the added chunk is: "file, p. 3, lines 1–9"


@dataclass(frozen=True)
class Source:
    """A numbered piece of context the answer may cite: one chunk or a run of neighbouring chunks."""

    number: int
    doc_id: int
    path: str
    title: str | None
    chunk_ids: tuple[int, ...]
    page_start: int | None
    page_end: int | None
    line_start: int | None
    line_end: int | None
    section: tuple[str, ...]
    text: str
    # A compressed source (query/context/compress.py) keeps some sentences of its chunks' text: one (start in ``text``,
    # start in the whole text, length) per kept piece, the pieces joined by " … " or "\n…\n". Empty: the text is whole.
    pieces: tuple[tuple[int, int, int], ...] = ()
    summary_node: int | None = None  # a summary-tree node read as a source (its text is the summary; no chunk)

    def whole_offset(self, at: int) -> int:
        """Where character ``at`` of ``text`` stands in the uncompressed text (a separator: the next piece)."""
        for start, origin, length in self.pieces:
            if at < start + length:
                return origin + max(0, at - start)
        if self.pieces:
            start, origin, length = self.pieces[-1]
            return origin + length
        return at

    def heading(self) -> str:
        """``title › section › … (file, p. 3)``: what the model reads above a source."""
        parts = [self.title or self.path.replace("\\", "/").rsplit("/", 1)[-1], *self.section]
        where = f"p. {self.page_start}" if self.page_start is not None else ""
        return " › ".join(dict.fromkeys(p for p in parts if p)) + (f" ({where})" if where else "")

    def location(self) -> str:
        return location(self.path, (self.page_start, self.page_end), (self.line_start, self.line_end))


def location(path: str, pages: tuple[int | None, int | None], lines: tuple[int | None, int | None]) -> str:
    """``file, p. 12, lines 3–17``; across pages ``file, p. 12, line 30 – p. 13, line 4``."""
    name = shown_name(path.replace("\\", "/").rsplit("/", 1)[-1])
    (p0, p1), (l0, l1) = pages, lines
    if p0 is not None and p1 not in (None, p0):  # across pages: where it starts and where it ends
        if l0 is None or l1 is None:
            return f"{name}, pp. {p0}–{p1}"
        return f"{name}, p. {p0}, line {l0} – p. {p1}, line {l1}"
    parts = [name]
    if p0 is not None:
        parts.append(f"p. {p0}")
    if l0 is not None:
        parts.append(f"line {l0}" if l1 in (None, l0) else f"lines {l0}–{l1}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Evidence:
    """The source sentence (or table row) a claim was checked against, with where it stands."""

    source: int  # the source's number
    text: str
    page_start: int | None
    page_end: int | None
    line_start: int | None
    line_end: int | None
    path: str

    def location(self) -> str:
        return location(self.path, (self.page_start, self.page_end), (self.line_start, self.line_end))


@dataclass(frozen=True)
class ClaimCheck:
    """One claim of the model's answer and what checking it against the sources found."""

    text: str  # as the model wrote it (its own [n] included)
    verdict: Verdict
    reason: str  # one line: why (e.g. "20 is in the sources, but not beside 执行计划与预期成果")
    facts: tuple[str, ...] = ()  # the hard facts checked (numbers, dates, quoted names)
    model_cited: tuple[int, ...] = ()  # the [n] the model put on it
    evidence: Evidence | None = None  # supported: the supporting sentence; contradicted: the one that disagrees
    method: str = ""  # lexical | table-row | encoder | quote | claim | … | to_check (``TO_CHECK``)


# The method of an unsupported claim whose answer stands word for word in a quoted sentence that is not clearly about
# the question: kept in the trace for a reviewer to check (a review shows it as "to check"), never shown as found.
TO_CHECK = "to_check"


@dataclass(frozen=True)
class CallCost:
    """One LLM call made while answering."""

    tag: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool
    evaluated: int | None = None  # prompt tokens the model ran (after the reused KV prefix); None: not known

    @property
    def ran(self) -> int:
        """Prompt tokens this call ran now: 0 from the cache, all it sent where the backend did not say."""
        if self.cached:
            return 0
        return self.prompt_tokens if self.evaluated is None else self.evaluated


@dataclass(frozen=True)
class Answer:
    question: str
    mode: AnswerMode
    lang: str
    text: str  # with invalid citation numbers removed
    sources: tuple[Source, ...]
    cited: tuple[int, ...]  # source numbers the text cites, in order of first use
    removed_citations: int  # [n] markers that named no source
    unsupported: bool  # the answer says the documents do not state it
    matched: tuple[int, ...] = ()  # citations the model left out, added by matching sentences to sources
    claims: tuple[ClaimCheck, ...] = ()  # every claim of the model's answer with its verdict (empty: not checked)
    draft: str = ""  # the model's own answer before checking (``text`` is what checking kept)
    script: str = ""  # the question's script: hans | hant | en
    check_s: float = 0.0  # seconds spent checking claims


@dataclass(frozen=True)
class QueryTrace:
    """Everything about one question, stored in the KB's ``traces`` table."""

    question: str
    mode: AnswerMode
    rounds: tuple[Round, ...]
    answer: Answer
    calls: tuple[CallCost, ...]
    first_token_s: float | None  # from the question to the first answer token
    total_s: float
    model_id: str
    notes: tuple[str, ...] = ()  # e.g. "no atomic questions in this KB: backups used"
    context_chunks: tuple[int, ...] = field(default=())  # chunks gathered before expansion
    # summary-tree nodes read as sources (an overview question), as (node id, label) in the order read
    summary_nodes: tuple[tuple[int, str], ...] = field(default=())
    id: int | None = None
    created_at: str | None = None

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    @property
    def prompt_evaluated(self) -> int:
        """Prompt tokens the model ran for this question (sent tokens where a call did not say; 0 if cached)."""
        return sum(c.ran for c in self.calls)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("id")
        data.pop("created_at")
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, id: int | None = None, created_at: str | None = None) -> QueryTrace:
        a = data["answer"]
        answer = Answer(
            question=a["question"],
            mode=a["mode"],
            lang=a["lang"],
            text=a["text"],
            sources=tuple(_source(s) for s in a["sources"]),
            cited=tuple(a["cited"]),
            removed_citations=a["removed_citations"],
            unsupported=a["unsupported"],
            matched=tuple(a.get("matched", ())),
            claims=tuple(_claim(c) for c in a.get("claims", ())),
            draft=a.get("draft", ""),
            script=a.get("script", ""),
            check_s=a.get("check_s", 0.0),
        )
        rounds = tuple(
            Round(
                number=r["number"],
                proposals=tuple(r["proposals"]),
                candidates=tuple(Candidate(**c) for c in r["candidates"]),
                picked=r["picked"],
                chunk_added=r["chunk_added"],
                stop=r.get("stop"),
                backup=r.get("backup"),
                chunk_location=r.get("chunk_location"),
            )
            for r in data["rounds"]
        )
        return cls(
            question=data["question"],
            mode=data["mode"],
            rounds=rounds,
            answer=answer,
            calls=tuple(CallCost(**c) for c in data["calls"]),
            first_token_s=data["first_token_s"],
            total_s=data["total_s"],
            model_id=data["model_id"],
            notes=tuple(data.get("notes", ())),
            context_chunks=tuple(data.get("context_chunks", ())),
            summary_nodes=tuple((int(i), str(label)) for i, label in data.get("summary_nodes", ())),
            id=id,
            created_at=created_at,
        )


def _source(s: dict[str, Any]) -> Source:
    pieces = tuple((int(a), int(b), int(n)) for a, b, n in s.get("pieces", ()))
    return Source(**{**s, "chunk_ids": tuple(s["chunk_ids"]), "section": tuple(s["section"]), "pieces": pieces})


def _claim(c: dict[str, Any]) -> ClaimCheck:
    ev = c.get("evidence")
    return ClaimCheck(
        **{**c, "facts": tuple(c.get("facts", ())), "model_cited": tuple(c.get("model_cited", ())),
           "evidence": Evidence(**ev) if ev else None}
    )  # fmt: skip
