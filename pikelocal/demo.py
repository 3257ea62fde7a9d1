"""`make demo`: both default models, a schema-constrained answer, the bundled samples ingested and searched, and a
question answered from them with cited sources (PIKE-RAG task decomposition).

Every step uses the real components the product uses; the KB file it writes can be explored with the CLI.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pikelocal.assets import read_encoder_info, resolve_encoder_dir
from pikelocal.config import Settings
from pikelocal.domain.answers import QueryTrace
from pikelocal.domain.errors import InputError, PikeError
from pikelocal.domain.events import Event, EventSink, Notice
from pikelocal.domain.search import Hit
from pikelocal.embed.base import Encoder
from pikelocal.embed.factory import open_encoder
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.kb.options import ingest_options
from pikelocal.llm.base import LLM, GenParams, Message
from pikelocal.llm.cached import CachedLLM
from pikelocal.llm.factory import open_llm
from pikelocal.query.retrieve.search import search
from pikelocal.store.probe_check import check_probes
from pikelocal.store.store import Store

Emit = Callable[[str], None]

CLAUSE = (
    "第十条 投标保证金\n"
    "投标人应于2026年12月15日17:00前提交投标保证金人民币伍万元整（¥50,000），以银行保函或转账方式缴纳。"
    "中标人应在签订合同前提交履约保证金，金额为合同金额的10%。"
)
QUESTION = "What bid deposit must a bidder pay, by when, and how large is the performance bond?"
SCHEMA = {
    "type": "object",
    "properties": {
        "bid_deposit": {"type": "string", "maxLength": 40},
        "deadline": {"type": "string", "maxLength": 40},
        "performance_bond": {"type": "string", "maxLength": 40},
    },
    "required": ["bid_deposit", "deadline", "performance_bond"],
}
SAMPLES = Path(__file__).parent / "samples"  # bundled sample documents (fictitious)
SEARCHES = ("投标保证金是多少？什么时候提交？", "When may the buyer terminate the agreement?")
ASK = "投标保证金和履约保证金分别是多少？"
ASK_ROUNDS = 2  # enough for the two facts; each round costs two LLM calls on a CPU
SENTENCES = (
    ("en", "The bidder must pay a bid deposit of 50,000 yuan."),
    ("zh", "投标人须缴纳人民币五万元投标保证金。"),
    ("en", "It is sunny in Sydney today."),
)


@dataclass(frozen=True)
class DemoResult:
    answer: dict[str, str]
    similarities: np.ndarray
    kb_files: tuple[str, ...]
    cache_hit: bool
    hits: tuple[Hit, ...]  # the top hit of each of SEARCHES
    asked: QueryTrace  # ASK answered from the samples


def _notices(emit: Emit) -> EventSink:
    def sink(event: Event) -> None:
        if isinstance(event, Notice):
            emit(f"   {event.level}: {event.message}")

    return sink


def remove_previous_demo_kb(kb_path: Path) -> None:
    """The demo starts from a fresh KB, but deletes only a KB the demo itself made; anything else is refused."""
    if not kb_path.exists():
        return
    try:
        with Store.open_existing(kb_path) as old:
            is_demo = bool((old.meta().get("settings") or {}).get("demo"))
    except PikeError:
        is_demo = False
    if not is_demo:
        raise InputError(f"{kb_path} exists and is not a demo knowledge base; refusing to overwrite it")
    for path in (kb_path, Path(f"{kb_path}-wal"), Path(f"{kb_path}-shm")):
        path.unlink(missing_ok=True)


def run_demo(settings: Settings, kb_path: Path, emit: Emit) -> DemoResult:
    with ExitStack() as resources:  # models and the KB are closed whatever step fails
        return _run(settings, kb_path, emit, resources)


def _run(settings: Settings, kb_path: Path, emit: Emit, resources: ExitStack) -> DemoResult:
    started = time.monotonic()
    encoder_dir = resolve_encoder_dir(settings.encoder.model, settings.models_path())
    info = read_encoder_info(encoder_dir)
    remove_previous_demo_kb(kb_path)
    emit("1. Loading the default LLM …")
    llm = open_llm(settings)
    resources.callback(llm.close)
    emit(f"   {llm.model_id} (context {llm.context_tokens} tokens) in {time.monotonic() - started:.1f} s")

    store = Store.open(kb_path, encoder_id=info.id, dim=info.dim, settings={"demo": True})
    resources.callback(store.close)
    cached = CachedLLM(llm, store.cache)

    emit("2. Schema-constrained JSON answer from the clause:")
    emit("   " + CLAUSE.replace("\n", " "))
    messages, params = _extract_call()
    first = cached.complete(messages, params)
    answer = first.json()
    for key, value in answer.items():
        emit(f"   {key:<17} {value}")
    emit(f"   {first.prompt_tokens} prompt + {first.completion_tokens} output tokens in {first.seconds:.1f} s")

    encoder, sims = _embed_sentences(settings, emit)
    check_probes(store, encoder)  # a new KB: records this encoder's probe vectors
    emit(f"4. Ingesting the bundled sample documents into {kb_path} …")
    report = Ingestor(store, encoder, ingest_options(settings), _notices(emit)).ingest_paths([SAMPLES])
    for outcome in report.outcomes:
        emit(f"   {outcome.status:<9} {Path(outcome.path).name}: {outcome.chunks} chunks {outcome.message}")
    emit("   " + ", ".join(f"{stage} {secs:.1f} s" for stage, secs in report.seconds.items()))
    store.close()

    fused = "BM25 + dense + late-chunked" if settings.ingest.late else "BM25 + dense"
    emit(f"5. Reading it back and searching (hybrid: {fused}, fused) …")
    with Store.open(kb_path, encoder_id=info.id, dim=info.dim, probe=encoder) as reread:
        counts = reread.counts()
        emit("   " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
        top_hits = _search_samples(reread, encoder, emit)
        again = CachedLLM(llm, reread.cache).complete(messages, params)
        emit(
            f"   the same LLM call again: served from the KB's cache = {again.cached}, text identical = "
            f"{again.text == first.text}"
        )
    asked = _ask(settings, kb_path, encoder, llm, emit)
    files = tuple(sorted(p.name for p in kb_path.parent.glob(kb_path.name + "*")))
    emit(f"   files after close: {', '.join(files)}")
    emit(f"Done in {time.monotonic() - started:.0f} s.")
    return DemoResult(answer, sims, files, again.cached, tuple(top_hits), asked)


def _extract_call() -> tuple[list[Message], GenParams]:
    """Step 2's LLM call (and step 5's again, from the cache): the clause's facts as JSON of SCHEMA."""
    messages = [
        Message("system", "You extract facts from tender documents. Reply with JSON only."),
        Message("user", f"Text:\n{CLAUSE}\n\nQuestion: {QUESTION}"),
    ]
    return messages, GenParams(tag="demo.extract", max_tokens=200, json_schema=SCHEMA)


