"""Knowledge-aware task decomposition (PIKE-RAG Algorithm 1): gather evidence one chosen chunk per round.

Each round the LLM proposes sub-questions given the question and the evidence so far; each proposal retrieves
atomic questions (similarity ≥ threshold) and their chunks; the LLM picks the single most useful one (or none);
its chunk joins the evidence. Backups when the sub-questions find nothing (or the KB has no atomic questions
yet): the question itself against the atomic-question index, then the sub-questions against the chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM
from pikelocal.prompts.base import run_prompt
from pikelocal.prompts.decompose import SELECT_NONE, numbered, propose_prompt, select_prompt
from pikelocal.prompts.lang import Lang
from pikelocal.query.candidates import atom_candidates, chunk_candidates
from pikelocal.query.expand import estimate_tokens
from pikelocal.query.records import Candidate, Round, location
from pikelocal.store.records import ChunkRecord
from pikelocal.store.store import Store

StepSink = Callable[[int, str, str], None]  # (round, kind, text): "propose", "backup", "pick", "stop"

STOP_ENOUGH = "no new sub-question: the evidence is enough"
STOP_NO_CANDIDATE = "nothing found for the sub-questions"
STOP_NONE_PICKED = "the selector chose none of the candidates"
STOP_ROUNDS = "round limit reached"


@dataclass(frozen=True)
class DecomposeOptions:
    rounds: int = 5
    max_proposals: int = 3  # sub-questions per round
    atoms_k: int = 4  # atomic questions retrieved per sub-question
    threshold: float = 0.5  # cosine similarity an atomic question needs to become a candidate
    max_candidates: int = 8  # shown to the selector
    chunk_k: int = 4  # chunks per sub-question in the chunk backup
    evidence_tokens: int = 220  # of each gathered chunk shown to the proposer and selector


@dataclass(frozen=True)
class Decomposition:
    rounds: tuple[Round, ...]
    chunk_ids: tuple[int, ...]  # gathered, in the order they were picked
    notes: tuple[str, ...]


def evidence_text(chunks: Sequence[ChunkRecord], lang: Lang, tokens: int) -> str:
    """The gathered chunks as numbered lines, each cut to about ``tokens`` tokens."""
    items = []
    for c in chunks:
        text = " ".join(c.text.split())
        if estimate_tokens(text) > tokens:
            ratio = tokens / estimate_tokens(text)
            text = text[: max(40, int(len(text) * ratio))] + " …"
        section = " › ".join(c.section_path)
        items.append(f"({section}) {text}" if section else text)
    return numbered(items, lang)


def decompose(
    question: str,
    lang: Lang,
    store: Store,
    encoder: Encoder,
    llm: LLM,
    options: DecomposeOptions,
    on_step: StepSink | None = None,
) -> Decomposition:
    step = on_step or (lambda _r, _k, _t: None)
    has_atoms = store.question_count() > 0
    notes: list[str] = []
    if not has_atoms:
        notes.append("the KB has no atomic questions yet (run `pikelocal enrich`): sub-questions searched the chunks")
    gathered: list[ChunkRecord] = []
    asked: list[str] = []
    rounds: list[Round] = []
    propose = propose_prompt(options.max_proposals)
    for number in range(1, options.rounds + 1):
        evidence = evidence_text(gathered, lang, options.evidence_tokens)
        fields = {
            "question": question,
            "evidence": evidence,
            "asked": numbered(asked, lang),
            "asked_list": tuple(asked),
            "max_q": options.max_proposals,
        }
        proposed = run_prompt(llm, propose, lang, fields)
        proposals = proposed.value or ()
        if proposed.error:
            notes.append(f"round {number}: the sub-question reply was unusable ({proposed.error})")
        if not proposals and not gathered:
            proposals = (question,)  # nothing gathered yet: search for the question itself
        if not proposals:
            rounds.append(Round(number, (), (), None, None, stop=STOP_ENOUGH))
            step(number, "stop", STOP_ENOUGH)
            break
        asked.extend(p for p in proposals if p != question)
        step(number, "propose", " | ".join(proposals))
        exclude = {c.id for c in gathered}
        candidates, backup = _candidates(store, encoder, question, proposals, has_atoms, exclude, options)
        if backup:
            step(number, "backup", backup)
        if not candidates:
            rounds.append(Round(number, proposals, (), None, None, stop=STOP_NO_CANDIDATE, backup=backup))
            step(number, "stop", STOP_NO_CANDIDATE)
            break
        pick = _select(llm, lang, question, evidence, candidates, notes, number, allow_none=bool(gathered))
        if pick is None:
            rounds.append(Round(number, proposals, tuple(candidates), None, None, stop=STOP_NONE_PICKED, backup=backup))
            step(number, "stop", STOP_NONE_PICKED)
            break
        chosen = candidates[pick]
        where = _gather(store, chosen.chunk_id, gathered)
        stop = STOP_ROUNDS if number == options.rounds else None
        rounds.append(Round(number, proposals, tuple(candidates), pick, chosen.chunk_id, stop, backup, where))
        step(number, "pick", f"{chosen.text} → {where}" if where else chosen.text)
    return Decomposition(tuple(rounds), tuple(c.id for c in gathered), tuple(notes))


def _gather(store: Store, chunk_id: int, gathered: list[ChunkRecord]) -> str | None:
    """Add the chunk to the evidence; its location, or None when it vanished (a document removed meanwhile)."""
    found = store.get_chunks([chunk_id])
    if not found:
        return None
    chunk = found[0]
    gathered.append(chunk)
    doc = store.get_document(chunk.doc_id)
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
    evidence: str,
    candidates: Sequence[Candidate],
    notes: list[str],
    number: int,
    *,
    allow_none: bool,
) -> int | None:
    fields = {
        "question": question,
        "evidence": evidence,
        "candidates": numbered([c.text for c in candidates], lang),
        "n_candidates": len(candidates),
        "none": SELECT_NONE[lang] if allow_none else "",
    }
    result = run_prompt(llm, select_prompt(len(candidates), allow_none=allow_none), lang, fields)
    if result.error:  # a broken reply is not a considered "none": take the best-scored candidate
        notes.append(f"round {number}: the selection reply was unusable ({result.error}); took the top candidate")
        return 0
    return result.value
