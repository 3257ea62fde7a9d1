"""What a caller asks of a knowledge base (the option objects of :class:`pikelocal.api.KnowledgeBase`'s methods).

A field left at ``None`` takes its value from the settings the KB was opened with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pikelocal.domain.kinds import AnswerMode, AnswerStyle, OcrMode, SearchMode, SegmentPreset


@dataclass(frozen=True)
class AddRequest:
    """How to ingest files and folders (the KB is created when missing)."""

    password: str | None = None  # for encrypted PDFs
    late: bool | None = None  # late-chunked vectors too (ingest.late)
    ocr: OcrMode | None = None  # which PDF pages are OCR'd: auto, always or never (ingest.ocr)
    enrich: bool = False  # then run enrichment on what is not yet enriched
    # read a symbolic link named in the paths (--follow-links); without it such a link fails with its reason, since
    # a shell glob (`folder/*`) names links nobody chose to trust. A link out of a walked folder is never followed.
    follow_links: bool = False


@dataclass(frozen=True)
class EnrichRequest:
    docs: Sequence[str] = ()  # only these documents (id, path, file name or sha256 prefix); empty: all
    limit: int | None = None  # at most this many chunks in this run (and summary-tree nodes)
    trees: bool | None = None  # build the summary trees; None: as enrich.trees says


@dataclass(frozen=True)
class SearchRequest:
    mode: SearchMode = "hybrid"
    k: int | None = None  # hits (search.k); for segments, the ranked chunks valued (search.candidates)
    preset: SegmentPreset | None = None  # segments: RSE's parameters (answer.segments)


@dataclass(frozen=True)
class AskRequest:
    mode: AnswerMode | None = None  # answer.mode
    rounds: int | None = None  # decomposition rounds at most (answer.rounds)
    style: AnswerStyle = "full"  # short: a phrase (benchmarks score it) instead of the full cited answer
    instruction: str = ""  # added to the answering rules (e.g. "Begin the answer with True or False.")
    check: bool | None = None  # check claims against the sources (answer.check)