def _embed_sentences(settings: Settings, emit: Emit) -> tuple[Encoder, np.ndarray]:
    """Step 3: the default encoder, and the cosine similarities of SENTENCES (rows and columns in their order)."""
    emit("3. Loading the default encoder and embedding English and Chinese sentences …")
    encoder = open_encoder(settings)
    vectors = encoder.encode([s for _, s in SENTENCES], role="passage")
    sims = vectors @ vectors.T
    for i, (lang, text) in enumerate(SENTENCES):
        emit(f"   [{i}] {lang} {text}")
    emit(f"   cosine [0]~[1] (same meaning, EN~ZH) = {sims[0, 1]:.3f};  [0]~[2] (unrelated) = {sims[0, 2]:.3f}")
    return encoder, sims


def _search_samples(store: Store, encoder: Encoder, emit: Emit) -> list[Hit]:
    """Step 5's searches: the top hit of each of SEARCHES, shown with where it is."""
    top_hits = []
    for query in SEARCHES:
        hits = search(store, encoder, query, mode="hybrid", k=1)
        top_hits.append(hits[0])
        c = hits[0].chunk
        emit(f"   {query}")
        emit(f"     → {Path(hits[0].document.path).name}, p. {c.page_start}, lines {c.line_start}–{c.line_end}")
        emit(f"       {hits[0].snippet.marked()[:110]}")
    return top_hits


def _ask(settings: Settings, kb_path: Path, encoder: Encoder, llm: LLM, emit: Emit) -> QueryTrace:
    from pikelocal.domain.events import ReasoningStep
    from pikelocal.domain.requests import AskRequest
    from pikelocal.kb.knowledge_base import open_kb

    emit(f"6. Asking a question that needs two facts (decompose, {ASK_ROUNDS} rounds; the samples are not enriched,")
    emit("   so sub-questions search the chunks) …")
    emit(f"   {ASK}")

    def sink(event: Event) -> None:
        if isinstance(event, ReasoningStep):
            emit(f"     round {event.round} · {event.kind}: {event.text[:100]}")

    with open_kb(kb_path, settings, encoder=encoder, llm=llm) as kb:
        trace = kb.ask(ASK, AskRequest("decompose", ASK_ROUNDS), sink)
    emit("   → " + trace.answer.text.replace("\n", "\n     "))
    for source in trace.answer.sources:
        uncited = "" if source.number in trace.answer.cited else "  (not cited)"
        emit(f"     [{source.number}] {source.location()}{uncited}")
    first = f"first answer token after {trace.first_token_s:.1f} s, " if trace.first_token_s else ""
    emit(f"   {len(trace.calls)} LLM calls, {first}{trace.total_s:.1f} s in all; see `pikelocal trace {kb_path}`")
    return trace
