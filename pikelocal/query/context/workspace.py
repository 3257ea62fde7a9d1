"""The sources one decompose question reads, kept in the order they were gathered, and the prompts over them.

Every call of the question (propose, select, the answer) is laid out as one shared system text, then these sources,
then the question, then the call's own task. A new source is only ever appended, so each call's prompt extends the
previous call's prefix and the in-process model runs each source once per question.

It starts with the question's own top search results (what the answer would read anyway, in at most half the
budget), so the planner sees them too and can stop at once when they already answer; the chunks the rounds pick
are appended while the budget lasts, each with what ``answer.context`` adds: the segment holding it (the round's
other candidates next to it valued as RSE values a ranking), or its neighbours.

With a ``compress`` function (``answer.compress_tokens``, query/context/compress.py) the sources are appended whole
while they fit within ``whole_tokens``, the budget naive compresses its whole context to. Past it, each batch is cut as
it is appended to its sentences nearest the question (and, for a round's pick, that round's sub-questions and the
atomic question picked), keeping at least the room left under that budget. A source is never cut later, so the
prefix stays stable, and the rounds have more room. Cutting the question's own top results at once, as it first
did, lost the tender's 1,095-day term from the two sources a stopped loop answered from, where naive with the same
budget kept it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pikelocal.domain.answers import Source
from pikelocal.llm.base import Message
from pikelocal.prompts.decompose import shared_user, sources_block
from pikelocal.query.context.expand import SOURCE_OVERHEAD_TOKENS, Budget, Ranking, assemble, estimate_tokens
from pikelocal.store.store import Store
from pikelocal.text.lang import Lang

MIN_ROOM_TOKENS = 80  # below this the budget counts as full: no round can add a useful source
# (sources, queries, tokens it may keep at least) → the kept sentences
Compress = Callable[[Sequence[Source], Sequence[str], int], list[Source]]


@dataclass
class Workspace:
    store: Store
    lang: Lang
    system: str  # the shared system text (prompts.decompose.shared_system)
    budget: Budget
    sources: list[Source] = field(default_factory=list)
    used: int = 0  # estimated tokens of the sources so far
    compress: Compress | None = None
    question: str = ""  # what every compression keeps sentences for
    whole_tokens: int = 0  # with ``compress``: sources are appended whole while ``used`` stays within this

    @classmethod
    def start(
        cls,
        store: Store,
        lang: Lang,
        system: str,
        budget: Budget,
        initial: Sequence[int],
        ranking: Ranking | None = None,
        *,
        compress: Compress | None = None,
        question: str = "",
        whole_tokens: int = 0,
    ) -> Workspace:
        """A workspace holding the ``initial`` chunks (search results, best first) within half the budget; in
        segments mode the segments of ``ranking`` (the search's whole ranking, with scores) when given."""
        ws = cls(store, lang, system, budget, compress=compress, question=question, whole_tokens=whole_tokens)
        half = replace(budget, tokens=budget.tokens // 2)
        first = assemble(store, initial, half, ranking=ranking) if initial else []
        for source in ws._compressed(first, [question]):
            ws._append(source)
        return ws

    @property
    def chunk_ids(self) -> set[int]:
        return {cid for s in self.sources for cid in s.chunk_ids}

    @property
    def room(self) -> int:
        return self.budget.tokens - self.used

    @property
    def full(self) -> bool:
        return self.room < MIN_ROOM_TOKENS

    def add(self, chunk_id: int, others: Ranking = (), queries: Sequence[str] = ()) -> list[Source]:
        """Append ``chunk_id`` with what fits and is not here yet: the best segment holding it, valued with the
        ``others`` (the round's candidates, with their scores), or its neighbours; the sources added. With
        compression they keep the sentences nearest the question and ``queries`` (the round's)."""
        if chunk_id in self.chunk_ids or self.full:
            return []
        ranking = [(chunk_id, None), *others]  # the pick first: it counts as the top chunk
        room = replace(self.budget, tokens=self.room)
        added = assemble(self.store, [chunk_id], room, exclude=self.chunk_ids, ranking=ranking, first_only=True)
        added = self._compressed(added, [self.question, *queries])
        for source in added:
            self._append(source)
        return self.sources[len(self.sources) - len(added) :]

    def block(self) -> str:
        return sources_block([(s.number, s.heading(), s.text) for s in self.sources], self.lang)

    def messages(self, question: str, task: str) -> list[Message]:
        """The shared system text, the sources, the question, then ``task`` (an answer prompt's last line)."""
        return [Message("system", self.system), Message("user", shared_user(self.block(), question, self.lang, task))]

    def _compressed(self, added: list[Source], queries: Sequence[str]) -> list[Source]:
        """``added`` whole while the sources with it fit ``whole_tokens``; else cut by ``compress``, which may keep
        what room is left under ``whole_tokens``."""
        if not added or self.compress is None:
            return added
        room = self.whole_tokens - self.used
        return added if self._cost(added) <= room else self.compress(added, queries, max(0, room))

    @staticmethod
    def _cost(sources: Sequence[Source]) -> int:
        return sum(estimate_tokens(s.heading()) + estimate_tokens(s.text) + SOURCE_OVERHEAD_TOKENS for s in sources)

    def _append(self, source: Source) -> None:
        numbered = replace(source, number=len(self.sources) + 1)
        self.sources.append(numbered)
        self.used += self._cost([numbered])
