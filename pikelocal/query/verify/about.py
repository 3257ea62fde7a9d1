"""Is a sentence about the question? Decided by meaning, not by shared words alone.

A Taiwanese tender answers 「本案採用何種評選方式？」 with 「本案採序位法，由各評審委員辦理序位評比」: the question says
評選 where the document says 評審, and 「履約期限」 is 「執行期程」 there. Counting the question's words in the sentence
(``support.focus_share``) withdraws such right answers. So a sentence is about the question when either

- the share of the question's focus terms in it (or its heading) is at least ``FOCUS_SHARE``, its terms aligned by
  the concept groups first (``text/concepts.py``: 押標金 and 投标保证金 are one term), or
- the encoder puts the sentence near the question (with the review item's label and hints, when there is one):
  cosine at least ``ABOUT_COSINE``, a threshold calibrated on labelled question–sentence pairs (BENCHMARKS
  "Checks that know what a sentence is about").

Between ``TO_CHECK_COSINE`` and ``ABOUT_COSINE`` a sentence that holds the answer is not clearly about the question:
a review shows such an answer as "to check", never as found. The hard test, that the answer's facts stand in the
sentence, is the caller's and is kept.

The encoder reads each sentence once per question (vectors are cached by text), and only the sentences that hold the
answer's facts are read at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from pikelocal.embed.base import Encoder

# Calibrated on labelled pairs (build/bench/calibrate_about.py; BENCHMARKS "Checks that know what a sentence is about").
ABOUT_COSINE = 0.45
# The lower edge of "to check", chosen on review replays (build/bench/calibrate_review.py; BENCHMARKS "The band of
# to check, narrowed"): below it a sentence is not about the question at all.
TO_CHECK_COSINE = 0.40
MAX_TEXT_CHARS = 400  # a sentence longer than this is read from its start (a table flattened into one "sentence")


def topical_query(question: str, topic: Sequence[str]) -> str:
    """The question as the encoder reads it: with a review item's terms after it, in brackets."""
    return question if not topic else f"{question} ({'; '.join(topic)})"


@dataclass
class Meaning:
    """The question (and the item it asks for) as the encoder reads it, and each sentence's similarity to it."""

    encoder: Encoder
    question: str
    topic: Sequence[str] = ()  # the review item's label and hints: what the question is about, in other words
    _q: NDArray[np.float32] | None = None
    _cache: dict[str, float] = field(default_factory=dict)

    def similarity(self, text: str) -> float:
        """The cosine between the question and ``text`` (cached per text)."""
        key = " ".join(text.split())[:MAX_TEXT_CHARS]
        if key not in self._cache:
            self.similarities([key])
        return self._cache[key]

    def similarities(self, texts: Sequence[str]) -> list[float]:
        """Cosines for several texts, the uncached ones encoded in one call."""
        keys = [" ".join(t.split())[:MAX_TEXT_CHARS] for t in texts]
        todo = list(dict.fromkeys(k for k in keys if k not in self._cache and k))
        if todo:
            vectors = self.encoder.encode(todo, role="passage")
            sims = vectors @ self._question_vector()
            self._cache.update(zip(todo, (float(s) for s in sims), strict=True))
        return [self._cache.get(k, 0.0) for k in keys]

    def _question_vector(self) -> NDArray[np.float32]:
        if self._q is None:
            self._q = self.encoder.encode([topical_query(self.question, self.topic)], role="query")[0]
        return self._q

    def about(self, text: str) -> bool:
        return self.similarity(text) >= ABOUT_COSINE

    def to_check(self, text: str) -> bool:
        """Near enough to show the answer for a reviewer to check, not near enough to count as found."""
        return self.similarity(text) >= TO_CHECK_COSINE
