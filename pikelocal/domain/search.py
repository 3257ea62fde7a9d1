"""What a search returns: ranked chunks with a snippet of the matched text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pikelocal.domain.documents import ChunkRecord, DocumentRecord


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
    ranks: Mapping[str, int]  # 1-based rank of this chunk in each source ranking that found it
    snippet: Snippet
