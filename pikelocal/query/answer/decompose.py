"""Knowledge-aware task decomposition (PIKE-RAG Algorithm 1): gather evidence one chosen chunk per round.

Each round the LLM proposes sub-questions given the question and the sources so far; each proposal retrieves
atomic questions (similarity ≥ threshold) and their chunks; the LLM picks the single most useful one (or none);
its chunk joins the sources. Backups when the sub-questions find nothing (or the KB has no atomic questions
yet): the question itself against the atomic-question index, then the sub-questions against the chunks.

The sources live in a :class:`~pikelocal.query.context.workspace.Workspace`, which starts with the question's own top
search results and only ever grows at its end, so every call extends the previous call's prompt.
Rounds that cannot add anything are not run: an empty proposal list ends the loop (the sources already answer),
a full budget ends it, and a pick with a single candidate and no "none" to choose needs no call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pikelocal.config import Settings
from pikelocal.domain.answers import Candidate, Round, location
from pikelocal.domain.kinds import StepKind
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM
from pikelocal.prompts.answer import answer_rules, answer_system
from pikelocal.prompts.base import Prompt, run_prompt
from pikelocal.prompts.decompose import SELECT_NONE, numbered, propose_prompt, select_prompt, shared_system
from pikelocal.query.context.expand import Budget
from pikelocal.query.context.workspace import Workspace
from pikelocal.query.retrieve.candidates import atom_candidates, chunk_candidates, with_graph_hops
from pikelocal.store.store import Store
from pikelocal.text.lang import Lang

StepSink = Callable[[int, StepKind, str], None]  # (round, kind, text)

STOP_ENOUGH = "no new sub-question: the sources are enough"
STOP_NO_CANDIDATE = "nothing found for the sub-questions"
STOP_NONE_PICKED = "the selector chose none of the candidates"
STOP_ROUNDS = "round limit reached"
STOP_BUDGET = "the context budget is full"
DEFAULT_BUDGET_TOKENS = 2000  # for the sources, when the caller gives no workspace (answer.context_tokens)


@dataclass(frozen=True)
class DecomposeOptions:
    """Algorithm 1's bounds. Made by :meth:`from_settings`: a field that a setting feeds has no default of its own."""

    rounds: int  # (answer.rounds)
    max_proposals: int  # sub-questions per round (answer.proposals)
    atoms_k: int  # atomic questions retrieved per sub-question (answer.atoms_k)
    threshold: float  # cosine similarity an atomic question needs to become a candidate (answer.threshold)
    graph_hops: int  # chunks one shared entity away added per candidate (answer.graph_hops; 0: off)
    max_candidates: int = 8  # shown to the selector
    chunk_k: int = 4  # chunks per sub-question in the chunk backup

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> DecomposeOptions:
        """The ``[answer]`` settings of Algorithm 1, with ``overrides`` (fields by name) on top."""
        a = settings.answer
        options = cls(a.rounds, a.proposals, a.atoms_k, a.threshold, a.graph_hops)
        return replace(options, **overrides)


@dataclass(frozen=True)
class Decomposition:
    rounds: tuple[Round, ...]
    chunk_ids: tuple[int, ...]  # gathered, in the order they were picked
    notes: tuple[str, ...]


def decompose(
    question: str,
    lang: Lang,
    store: Store,
    encoder: Encoder,
    llm: LLM,
    options: DecomposeOptions,
    on_step: StepSink | None = None,
    *,
    workspace: Workspace | None = None,
) -> Decomposition:
    """Run the rounds; the chunks picked are appended to ``workspace`` (whose sources the answer then reads).

    Without a workspace the rounds start from no sources, under the default answer rules.
    """
    step = on_step or (lambda _r, _k, _t: None)
    if workspace is None:
        system = shared_system(answer_system(lang), answer_rules(lang), lang)
        workspace = Workspace.start(store, lang, system, Budget(DEFAULT_BUDGET_TOKENS), ())
    loop = _Loop(question, lang, store, encoder, llm, options, step, workspace, store.chunks.question_count() > 0)
    if not loop.has_atoms:
        loop.notes.append(
            "the KB has no atomic questions yet (run `pikelocal enrich`): sub-questions searched the chunks"
        )
    propose = propose_prompt(options.max_proposals, workspace.system)
    for number in range(1, options.rounds + 1):
        if not loop.round(number, propose):
            break
    return Decomposition(tuple(loop.rounds), tuple(loop.gathered), tuple(loop.notes))


