"""Answer a question in one of three modes and record how: naive, hier (direct + via atomic questions), decompose.

naive     top-k chunks by hybrid search over the chunks themselves (the paper's Naive RAG w/ R)
hier      those chunks plus the chunks reached through their atomic questions, interleaved (Naive RAG w/ H-R)
decompose Algorithm 1 (``query.answer.decompose``): the naive chunks first (half the budget), then the chunks it picked,
          all in one growing prompt prefix (``query.context.workspace``)
naive and hier assemble their sources within a token budget (``query.context.expand``: relevant segments of the search's
whole ranking, or the chunks with their neighbours); every mode answers with citations.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pikelocal.config import Settings
from pikelocal.domain.answers import Answer, QueryTrace, Source
from pikelocal.domain.events import AnswerDelta, EventSink, ReasoningStep, ignore
from pikelocal.domain.kinds import AnswerContext, AnswerMode, AnswerStyle, FusionMethod, StepKind
from pikelocal.domain.search import Hit
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM, Message
from pikelocal.prompts.answer import answer_rules, answer_system, answer_task
from pikelocal.prompts.decompose import shared_system
from pikelocal.query.answer.chain_hop import chain_answer
from pikelocal.query.answer.decompose import DecomposeOptions, Decomposition, decompose
from pikelocal.query.answer.generate import AnswerRequest, CallLog, Checking, RecordingLLM, generate_answer
from pikelocal.query.answer.hop_plan import Chain, Plan, hop_plan
from pikelocal.query.answer.provision import asked_article
from pikelocal.query.answer.second_hop import HopOptions, hop_answer
from pikelocal.query.answer.select import selected_answer, statement_options
from pikelocal.query.context.compress import compress_sources
from pikelocal.query.context.expand import Budget, Ranking, assemble, estimate_tokens
from pikelocal.query.context.locate import store_locator
from pikelocal.query.context.segments import PRESETS, SegmentParams
from pikelocal.query.context.workspace import Compress, Workspace
from pikelocal.query.retrieve.rerank import rerank
from pikelocal.query.retrieve.search import search
from pikelocal.query.retrieve.summaries import search_summaries, summary_sources
from pikelocal.store.store import Store
from pikelocal.text.lang import Lang, detect_lang
from pikelocal.text.question_kind import ValueAsked, asked_value, is_overview
from pikelocal.text.script import Script, detect_script

CHUNKS_ONLY = {"questions": 0.0}
PROMPT_OVERHEAD_TOKENS = 500  # rules, question and headings around the sources


@dataclass(frozen=True)
class AskOptions:
    """How :func:`ask` answers. Made by :meth:`from_settings` (a caller's choices on top): a field that a setting
    feeds has no default of its own, so it cannot disagree with the setting's."""

    mode: AnswerMode  # (answer.mode)
    k: int  # chunks retrieved by naive (and by each path of hier) (answer.k)
    decompose: DecomposeOptions  # Algorithm 1 (answer.rounds, proposals, atoms_k, threshold, graph_hops)
    neighbours: int  # context "neighbours": chunks added on each side of a gathered one (answer.neighbours)
    context: AnswerContext  # how the sources are chosen (answer.context)
    segments: SegmentParams  # RSE's parameters (answer.segments)
    ranking: int  # context "segments": chunks of the search's ranking RSE values (search.candidates)
    context_tokens: int  # for the sources; also capped by the model's context window (answer.context_tokens)
    # keep only the sentences nearest the question: naive and hier at most this many tokens; decompose appends its
    # sources whole while they fit this many, then cuts each at this share of context_tokens (0: off)
    compress_tokens: int  # (answer.compress_tokens)
    rerank: int  # the search's top hits the LLM reorders before the context is built (answer.rerank; 0: off)
    follow_refs: int  # article chunks the sources cite, added to the context (answer.follow_refs; 0: off)
    # an overview question ("summarise …", "what are all the …") first reads this many summary-tree nodes
    # (answer.tree_nodes; 0: off); naive and hier only
    tree_nodes: int
    max_tokens: int  # of the answer (answer.max_tokens)
    weights: dict[str, float] | None  # hybrid fusion weights (search.*_weight; None: search's own)
    fusion: FusionMethod  # how hybrid fuses (search.fusion)
    hops: int  # fact hops after the search's first hits (search.hops)
    hop_similarity: float  # (search.hop_similarity)
    check: bool  # check each claim against the sources (answer.check)
    check_encoder: bool  # let the encoder rescue paraphrased claims (answer.check_encoder)
    cite_grammar: bool  # force a [n] after each sentence with a grammar (answer.cite_grammar)
    quote: bool  # naive and hier: quote, then answer (answer.quote; query/answer/quoted.py)
    hop: bool  # naive, with quote: comparisons and compositions hop by hop (answer.hop; query/answer/second_hop.py)
    # naive and hier: a question asking for a figure answered by choosing among the KB's statements
    # (answer.select; query/answer/select.py)
    select: bool
    # What a request adds; no setting feeds these.
    style: AnswerStyle = "full"
    instruction: str = ""
    # A review item's hints (review/checklist.py): searched with the question, never shown to the model
    search_terms: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] | None = None  # only these documents' chunks are searched (None: all)
    value_kind: ValueAsked | None = None  # a review item's kind of figure (None: told from the question's words)

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> AskOptions:
        """The ``[answer]`` and ``[search]`` settings as options, with ``overrides`` (fields by name) on top."""
        a, s = settings.answer, settings.search
        options = cls(
            mode=a.mode, k=a.k, decompose=DecomposeOptions.from_settings(settings), neighbours=a.neighbours,
            context=a.context, segments=PRESETS[a.segments], ranking=s.candidates, context_tokens=a.context_tokens,
            compress_tokens=a.compress_tokens, rerank=a.rerank, follow_refs=a.follow_refs, tree_nodes=a.tree_nodes,
            max_tokens=a.max_tokens, weights=s.weights(), fusion=s.fusion, hops=s.hops,
            hop_similarity=s.hop_similarity, check=a.check, check_encoder=a.check_encoder,
            cite_grammar=a.cite_grammar, quote=a.quote, hop=a.hop, select=a.select,
        )  # fmt: skip
        return replace(options, **overrides)


