"""Check the model's answer claim by claim while it streams: keep what a source sentence supports, cite that
sentence, drop the rest, and answer "not stated" when nothing survives (in the model's own words when it said so,
else a fixed sentence: the question is never cut into a phrase of what is missing).

The model's text is held back one claim at a time; a finished claim is checked (``query.verify.support``) and, when
supported, shown in the question's script with the number of the source that holds its evidence. Claims the
model itself marked "not stated" pass through; filler ("根据资料：") waits for a supported claim to follow it.
An optional encoder rescues claims without hard facts whose words differ from the source's (a paraphrase).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pikelocal.domain.answers import ClaimCheck, Source
from pikelocal.embed.base import Encoder
from pikelocal.prompts.answer import not_stated, says_not_stated
from pikelocal.query.verify.claims import (
    Claim,
    content_terms,
    facts_in,
    split_claims,
    states_a_blank,
    strip_markers,
)
from pikelocal.query.verify.support import (
    FOCUS_SHARE,
    Locator,
    Question,
    Unit,
    check_claim,
    evidence,
    focus_share,
    headings_terms,
    quoted_in,
    source_units,
)
from pikelocal.text.script import Script, convert

ENCODER_MIN_COSINE = 0.80  # claim vs. sentence, for claims without hard facts that lexical checks missed
ENCODER_CANDIDATES = 3
_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff]) +(?=[\u3400-\u9fff])")
_PARTIAL_MARKER = re.compile(r"\s*[\[【][\d,，、\s]*$")


@dataclass
class ClaimStream:
    """Feed the model's deltas; get the checked text to show. ``claims`` holds every verdict at the end."""

    question: str
    script: Script
    sources: Sequence[Source]
    locate: Locator | None = None
    encoder: Encoder | None = None
    claims: list[ClaimCheck] = field(default_factory=list)
    seconds: float = 0.0
    _draft: str = ""
    _done: int = 0  # offset in the draft up to which claims are checked
    _held: list[str] = field(default_factory=list)  # filler waiting for a supported claim
    _shown: list[str] = field(default_factory=list)
    _q: Question | None = None
    _units: list[Unit] = field(default_factory=list)
    _headings: dict[int, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        start = time.perf_counter()
        self._units = [u for s in self.sources for u in source_units(s)]
        self._q = Question.of(self.question)
        self._headings = headings_terms(self.sources)
        self.seconds += time.perf_counter() - start

    @property
    def draft(self) -> str:
        return self._draft

    @property
    def text(self) -> str:
        return "".join(self._shown).strip()

    @property
    def supported(self) -> list[ClaimCheck]:
        return [c for c in self.claims if c.verdict == "supported"]

    def feed(self, delta: str) -> str:
        self._draft += delta
        pending = split_claims(self._draft[self._done :], clauses=False)
        if len(pending) < 2 or _PARTIAL_MARKER.fullmatch(self._draft[self._done + pending[-1].start :]):
            return ""
        # Every sentence but the last is finished (a marker after a full stop is merged into its sentence); only
        # then is it cut into clauses, so a number still arriving ("9" of "90") cannot cut it.
        done = self._draft[self._done : self._done + pending[-2].end]
        return self._emit(split_claims(done), finished_at=self._done + pending[-2].end)

    def finish(self) -> str:
        out = self._emit(split_claims(self._draft[self._done :]), finished_at=len(self._draft))
        if self.supported:
            return out
        said = [c.text for c in self.claims if c.verdict == "not_stated"]
        # the model said so itself: its words (they name what is missing); else a fixed sentence
        text = "".join(self._script(strip_markers(s)).strip() for s in said) if said else not_stated(self.script)
        self._held.clear()
        self._shown.append(text)
        return out + text

    def _emit(self, claims: Sequence[Claim], finished_at: int) -> str:
        start = time.perf_counter()
        out: list[str] = []
        gap_from = 0
        for claim in claims:
            check = self._check(claim)
            self.claims.append(check)
            # a line break before a claim (a list, a new paragraph) stays when the claim does
            newline = "\n" if "\n" in self._draft[self._done + gap_from : self._done + claim.start] else ""
            gap_from = claim.end
            text = self._script(strip_markers(claim.text))
            if check.verdict == "filler":
                self._held.append(newline + text)
            elif check.verdict == "not_stated":
                if self.supported:  # beside supported claims, a "not stated" about one part is worth keeping
                    out.append(newline + text)
            elif check.verdict == "supported" and check.evidence is not None:
                out += self._held
                self._held.clear()
                out.append(newline + _cite(text, check.evidence.source))
        if out and not any(self._shown):
            out[0] = out[0].lstrip("\n")
        self._done = finished_at
        self.seconds += time.perf_counter() - start
        shown = "".join(out)
        self._shown.append(shown)
        return shown

    def _script(self, text: str) -> str:
        text = _CJK_GAP.sub("", text)  # the space a removed marker leaves between two Chinese characters
        return convert(text, self.script, keep=[s.text for s in self.sources])

    def _check(self, claim: Claim) -> ClaimCheck:
        assert self._q is not None
        body = strip_markers(claim.text)
        facts = tuple(f.text for f in facts_in(body))
        if says_not_stated(body):
            return ClaimCheck(claim.text, "not_stated", "the model says the documents do not state it", facts,
                              claim.cited)  # fmt: skip
        if states_a_blank(body):
            return ClaimCheck(claim.text, "unsupported", "the value it gives is a blank of the form (/)", facts,
                              claim.cited)  # fmt: skip
        if not facts and not content_terms(body):
            return ClaimCheck(claim.text, "filler", "no fact of its own", facts, claim.cited)
        found = check_claim(body, self._q, self._units, self._headings)
        if found.verdict == "unsupported" and not facts and self.encoder is not None:
            rescued = self._by_encoder(body)
            if rescued is not None:
                return ClaimCheck(claim.text, "supported", "", facts, claim.cited, evidence(rescued, self.locate),
                                  "encoder")  # fmt: skip
        ev = evidence(found.unit, self.locate) if found.unit is not None else None
        return ClaimCheck(claim.text, found.verdict, found.reason, facts, claim.cited, ev, found.method)  # type: ignore[arg-type]

    def _by_encoder(self, claim: str) -> Unit | None:
        """The unit the question is about that is closest in meaning to the claim, when close enough."""
        assert self._q is not None and self.encoder is not None
        about = [
            u
            for u in self._units
            if quoted_in(self._q, u) and focus_share(self._q, u, self._headings[u.source.number]) >= FOCUS_SHARE
        ]
        terms = content_terms(claim)
        about.sort(key=lambda u: len(terms & u.terms), reverse=True)
        about = about[:ENCODER_CANDIDATES]
        if not about:
            return None
        vectors = self.encoder.encode([claim, *(u.text for u in about)], role="passage")
        sims = vectors[1:] @ vectors[0]
        best = int(np.argmax(sims))
        return about[best] if float(sims[best]) >= ENCODER_MIN_COSINE else None


def _cite(text: str, number: int) -> str:
    """``text [n]`` with the marker before the sentence's closing punctuation and its trailing space kept."""
    stripped = text.rstrip()
    tail = text[len(stripped) :]
    body = stripped.rstrip("。！？；!?;.，,")
    end = stripped[len(body) :]
    return f"{body} [{number}]{end}{tail}"
