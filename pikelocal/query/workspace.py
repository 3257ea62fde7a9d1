"""The sources one decompose question reads, kept in the order they were gathered, and the prompts over them.

Every call of the question (propose, select, the answer) is laid out as one shared system text, then these sources,
then the question, then the call's own task. A new source is only ever appended, so each call's prompt extends the
previous call's prefix and the in-process model runs each source once per question (issue 15).

It starts with the question's own top search results (what the answer would read anyway, in at most half the
budget), so the planner sees them too and can stop at once when they already answer; the chunks the rounds pick
are appended, each with its neighbours, while the budget lasts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from pikelocal.domain.answers import Source
from pikelocal.llm.base import Message
from pikelocal.prompts.decompose import shared_user, sources_block
from pikelocal.prompts.lang import Lang
from pikelocal.query.expand import Budget, assemble, estimate_tokens
from pikelocal.store.store import Store

SOURCE_OVERHEAD_TOKENS = 12  # "[n] heading" and the blank line
MIN_ROOM_TOKENS = 80  # below this the budget counts as full: no round can add a useful source


@dataclass
class Workspace:
    store: Store
    lang: Lang
    system: str  # the shared system text (prompts.decompose.shared_system)
    budget: Budget
    sources: list[Source] = field(default_factory=list)
    used: int = 0  # estimated tokens of the sources so far

    @classmethod
    def start(cls, store: Store, lang: Lang, system: str, budget: Budget, initial: Sequence[int]) -> Workspace:
        """A workspace holding the ``initial`` chunks (search results, best first) within half the budget."""
        ws = cls(store, lang, system, budget)
        first = assemble(store, initial, Budget(budget.tokens // 2, budget.neighbours)) if initial else []
        for source in first:
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

    def add(self, chunk_id: int) -> list[Source]:
        """Append ``chunk_id`` (with the neighbours that fit and are not here yet); the sources added."""
        if chunk_id in self.chunk_ids or self.full:
            return []
        added = assemble(self.store, [chunk_id], Budget(self.room, self.budget.neighbours), exclude=self.chunk_ids)
        for source in added:
            self._append(source)
        return self.sources[len(self.sources) - len(added) :]

    def block(self) -> str:
        return sources_block([(s.number, s.heading(), s.text) for s in self.sources], self.lang)

    def messages(self, question: str, task: str) -> list[Message]:
        """The shared system text, the sources, the question, then ``task`` (an answer prompt's last line)."""
        return [Message("system", self.system), Message("user", shared_user(self.block(), question, self.lang, task))]

    def _append(self, source: Source) -> None:
        numbered = replace(source, number=len(self.sources) + 1)
        self.sources.append(numbered)
        self.used += estimate_tokens(numbered.heading()) + estimate_tokens(numbered.text) + SOURCE_OVERHEAD_TOKENS