def context_budget(options: AskOptions, llm: LLM) -> Budget:
    room = llm.context_tokens - options.max_tokens - PROMPT_OVERHEAD_TOKENS
    tokens = max(256, min(options.context_tokens, room))
    return Budget(tokens, options.neighbours, options.context, options.segments)


def _search(store: Store, encoder: Encoder, question: str, options: AskOptions, weights: dict[str, float]) -> list[Hit]:
    """The question's hybrid search (with the options' extra search terms), as deep as the context assembly needs,
    with the settings' fact hops; only the options' documents when it names some (each ranking choosing among
    their chunks: ``search``'s ``doc_ids``)."""
    depth = ranking_depth(options)
    query = " ".join([question, *options.search_terms])
    wanted = options.doc_ids
    hits = search(
        store, encoder, query, k=depth, weights=weights, fusion=options.fusion, hops=options.hops,
        hop_similarity=options.hop_similarity, doc_ids=wanted,
    )  # fmt: skip
    if options.search_terms:  # the terms alone by BM25 too: a question's words can bury the one line with the term
        alone = search(store, encoder, " ".join(options.search_terms), mode="bm25", k=depth * 2, doc_ids=wanted)
        by_id = {h.chunk.id: h for h in [*hits, *alone]}
        order = _interleave([h.chunk.id for h in hits], [h.chunk.id for h in alone])
        hits = [by_id[cid] for cid in order]
    return hits[:depth]


def ranking_depth(options: AskOptions) -> int:
    """How many search results to take: RSE values a whole ranking; neighbours needs only the ``k`` gathered (and
    the reranker its ``rerank`` to reorder)."""
    depth = max(options.k, options.ranking) if options.context == "segments" else options.k
    return max(depth, options.rerank)