@dataclass
class _Loop:
    """The rounds' shared state: the question, the KB, the workspace, and what was asked, gathered and noted."""

    question: str
    lang: Lang
    store: Store
    encoder: Encoder
    llm: LLM
    options: DecomposeOptions
    step: StepSink
    workspace: Workspace
    has_atoms: bool
    notes: list[str] = field(default_factory=list)
    gathered: list[int] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)

    def round(self, number: int, propose: Prompt[tuple[str, ...]]) -> bool:
        """One round: propose sub-questions, find candidates, pick one and add its chunk. False: the loop stops."""
        if self.workspace.full:
            return self._stop(Round(number, (), (), None, None, stop=STOP_BUDGET))
        proposals = self._propose(number, propose)
        if not proposals:
            return self._stop(Round(number, (), (), None, None, stop=STOP_ENOUGH))
        self.asked.extend(p for p in proposals if p != self.question)
        self.step(number, "propose", " | ".join(proposals))
        exclude = self.workspace.chunk_ids
        candidates, backup = _candidates(
            self.store, self.encoder, self.question, proposals, self.has_atoms, exclude, self.options
        )
        if backup:
            self.step(number, "backup", backup)
        if not candidates:
            return self._stop(Round(number, proposals, (), None, None, stop=STOP_NO_CANDIDATE, backup=backup))
        pick = _select(
            self.llm, self.lang, self.question, self.workspace, candidates, self.notes, number,
            allow_none=bool(self.gathered),
        )  # fmt: skip
        if pick is None:
            stopped = Round(number, proposals, tuple(candidates), None, None, stop=STOP_NONE_PICKED, backup=backup)
            return self._stop(stopped)
        self._add(number, proposals, candidates, pick, backup)
        return True

    def _propose(self, number: int, propose: Prompt[tuple[str, ...]]) -> tuple[str, ...]:
        """The model's sub-questions over the sources so far; the question itself while there is nothing to read."""
        asked = self.asked
        fields = {
            "sources": self.workspace.block(),
            "question": self.question,
            "asked": numbered(asked, self.lang),
            "asked_list": tuple(asked),
            "max_q": self.options.max_proposals,
        }
        proposed = run_prompt(self.llm, propose, self.lang, fields)
        proposals = proposed.value or ()
        if proposed.error:
            self.notes.append(f"round {number}: the sub-question reply was unusable ({proposed.error})")
        if not proposals and not self.workspace.sources:
            proposals = (self.question,)  # nothing to read yet: search for the question itself
        return proposals

    def _add(
        self, number: int, proposals: tuple[str, ...], candidates: list[Candidate], pick: int, backup: str | None
    ) -> None:
        """The picked candidate's chunk joins the workspace (unless it is there already); the round recorded."""
        chosen = candidates[pick]
        added = self.workspace.add(
            chosen.chunk_id, [(c.chunk_id, c.score) for c in candidates], [*proposals, chosen.text]
        )
        where = _where(self.store, chosen.chunk_id) if added else None
        if added:
            self.gathered.append(chosen.chunk_id)
        stop = STOP_ROUNDS if number == self.options.rounds else None
        chunk_added = chosen.chunk_id if added else None
        self.rounds.append(Round(number, proposals, tuple(candidates), pick, chunk_added, stop, backup, where))
        self.step(number, "pick", f"{chosen.text} → {where}" if where else chosen.text)

    def _stop(self, stopped: Round) -> bool:
        self.rounds.append(stopped)
        self.step(stopped.number, "stop", stopped.stop or "")
        return False


def _where(store: Store, chunk_id: int) -> str | None:
    """The picked chunk's own place (its segment or its neighbours may have joined it in the source)."""
    found = store.chunks.get_chunks([chunk_id])
    if not found:
        return None
    chunk = found[0]
    doc = store.docs.get_document(chunk.doc_id)
    path = doc.path if doc else "?"
    return location(path, (chunk.page_start, chunk.page_end), (chunk.line_start, chunk.line_end))


def _candidates(
    store: Store,
    encoder: Encoder,
    question: str,
    proposals: Sequence[str],
    has_atoms: bool,
    exclude: set[int],
    options: DecomposeOptions,
) -> tuple[list[Candidate], str | None]:
    """Candidates for the proposals, or from the backups (question → atoms, then proposals → chunks)."""
    o = options
    if has_atoms:
        found = atom_candidates(
            store, encoder, proposals, k=o.atoms_k, threshold=o.threshold, exclude=exclude, limit=o.max_candidates
        )
        if found and o.graph_hops > 0:
            found = with_graph_hops(store, found, o.graph_hops, exclude, o.max_candidates)
        if found:
            return found, None
        found = atom_candidates(
            store, encoder, [question], k=o.atoms_k, threshold=o.threshold, exclude=exclude,
            limit=o.max_candidates, source="question",
        )  # fmt: skip
        if found:
            return found, "question → atomic questions"
    queries = list(dict.fromkeys([*proposals, question]))
    found = chunk_candidates(store, encoder, queries, k=o.chunk_k, exclude=exclude, limit=o.max_candidates)
    return found, "sub-questions → chunks"


def _select(
    llm: LLM,
    lang: Lang,
    question: str,
    workspace: Workspace,
    candidates: Sequence[Candidate],
    notes: list[str],
    number: int,
    *,
    allow_none: bool,
) -> int | None:
    if len(candidates) == 1 and not allow_none:
        return 0  # nothing to choose between: no call
    fields = {
        "sources": workspace.block(),
        "question": question,
        "candidates": numbered([c.text for c in candidates], lang),
        "n_candidates": len(candidates),
        "none": SELECT_NONE[lang] if allow_none else "",
    }
    prompt = select_prompt(len(candidates), workspace.system, allow_none=allow_none)
    result = run_prompt(llm, prompt, lang, fields)
    if result.error:  # a broken reply is not a considered "none": take the best-scored candidate
        notes.append(f"round {number}: the selection reply was unusable ({result.error}); took the top candidate")
        return 0
    return result.value
