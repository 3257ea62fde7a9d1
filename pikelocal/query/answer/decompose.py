"""Knowledge-aware task decomposition (PIKE-RAG Algorithm 1): gather evidence one chosen chunk per round.

Each round the LLM proposes sub-questions given the question and the sources so far; each proposal retrieves
atomic questions (similarity ≥ threshold) and their chunks; the LLM picks the single most useful one (or none);
its chunk joins the sources. Backups when the sub-questions find nothing (or the KB has no atomic questions
yet): the question itself against the atomic-question index, then the sub-questions against the chunks.

The sources live in a :class:`~pikelocal.query.context.workspace.Workspace`, which starts with the question's own top
search results and only ever grows at its end, so every call extends the previous call's prompt (issue 15).
Rounds that cannot add anything are not run: an empty proposal list ends the loop (the sources already answer),
a full budget ends it, and a pick with a single candidate and no "none" to choose needs no call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pikelocal.domain.answers import Candidate, Round, location
from pikelocal.domain.kinds import StepKind
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM
from pikelocal.prompts.answer import answer_rules, answer_system
from pikelocal.prompts.base import run_prompt
from pikelocal.prompts.decompose import SELECT_NONE, numbered, propose_prompt, select_prompt, shared_system
from pikelocal.prompts.lang import Lang
from pikelocal.query.context.expand import Budget
from pikelocal.query.context.workspace import Workspace
from pikelocal.query.retrieve.candidates import atom_candidates, chunk_candidates, with_graph_hops
from pikelocal.store.store import Store

StepSink = Callable[[int, StepKind, str], None]  # (round, kind, text)

STOP_ENOUGH = "no new sub-question: the sources are enough"
STOP_NO_CANDIDATE = "nothing found for the sub-questions"
STOP_NONE_PICKED = "the selector chose none of the candidates"
STOP_ROUNDS = "round limit reached"
STOP_BUDGET = "the context budget is full"
DEFAULT_BUDGET_TOKENS = 2000  # for the sources, when the caller gives no workspace (answer.context_tokens)


@dataclass(frozen=True)
class DecomposeOptions:
    rounds: int = 5
    max_proposals: int = 3  # sub-questions per round
    atoms_k: int = 4  # atomic questions retrieved per sub-question
    threshold: float = 0.5  # cosine similarity an atomic question needs to become a candidate
    max_candidates: int = 8  # shown to the selector
    chunk_k: int = 4  # chunks per sub-question in the chunk backup
    graph_hops: int = 0  # chunks one shared entity away added per candidate (answer.graph_hops; 0: off)


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
    has_atoms = store.chunks.question_count() > 0
    notes: list[str] = []
    if not has_atoms:
        notes.append("the KB has no atomic questions yet (run `pikelocal enrich`): sub-questions searched the chunks")
    gathered: list[int] = []
    asked: list[str] = []
    rounds: list[Round] = []
    propose = propose_prompt(options.max_proposals, workspace.system)
    for number in range(1, options.rounds + 1):
        if workspace.full:
            rounds.append(Round(number, (), (), None, None, stop=STOP_BUDGET))
            step(number, "stop", STOP_BUDGET)
            break
        fields = {
            "sources": workspace.block(),
            "question": question,
            "asked": numbered(asked, lang),
            "asked_list": tuple(asked),
            "max_q": options.max_proposals,
        }
        proposed = run_prompt(llm, propose, lang, fields)
        proposals = proposed.value or ()
        if proposed.error:
            notes.append(f"round {number}: the sub-question reply was unusable ({proposed.error})")
        if not proposals and not workspace.sources:
            proposals = (question,)  # nothing to read yet: search for the question itself
        if not proposals:
            rounds.append(Round(number, (), (), None, None, stop=STOP_ENOUGH))
            step(number, "stop", STOP_ENOUGH)
            break
        asked.extend(p for p in proposals if p != question)
        step(number, "propose", " | ".join(proposals))
        exclude = workspace.chunk_ids
        candidates, backup = _candidates(store, encoder, question, proposals, has_atoms, exclude, options)
        if backup:
            step(number, "backup", backup)
        if not candidates:
            rounds.append(Round(number, proposals, (), None, None, stop=STOP_NO_CANDIDATE, backup=backup))
            step(number, "stop", STOP_NO_CANDIDATE)
            break
        pick = _select(llm, lang, question, workspace, candidates, notes, number, allow_none=bool(gathered))
        if pick is None:
            rounds.append(Round(number, proposals, tuple(candidates), None, None, stop=STOP_NONE_PICKED, backup=backup))
            step(number, "stop", STOP_NONE_PICKED)
            break
        chosen = candidates[pick]
        added = workspace.add(chosen.chunk_id, [(c.chunk_id, c.score) for c in candidates], [*proposals, chosen.text])
        where = _where(store, chosen.chunk_id) if added else None
        if added:
            gathered.append(chosen.chunk_id)
        stop = STOP_ROUNDS if number == options.rounds else None
        chunk_added = chosen.chunk_id if added else None
        rounds.append(Round(number, proposals, tuple(candidates), pick, chunk_added, stop, backup, where))
        step(number, "pick", f"{chosen.text} → {where}" if where else chosen.text)
    return Decomposition(tuple(rounds), tuple(gathered), tuple(notes))


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