def ask(
    store: Store,
    encoder: Encoder,
    llm: LLM,
    question: str,
    options: AskOptions,
    sink: EventSink = ignore,
    *,
    save: bool = True,
) -> QueryTrace:
    """Answer ``question`` from the KB; stream deltas and reasoning steps to ``sink``; store the trace.

    Stages: the question read (its language, script and the search's weights), the mode's sources gathered and
    answered (one function per mode, each returning what it read and answered), the trace built and stored."""
    question = " ".join(question.split())
    stream = _Stream(time.perf_counter(), sink)
    log = CallLog()
    run = _Run.start(store, encoder, llm, RecordingLLM(llm, log), question, options)
    plan = _hop_plan(question, options)
    chained = _hop_mode(run, plan, stream) if isinstance(plan, Chain) else None  # a chain before a figure's pick
    selected = _select_mode(run, stream) if options.select and options.mode != "decompose" and not chained else None
    if chained is not None:
        answered = chained
    elif selected is not None:
        answered = selected
    elif options.mode == "decompose":
        answered = _decompose_mode(run, stream)
    elif plan is not None and not isinstance(plan, Chain) and (hopped := _hop_mode(run, plan, stream)) is not None:
        answered = hopped
    elif options.mode == "hier":
        answered = _hier_mode(run, stream)
    else:
        answered = _naive_mode(run, stream)
    trace = _trace(run, answered, log, stream)
    if save and not store.readonly:
        trace_id = store.traces.save_trace(question, json.dumps(trace.to_dict(), ensure_ascii=False))
        trace = replace(trace, id=trace_id)
    return trace


@dataclass(frozen=True)
class _Run:
    """One question being answered: the KB, the models, the options and what every stage reads of the question."""

    store: Store
    encoder: Encoder
    llm: LLM  # the model itself: its context window and id
    model: RecordingLLM  # the same model, each call recorded for the trace
    options: AskOptions
    question: str
    lang: Lang
    script: Script
    weights: dict[str, float]  # hybrid's weights over the chunks themselves

    @classmethod
    def start(
        cls, store: Store, encoder: Encoder, llm: LLM, model: RecordingLLM, question: str, options: AskOptions
    ) -> _Run:
        weights = {**(options.weights or {}), **CHUNKS_ONLY}
        return cls(
            store, encoder, llm, model, options, question, detect_lang(question), detect_script(question), weights
        )

    def ranking(self) -> tuple[list[Hit], Ranking]:
        """The question's search and its ranking (the first ``rerank`` hits reordered by the LLM)."""
        hits = _search(self.store, self.encoder, self.question, self.options, self.weights)
        return hits, _ranked(self.model, self.question, hits, self.options.rerank, self.lang)


@dataclass
class _Stream:
    """The answer's deltas on their way to the sink, and when the first one came."""

    start: float
    sink: EventSink
    first_token_s: float | None = None

    def on_delta(self, text: str) -> None:
        if self.first_token_s is None:
            self.first_token_s = time.perf_counter() - self.start
        self.sink(AnswerDelta(text))


@dataclass(frozen=True)
class Answered:
    """What one mode read and answered: the trace is made of it."""

    answer: Answer
    priority: list[int]  # the chunks gathered, the most useful first
    fill: list[int] = field(default_factory=list)  # decompose: the question's own top chunks, read first
    read: list[Source] = field(default_factory=list)  # summary-tree nodes read first (an overview question)
    decomposition: Decomposition = field(default_factory=lambda: Decomposition((), (), ()))


def _hop_plan(question: str, options: AskOptions) -> Plan | None:
    """Naive's system-driven second hop, with quote; a review item (search terms, some documents) keeps the one
    search its options describe."""
    hopping = options.hop and options.quote and options.mode == "naive" and not options.search_terms
    return hop_plan(question) if hopping and options.doc_ids is None else None


def _decompose_mode(run: _Run, stream: _Stream) -> Answered:
    """Algorithm 1. The question's own top chunks are read first (so a loop that stops early, as a small model often
    does, still answers from at least what naive retrieval finds); the rounds append what they pick. Every call
    reads the same growing prefix (query.context.workspace)."""
    options, lang, sink = run.options, run.lang, stream.sink
    step: Callable[[int, StepKind, str], None] = lambda r, kind, text: sink(ReasoningStep(r, kind, text))  # noqa: E731
    _hits, ranking = run.ranking()
    fill = [cid for cid, _ in ranking[: options.k]]
    fill += run.store.refs.cited_by(fill, options.follow_refs)
    rules = answer_rules(lang, style=options.style, instruction=options.instruction, script=run.script)
    system = shared_system(answer_system(lang), rules, lang)
    workspace = Workspace.start(
        run.store, lang, system, context_budget(options, run.llm), fill, ranking,
        compress=_compressor(run.encoder, options), question=run.question, whole_tokens=options.compress_tokens,
    )  # fmt: skip
    decomposition = decompose(
        run.question, lang, run.store, run.encoder, run.model, options.decompose, step, workspace=workspace
    )
    priority = list(decomposition.chunk_ids)
    if not priority:
        note = "no chunk was picked: answered from the top search results"
        decomposition = replace(decomposition, notes=(*decomposition.notes, note))
    sources = list(workspace.sources)
    messages = workspace.messages(run.question, answer_task(lang))
    answer = _generate(run, sources, stream, messages=messages)
    return Answered(answer, priority, fill=fill, decomposition=decomposition)


def _select_mode(run: _Run, stream: _Stream) -> Answered | None:
    """A question asking for a figure (a review item's kind, or its words) answered by choosing among the KB's
    statements of that kind (query/answer/select.py); None when it asks for none, the KB holds no statement of the
    kind for it, or the model's pick is no answer (none of these, or a statement naming none of the question's
    concepts): the question is then read as any other. Answering those "not stated" instead lost on every review
    sheet measured (BENCHMARKS "Figures the system reads, the model only picks"): the model seldom says none."""
    kind = run.options.value_kind or asked_value(run.question)
    if kind is None:
        return None
    options = statement_options(
        run.store, run.encoder, run.question, kind, run.options.search_terms, run.options.doc_ids
    )
    if not options:
        return None
    docs = {d.id: (d.path, d.title or "") for d in run.store.docs.documents()}
    answer = selected_answer(
        run.model, run.question, run.lang, run.script, options, lambda doc: docs.get(doc, ("", "")), stream.on_delta
    )
    if answer.unsupported:  # none chosen, or a pick to check: the question is read as any other
        return None
    return Answered(answer, [])


def _hop_mode(run: _Run, plan: Plan, stream: _Stream) -> Answered | None:
    """A comparison or composition (query/answer/second_hop.py), or one of the product's chains
    (query/answer/chain_hop.py), answered hop by hop, each hop searching for itself; the chunks gathered are those
    its sources came from. None: a chain whose first hop found nothing to go on (the ordinary path answers)."""
    checking = _checking(run)
    hop = HopOptions(weights=run.weights, fusion=run.options.fusion)
    if isinstance(plan, Chain):
        chained = chain_answer(
            run.store, run.encoder, run.model, run.question, plan, stream.on_delta, options=hop,
            script=run.script, locator=checking.locate,
        )  # fmt: skip
        if chained is None:
            return None
        answer = chained
    else:
        answer = hop_answer(
            run.store, run.encoder, run.model, run.question, plan, stream.on_delta, options=hop, locator=checking.locate
        )
    return Answered(answer, list(dict.fromkeys(c for s in answer.sources for c in s.chunk_ids)))


def _naive_mode(run: _Run, stream: _Stream) -> Answered:
    """The search's first ``k`` chunks (and what the ranking values, for segments)."""
    _hits, ranking = run.ranking()
    return _read_and_answer(run, [cid for cid, _ in ranking[: run.options.k]], ranking, stream)


def _hier_mode(run: _Run, stream: _Stream) -> Answered:
    """The search's first ``k`` chunks interleaved with the chunks the nearest atomic questions lead to."""
    hits, ranking = run.ranking()
    direct = [cid for cid, _ in ranking[: run.options.k]]
    via = search(run.store, run.encoder, run.question, mode="questions", k=run.options.k, doc_ids=run.options.doc_ids)
    priority = _interleave(direct, [h.chunk.id for h in via])
    # two rankings' scores do not compare: the interleaved order, then the rest of the search's, by rank
    ranking = [(cid, None) for cid in dict.fromkeys([*priority, *(h.chunk.id for h in hits)])]
    return _read_and_answer(run, priority, ranking, stream)


def _read_and_answer(run: _Run, priority: list[int], ranking: Ranking, stream: _Stream) -> Answered:
    """Naive's and hier's sources within the budget: the gathered chunks, the articles they cite, an overview
    question's summary-tree nodes first; compressed to ``compress_tokens``; then the answer."""
    options = run.options
    priority, ranking = _with_cited(run.store, priority, ranking, options.follow_refs)
    budget = context_budget(options, run.llm)
    read: list[Source] = []
    if options.tree_nodes > 0 and is_overview(run.question):
        read = summary_sources(
            run.store,
            search_summaries(run.store, run.encoder, run.question, options.tree_nodes, options.doc_ids),
            run.lang,
        )
        budget = replace(budget, tokens=max(256, budget.tokens - sum(estimate_tokens(s.text) for s in read)))
    sources = assemble(run.store, priority, budget, [], ranking=ranking)
    if options.compress_tokens > 0:
        sources = compress_sources(sources, run.encoder, [run.question], options.compress_tokens)
    if read:  # the tree's nodes first: the overview, then the passages that bear it out
        overview = [replace(s, number=n) for n, s in enumerate(read, 1)]
        sources = overview + [replace(s, number=len(read) + s.number) for s in sources]
    return Answered(_generate(run, sources, stream), priority, read=read)


def _with_cited(store: Store, priority: list[int], ranking: Ranking, follow: int) -> tuple[list[int], Ranking]:
    """The articles the gathered chunks cite, read after them (segments: ranked right after the gathered ones)."""
    cited = store.refs.cited_by(priority, follow)
    if not cited:
        return priority, ranking
    rest = [(cid, s) for cid, s in ranking if cid not in cited]
    ranking = [*rest[: len(priority)], *((cid, None) for cid in cited), *rest[len(priority) :]]
    return [*priority, *cited], ranking


def _checking(run: _Run) -> Checking:
    return Checking(store_locator(run.store), run.encoder if run.options.check_encoder else None)


def _generate(run: _Run, sources: list[Source], stream: _Stream, *, messages: list[Message] | None = None) -> Answer:
    """The cited answer over ``sources`` (or decompose's own ``messages``), streamed and checked."""
    options, question = run.options, run.question
    # only a question asking for an article's words needs its law resolved (query/answer/provision.py)
    resolved = run.store.refs.resolve_text(question) if asked_article(question) is not None else []
    law_docs = tuple(dict.fromkeys(doc for ref, doc, _ in resolved if ref.law and doc))
    request = AnswerRequest(
        question, run.lang, options.mode, options.style, options.instruction, options.max_tokens,
        run.script, options.check, options.cite_grammar, options.quote and options.mode != "decompose", law_docs,
        options.search_terms,
    )  # fmt: skip
    return generate_answer(run.model, request, sources, stream.on_delta, _checking(run), messages=messages)


def _trace(run: _Run, answered: Answered, log: CallLog, stream: _Stream) -> QueryTrace:
    read, decomposition = answered.read, answered.decomposition
    return QueryTrace(
        question=run.question,
        mode=run.options.mode,
        rounds=decomposition.rounds,
        answer=answered.answer,
        calls=tuple(log.calls),
        first_token_s=stream.first_token_s,
        total_s=time.perf_counter() - stream.start,
        model_id=run.llm.model_id,
        notes=decomposition.notes,
        context_chunks=tuple(dict.fromkeys([*answered.priority, *answered.fill])),
        summary_nodes=tuple((s.summary_node, " › ".join(s.section)) for s in read if s.summary_node is not None),
    )


def _compressor(encoder: Encoder, options: AskOptions) -> Compress | None:
    """Decompose's compression, once its sources exceed ``compress_tokens`` (query.context.workspace): each batch
    appended keeps its sentences nearest the queries, at the share of its tokens that ``compress_tokens`` is of
    ``context_tokens``, or the room the workspace says is left under ``compress_tokens`` if more (naive compresses
    the whole context at once)."""
    if options.compress_tokens <= 0:
        return None
    share = min(1.0, options.compress_tokens / max(1, options.context_tokens))

    def squeeze(sources: Sequence[Source], queries: Sequence[str], at_least: int) -> list[Source]:
        tokens = max(at_least, int(share * sum(estimate_tokens(s.text) for s in sources)))
        return compress_sources(sources, encoder, queries, tokens)

    return squeeze


def _ranked(llm: LLM, question: str, hits: Sequence[Hit], n: int, lang: Lang) -> Ranking:
    """The search's ranking with its scores; with ``n`` ≥ 2 its first ``n`` reordered by the LLM (answer.rerank),
    by rank alone then (an LLM's order has no scores)."""
    if n < 2 or len(hits) < 2:
        return [(h.chunk.id, h.score) for h in hits]
    return [(cid, None) for cid in rerank(llm, question, [h.chunk for h in hits], n, lang)]


def _interleave(first: list[int], second: list[int]) -> list[int]:
    """a1 b1 a2 b2 … without repeats: direct hits and question-path hits share the budget."""
    out: dict[int, None] = {}
    for i in range(max(len(first), len(second))):
        for lst in (first, second):
            if i < len(lst):
                out.setdefault(lst[i], None)
    return list(out)
