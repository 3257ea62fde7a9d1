"""Settings: defaults < the config file < PIKELOCAL_* environment < command-line flags.

The config file is ``--config FILE`` (or ``$PIKELOCAL_CONFIG``) when given, else the user's own
``$XDG_CONFIG_HOME/pikelocal/pikelocal.toml`` (``~/.config/pikelocal/pikelocal.toml``). A ``pikelocal.toml`` in the
current folder is never read unless named: a file someone left in a shared folder must not redirect the LLM (and
the documents' text) to a server of their choosing.

Unknown keys are rejected with a suggestion, so a typo never silently falls back to a default.
Environment names are ``PIKELOCAL_<SECTION>_<KEY>`` (e.g. ``PIKELOCAL_LLM_BASE_URL``) or
``PIKELOCAL_<KEY>`` for top-level keys (``PIKELOCAL_MODELS_DIR``).
"""

from __future__ import annotations

import difflib
import ipaddress
import logging
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pikelocal.domain.errors import ConfigError
from pikelocal.domain.kinds import (
    ANSWER_CONTEXTS,
    ANSWER_MODES,
    FUSION_METHODS,
    LATE_CONTEXTS,
    OCR_MODES,
    SEGMENT_PRESETS,
    SPLITTERS,
    AnswerContext,
    AnswerMode,
    FusionMethod,
    LateContext,
    OcrMode,
    SegmentPreset,
    Splitter,
)

log = logging.getLogger(__name__)

CONFIG_FILE = "pikelocal.toml"
ENV_PREFIX = "PIKELOCAL_"
ENV_NOT_SETTINGS = {"PIKELOCAL_CONFIG", "PIKELOCAL_DEBUG", "PIKELOCAL_KEY"}  # the KB key: never a setting


@dataclass(frozen=True)
class LLMSettings:
    backend: str = "llama_cpp"  # "llama_cpp" (in-process) or "openai" (OpenAI-compatible HTTP server)
    model: str = "default"  # llama_cpp: default | fast | tiny | artifact id | path.gguf; openai: server model
    n_ctx: int = 8192
    threads: int = 0  # 0: all cores; the most llama.cpp uses (fewer while other processes keep cores busy)
    adapt_threads: bool = True  # follow the machine's load between tokens (pikelocal/llm/threads.py)
    flash_attn: bool = True  # llama.cpp's flash attention: prompt 25 % faster on a 2-core AVX2 CPU
    gpu_layers: int = 0  # llama.cpp layers to offload; -1 = all (needs a GPU build, see README)
    base_url: str = ""  # e.g. http://127.0.0.1:8080/v1
    allow_remote: bool = False  # a base_url off this machine receives the documents' text: only when set
    api_key: str = ""
    timeout_s: float = 120.0
    parallel: int = 4  # concurrent requests to an HTTP server
    # In-process: calls decoded together in one llama.cpp context (pikelocal/llm/llama_batch.py). 0: the width
    # `pikelocal calibrate` measured for this model on this machine (pikelocal/llm/batch_width.py), 1 until then.
    batch: int = 0


@dataclass(frozen=True)
class EncoderSettings:
    model: str = "default"  # default (EmbeddingGemma) | minilm | artifact id | folder with encoder.json
    threads: int = 0
    batch_size: int = 8
    # Late-chunking window in tokens (0: the model's own, 2,048 for EmbeddingGemma). 1,024 gives each chunk
    # ~500 tokens of context on each side at 1.6x the speed of 2,048 on 2 cores (docs/BENCHMARKS.md).
    late_window: int = 1024
    # Open a KB even when this encoder's probe vectors disagree with the ones it recorded (kb_meta.encoder_probes):
    # same model id, other numbers (another quantization or CPU kernel), so search quality may drop.
    force: bool = False


@dataclass(frozen=True)
class IngestSettings:
    chunk_tokens: int = 400  # target chunk size in encoder tokens (structure-aware splitter)
    min_tokens: int = 100  # a chunk may end early at a heading once it holds this many
    max_tokens: int = 600  # hard cap, unless one unbreakable piece is longer
    # Also compute late-chunked vectors. Off by default since 2026-11-26 (issue 19): they cost 1.6-1.8x more ingest
    # time (the tender: 30 s → 83 s for the whole add, build/bench_ingest_cost.py), and at the default fusion they
    # buy nothing that counts: hybrid nDCG@10 without → with them (mixed, weight 0.1) LawBench 0.885 → 0.877,
    # the tender 0.711 → 0.709 (R@5 +1 question of 30), the four 50-question pools +0.001 to +0.006
    # (build/bench_late_mix.py), and enrich's tuning set their weight to 0 on LawBench and the tender.
    late: bool = False
    # How a late vector keeps its document's identity (issue 19): "off"; the title › section path where each window
    # starts, read first and left out of the chunks' means ("prefix") or counted in them ("pooled"); or "mix", the
    # late vector mixed with the early vector of the chunk's title › section path (β 0.35). A KB keeps the one its
    # late vectors were made with (kb_meta.late_context) until `pikelocal reembed`. "mix" is the variant that beats
    # plain late on every set measured (LawBench nDCG@10 0.267 → 0.586, the tender 0.680 → 0.712, 2Wiki-50 and
    # HotpotQA-50 +0.005 / +0.010); "prefix" falls to 0.503 on 2Wiki, "pooled" to 0.568 on the tender.
    late_context: LateContext = "mix"
    splitter: Splitter = "structure"  # or "semantic" (encoder-distance breaks), "llm" (PIKE-RAG's LLM splitter)
    max_file_mb: int = 200  # a bigger file is refused without being read (MB = 2**20 bytes)
    # Reading one PDF (in a child process, pikelocal/ingest/read/pdf_worker.py): past the time or memory limit it is
    # stopped and fails with the reason; more pages fail it unread; more text is cut, with a warning.
    pdf_timeout_s: float = 300.0  # 3,000 pages at pypdf's slowest measured pace (0.1 s a page)
    pdf_memory_mb: int = 1536  # the reading process's address space (real PDFs peak under 50 MB)
    pdf_max_pages: int = 5000
    pdf_max_chars: int = 20_000_000  # about 5,000 dense pages
    # OCR of scanned PDF pages, in the reading process (pikelocal/ingest/read/ocr.py): auto = the pages with no text
    # layer or a garbled one (a text PDF is neither slower nor loads the engine); always = every page; never = none.
    ocr: OcrMode = "auto"
    ocr_dpi: int = 200  # rendering resolution (docs/BENCHMARKS.md, "OCR": CER and speed at 150 and 300 dpi)
    ocr_threads: int = 0  # onnxruntime's; 0: the machine's cores, at most 2
    ocr_page_timeout_s: float = 60.0  # added to pdf_timeout_s (wall and CPU time) for each page OCR'd
    # The reading process's address space once OCR is loaded (RLIMIT_AS; pdf_memory_mb before): the engine with
    # an A4 page at 200 dpi peaked at 1.6 GB of address space (0.9 GB resident; docs/BENCHMARKS.md, "OCR").
    ocr_memory_mb: int = 3072


@dataclass(frozen=True)
class EnrichSettings:
    questions: int = 4  # atomic questions asked for per chunk (at most; issue 15 measured 4 against 5)
    summaries: bool = True  # document summaries (and titles for documents without one) in the chunk headers
    # Contextual retrieval (Anthropic): the questions' call also writes a sentence or two that situate each chunk in
    # its document, put into the chunk's header (BM25 and its early vector). Costs ~40-60 more output tokens per
    # chunk; turning it on later re-asks the chunks already atomized. Off until measured (docs/BENCHMARKS.md).
    context: bool = False
    # The entity graph (HippoRAG-style OpenIE): the questions' call also lists the chunk's entity names (at most 8)
    # and [subject, relation, object] triples (at most 5), stored as a graph for `search --mode graph` and the
    # fact hops of hybrid search (search.hops). Costs 2x the seconds per chunk on a CPU (179 more output tokens;
    # docs/BENCHMARKS.md); turning it on later re-asks the chunks already atomized. Off by default for that cost:
    # the hops it buys pay on multi-hop questions (2Wiki-50 hybrid R@5 0.755 -> 0.905), not measured on legal sets.
    entities: bool = False
    # Summary trees (RAPTOR and the section hierarchy): after the chunks, one LLM call per node summarises a
    # section (or a cluster of chunks, or of documents) from its parts, for "summarise / what are all the …"
    # questions. About one call per 3-6 chunks; `pikelocal enrich --trees` builds them for one run.
    trees: bool = False


@dataclass(frozen=True)
class SearchSettings:
    k: int = 10
    # Fusion weights of the hybrid mode, with `fusion` below. Chosen by build/tune_fusion.py over the tender,
    # LawBench 1-1, 2Wiki-500, HotpotQA-500 and Vaswani (docs/BENCHMARKS.md): z-score fusion at 0.5 / 1 / 0.1 is
    # at or above the old RRF 0.3 / 1 / 0.3 in nDCG@10 on all five, and within 0.018 of the best single ranking
    # on every held-out half (RRF 0.3 / 1 / 0.3 fell 0.19 below dense on LawBench, pulled down by late).
    bm25_weight: float = 0.5
    dense_weight: float = 1.0
    late_weight: float = 0.1
    # The atomic-question path (chunks ranked by their best-matching question). On the fully enriched HotpotQA 50
    # every weight above 0 ranked below the chunks alone (nDCG@10 0.779 at 1.0, 0.891 at 0.1, chunks 0.895):
    # 0.1 keeps it as a tie-breaker (docs/BENCHMARKS.md). Decompose and hier use it on their own anyway.
    questions_weight: float = 0.1
    # The entity graph's ranking (personalized PageRank, query/retrieve/graph.py) in hybrid: 0 = left out (and computed
    # only for `--mode graph`) until it is measured on enriched multi-hop sets.
    graph_weight: float = 0.0
    candidates: int = 50  # hits taken from each ranking before fusion
    # Fact hops (query/retrieve/hops.py; a KB enriched with enrich.entities): after hybrid's first 2 hits, up to this
    # many chunks reached through the facts nearest the question (the passage about an end of a triple that the question
    # does not name: "the director of film X" -> X's director). 0 = off. On the pooled 2Wiki-50 set hybrid R@5
    # went from 0.755 to 0.905 with 2 (0.715 -> 0.910 on a held-out pool), HotpotQA-50 0.890 -> 0.900
    # (docs/BENCHMARKS.md, "Fact hops").
    hops: int = 2
    hop_similarity: float = 0.5  # least cosine between an end's name and its chunk (EmbeddingGemma's scale)
    # How hybrid fuses: rrf (weighted reciprocal ranks), minmax or zscore (weighted sum of each ranking's scores,
    # normalised over its list). Chosen by build/tune_fusion.py (docs/BENCHMARKS.md).
    fusion: FusionMethod = "zscore"
    # Per-KB fusion: `enrich` asks up to 1,000 of the KB's own atomic questions (each one's own chunk is the right
    # answer), scores BM25 weights 0-3 and late weights 0-0.3 on them, and stores the simplest weights within 2
    # standard errors of the best (query/retrieve/fusion_tuning.py; docs/BENCHMARKS.md, "Fusion tuned per KB"). On:
    # hybrid uses them instead of bm25_weight and late_weight. A KB with fewer than 60 questions keeps the weights
    # above.
    tuned: bool = True

    def weights(self) -> dict[str, float]:
        """Fusion weight per ranking, keyed as the search code names them."""
        return {
            "bm25": self.bm25_weight,
            "dense": self.dense_weight,
            "late": self.late_weight,
            "questions": self.questions_weight,
            "graph": self.graph_weight,
        }


@dataclass(frozen=True)
class AnswerSettings:
    # naive | hier | decompose (PIKE-RAG Algorithm 1). Naive by default: decompose tied or lost to it on four of five
    # sets at 3-4 times its calls and about 1.5 times its prompt (docs/BENCHMARKS.md, "Answering quality and cost
    # per mode"); it won on LawBench 1-1 only. Quote-then-answer applies to naive and hier.
    mode: AnswerMode = "naive"
    rounds: int = 5  # decomposition rounds at most
    proposals: int = 3  # sub-questions the LLM may propose per round
    atoms_k: int = 4  # atomic questions retrieved per sub-question
    threshold: float = 0.5  # cosine similarity an atomic question needs to become a candidate
    # The entity graph in decompose (enrich.entities): each of the best candidates also brings the chunks one hop
    # away through a shared entity (up to this many per candidate; 0 = off). Off until measured with answers.
    graph_hops: int = 0
    k: int = 6  # chunks retrieved by naive and hier (each path)
    # How the sources are chosen (pikelocal/query/context/expand.py): "segments" = relevant segment extraction after
    # dsRAG (runs of consecutive chunks valued by their rank and score in the search's ranking, a chunk not found
    # costing something; pikelocal/query/context/segments.py); "neighbours" = the gathered chunks, then `neighbours` on
    # each side. Neighbours stays the default: on the tender's 30 page questions the gold page was in the context 22
    # times with neighbours and 17-19 with segments, at the same budget (build/bench_context.py, docs/BENCHMARKS.md).
    context: AnswerContext = "neighbours"
    segments: SegmentPreset = "balanced"  # RSE's parameters: balanced | precision (fewer, shorter) | find_all
    neighbours: int = 1  # context "neighbours": chunks added on each side of a gathered chunk, budget permitting
    context_tokens: int = 2000  # for the sources (at ~66 prompt tokens/s on 2 cores: ~30 s to read)
    # Contextual compression (pikelocal/query/context/compress.py): when above 0, naive and hier send only the sources'
    # sentences closest to the question by the encoder, at most this many tokens (each source keeps its best one);
    # decompose appends its sources whole while they fit this many, then cuts each batch. 0 = off. On by default:
    # docs/BENCHMARKS.md, "Answers with each context assembly"; 1000 rather than 450: "The answer's source budget"
    # (450 loses on HotpotQA-50).
    compress_tokens: int = 1000
    # Reranking (pikelocal/query/retrieve/rerank.py): the local LLM reorders the search's top this-many hits (listwise,
    # one call) before the context is built; 0 = off. No cross-encoder can be installed; off because it did not pay on
    # the tender's 30 questions (nDCG@10 0.681 → 0.678 for 36 s a question; build/bench_rerank.py).
    rerank: int = 0
    # Legal cross-references (pikelocal/legal_refs.py): naive and hier add the article chunks their sources cite
    # (resolved citations, in the sources' order), at most this many, within the budget; decompose adds those its
    # first sources cite. 0 = off. A question that itself cites an article gets that article's chunk first.
    follow_refs: int = 2
    # Summary trees (enrich.trees): naive and hier answer a question that asks for an overview ("summarise …",
    # "what are all the …", "有哪些…") from this many summary nodes first, then the passages. 0 = off.
    tree_nodes: int = 2
    max_tokens: int = 512  # of the answer
    check: bool = True  # check every claim against the sources; drop what no source sentence supports
    check_encoder: bool = True  # let the encoder accept a paraphrased claim the word checks missed
    cite_grammar: bool = False  # a GBNF grammar forces [n] after every sentence (measured: docs/BENCHMARKS.md)
    # Quote, then answer (pikelocal/query/answer/quoted.py): naive and hier ask the model to copy the sentence that
    # answers before the shortest answer, find the quote in the sources and cite where it stands; the answer must stand
    # in its quote. Decompose keeps the cited-prose prompt. Needs `check`. docs/BENCHMARKS.md, "Quote, then answer".
    quote: bool = True
    # A system-driven second hop (pikelocal/query/answer/second_hop.py): with `quote`, naive answers an English
    # comparison ("Which film came out first, X or Y?") or composition ("Where was the director of film X born?") one
    # hop at a time, each its own search and quote, the values compared by the system. docs/BENCHMARKS.md, "Second hop".
    hop: bool = True


@dataclass(frozen=True)
class Settings:
    models_dir: str = ""  # empty: $PIKELOCAL_MODELS_DIR or the checkout's models/
    llm: LLMSettings = field(default_factory=LLMSettings)
    encoder: EncoderSettings = field(default_factory=EncoderSettings)
    ingest: IngestSettings = field(default_factory=IngestSettings)
    enrich: EnrichSettings = field(default_factory=EnrichSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    answer: AnswerSettings = field(default_factory=AnswerSettings)

    def models_path(self) -> Path | None:
        return Path(self.models_dir).expanduser() if self.models_dir else None


def available_cpus() -> int:
    """CPU cores this process may use (honours taskset / container CPU sets); the default thread count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


SECTIONS: dict[str, type] = {
    "llm": LLMSettings,
    "encoder": EncoderSettings,
    "ingest": IngestSettings,
    "enrich": EnrichSettings,
    "search": SearchSettings,
    "answer": AnswerSettings,
}
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}
TOP_LEVEL = {f.name for f in fields(Settings)} - set(SECTIONS)


def _known_keys() -> list[str]:
    keys = sorted(TOP_LEVEL)
    for name, cls in SECTIONS.items():
        keys += [f"{name}.{f.name}" for f in fields(cls)]
    return keys


def _unknown(key: str, where: str) -> ConfigError:
    close = difflib.get_close_matches(key, _known_keys(), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return ConfigError(f"{where}: unknown setting '{key}'{hint}")


def _coerce(value: Any, target: type | str, key: str, where: str) -> Any:
    kind = target if isinstance(target, str) else target.__name__
    try:
        if kind == "int":
            if isinstance(value, bool | float) or (isinstance(value, str) and not value.strip().lstrip("+-").isdigit()):
                raise ValueError(value)  # never round 2.5 to 2 silently
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "bool":
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word not in _TRUE | _FALSE:
                raise ValueError(value)
            return word in _TRUE
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: setting '{key}' must be {kind}, got {value!r}") from None


def apply(settings: Settings, values: Mapping[str, Any], where: str) -> Settings:
    """Return ``settings`` with dotted keys (``llm.model``) replaced; unknown keys raise ConfigError."""
    top: dict[str, Any] = {}
    sections: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        section, _, name = key.partition(".")
        if not name and section in TOP_LEVEL:
            top[section] = _coerce(value, "str", key, where)
            continue
        cls = SECTIONS.get(section)
        types = {f.name: f.type for f in fields(cls)} if cls else {}
        if name not in types:
            raise _unknown(key, where)
        sections.setdefault(section, {})[name] = _coerce(value, types[name], key, where)
    updated = {name: replace(getattr(settings, name), **vals) for name, vals in sections.items()}
    return replace(settings, **top, **updated)


def _flatten(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            if key not in SECTIONS:
                raise _unknown(key, where)
            flat.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def from_env(environ: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """``{variable name: (dotted key, value)}`` for every PIKELOCAL_* setting variable."""
    values: dict[str, tuple[str, str]] = {}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX) or name in ENV_NOT_SETTINGS:
            continue
        rest = name[len(ENV_PREFIX) :].lower()
        if rest in TOP_LEVEL:
            values[name] = (rest, value)
            continue
        section, _, key = rest.partition("_")
        values[name] = (f"{section}.{key}", value)
    return values


def user_config_file(env: Mapping[str, str]) -> Path | None:
    """``$XDG_CONFIG_HOME/pikelocal/pikelocal.toml`` or ``$HOME/.config/pikelocal/pikelocal.toml``."""
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "pikelocal" / CONFIG_FILE
    if env.get("HOME"):
        return Path(env["HOME"]) / ".config" / "pikelocal" / CONFIG_FILE
    return None


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build settings from every layer. ``config_file`` defaults to ``$PIKELOCAL_CONFIG``, else the user's config
    file when it exists (:func:`user_config_file`)."""
    env = os.environ if environ is None else environ
    settings = Settings()
    path = config_file or (Path(env["PIKELOCAL_CONFIG"]) if env.get("PIKELOCAL_CONFIG") else None)
    if path is None:
        user_file = user_config_file(env)
        path = user_file if user_file is not None and user_file.is_file() else None
        if Path(CONFIG_FILE).is_file() and (path is None or Path(CONFIG_FILE).resolve() != path.resolve()):
            log.warning("./%s is not read; pass --config %s to use it", CONFIG_FILE, CONFIG_FILE)
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{path}: config file not found") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read config: {exc}") from None
        settings = apply(settings, _flatten(data, str(path)), str(path))
    for name, (key, value) in from_env(env).items():
        settings = apply(settings, {key: value}, f"environment variable {name}")
    if overrides:
        settings = apply(settings, {k: v for k, v in overrides.items() if v is not None}, "command line")
    _validate(settings)
    return settings


def is_loopback_url(url: str) -> bool:
    """True when ``url``'s host is this machine: ``localhost`` or a loopback address. A name under ``.localhost``
    does not count: the resolver may ask DNS for it and get any address (issue 44 saw one POSTed to 192.0.2.2).
    Whatever the name, the LLM client also checks the address it connected to before sending (llm/deadline_http)."""
    host = (urlsplit(url).hostname or "").rstrip(".")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _validate(s: Settings) -> None:
    if s.llm.backend not in ("llama_cpp", "openai"):
        raise ConfigError(f"llm.backend = '{s.llm.backend}': must be 'llama_cpp' or 'openai'")
    if s.llm.backend == "openai" and not s.llm.base_url:
        raise ConfigError("llm.backend = 'openai' needs llm.base_url (e.g. http://127.0.0.1:8080/v1)")
    if s.llm.backend == "openai" and not s.llm.allow_remote and not is_loopback_url(s.llm.base_url):
        raise ConfigError(
            f"llm.base_url = '{s.llm.base_url}' is not on this machine, and the documents' text would be sent there;"
            " set llm.allow_remote = true (PIKELOCAL_LLM_ALLOW_REMOTE=true) to allow it"
        )
    checks = [
        ("llm.parallel", s.llm.parallel, 1),
        ("llm.batch", s.llm.batch, 0),
        ("llm.n_ctx", s.llm.n_ctx, 256),
        ("llm.threads", s.llm.threads, 0),
        ("encoder.threads", s.encoder.threads, 0),
        ("encoder.batch_size", s.encoder.batch_size, 1),
        ("encoder.late_window", s.encoder.late_window, 0),
        ("ingest.min_tokens", s.ingest.min_tokens, 1),
        ("ingest.max_file_mb", s.ingest.max_file_mb, 1),
        ("ingest.pdf_memory_mb", s.ingest.pdf_memory_mb, 256),
        ("ingest.pdf_max_pages", s.ingest.pdf_max_pages, 1),
        ("ingest.pdf_max_chars", s.ingest.pdf_max_chars, 1000),
        ("ingest.ocr_dpi", s.ingest.ocr_dpi, 72),
        ("answer.compress_tokens", s.answer.compress_tokens, 0),
        ("answer.rerank", s.answer.rerank, 0),
        ("answer.follow_refs", s.answer.follow_refs, 0),
        ("answer.tree_nodes", s.answer.tree_nodes, 0),
        ("ingest.ocr_threads", s.ingest.ocr_threads, 0),
        ("ingest.ocr_memory_mb", s.ingest.ocr_memory_mb, 1024),
        ("enrich.questions", s.enrich.questions, 1),
        ("search.k", s.search.k, 1),
        ("search.candidates", s.search.candidates, 1),
        ("search.hops", s.search.hops, 0),
        ("answer.rounds", s.answer.rounds, 1),
        ("answer.proposals", s.answer.proposals, 1),
        ("answer.atoms_k", s.answer.atoms_k, 1),
        ("answer.graph_hops", s.answer.graph_hops, 0),
        ("answer.k", s.answer.k, 1),
        ("answer.neighbours", s.answer.neighbours, 0),
        ("answer.context_tokens", s.answer.context_tokens, 256),
        ("answer.max_tokens", s.answer.max_tokens, 16),
    ]
    for key, value, low in checks:
        if value < low:
            raise ConfigError(f"{key} = {value}: must be at least {low}")
    if 0 < s.encoder.late_window < 32:
        raise ConfigError(f"encoder.late_window = {s.encoder.late_window}: use 0 (the model's own) or at least 32")
    if not s.ingest.min_tokens <= s.ingest.chunk_tokens <= s.ingest.max_tokens:
        raise ConfigError(
            f"ingest: need min_tokens <= chunk_tokens <= max_tokens, got {s.ingest.min_tokens},"
            f" {s.ingest.chunk_tokens}, {s.ingest.max_tokens}"
        )
    weights = tuple(s.search.weights().values())
    names = ("bm25_weight", "dense_weight", "late_weight", "questions_weight", "graph_weight")
    for name, w in zip(names, weights, strict=True):
        if not math.isfinite(w) or w < 0:
            raise ConfigError(f"search.{name} = {w}: must be a finite number >= 0")
    if max(weights) == 0:
        raise ConfigError(
            "search: bm25_weight, dense_weight, late_weight, questions_weight and graph_weight cannot all be 0"
        )
    if not -1.0 <= s.search.hop_similarity <= 1.0:
        raise ConfigError(f"search.hop_similarity = {s.search.hop_similarity}: must be a cosine, from -1 to 1")
    if s.search.fusion not in FUSION_METHODS:
        raise ConfigError(f"search.fusion = '{s.search.fusion}': must be {_one_of(FUSION_METHODS)}")
    if s.ingest.splitter not in SPLITTERS:
        raise ConfigError(f"ingest.splitter = '{s.ingest.splitter}': must be {_one_of(SPLITTERS)}")
    if s.ingest.late_context not in LATE_CONTEXTS:
        raise ConfigError(f"ingest.late_context = '{s.ingest.late_context}': must be {_one_of(LATE_CONTEXTS)}")
    if s.ingest.ocr not in OCR_MODES:
        raise ConfigError(f"ingest.ocr = '{s.ingest.ocr}': must be {_one_of(OCR_MODES)}")
    if s.ingest.ocr_dpi > 600:
        raise ConfigError(f"ingest.ocr_dpi = {s.ingest.ocr_dpi}: at most 600 (pages are capped in pixels anyway)")
    if not (math.isfinite(s.ingest.ocr_page_timeout_s) and s.ingest.ocr_page_timeout_s > 0):
        raise ConfigError(f"ingest.ocr_page_timeout_s = {s.ingest.ocr_page_timeout_s}: must be more than 0 seconds")
    if s.answer.mode not in ANSWER_MODES:
        raise ConfigError(f"answer.mode = '{s.answer.mode}': must be {_one_of(ANSWER_MODES)}")
    if s.answer.context not in ANSWER_CONTEXTS:
        raise ConfigError(f"answer.context = '{s.answer.context}': must be {_one_of(ANSWER_CONTEXTS)}")
    if s.answer.segments not in SEGMENT_PRESETS:
        raise ConfigError(f"answer.segments = '{s.answer.segments}': must be {_one_of(SEGMENT_PRESETS)}")
    if not -1.0 <= s.answer.threshold <= 1.0:
        raise ConfigError(f"answer.threshold = {s.answer.threshold}: a cosine similarity, from -1 to 1")
    if s.llm.timeout_s <= 0:
        raise ConfigError(f"llm.timeout_s = {s.llm.timeout_s}: must be more than 0 seconds")
    if not (math.isfinite(s.ingest.pdf_timeout_s) and s.ingest.pdf_timeout_s > 0):
        raise ConfigError(f"ingest.pdf_timeout_s = {s.ingest.pdf_timeout_s}: must be more than 0 seconds")


def _one_of(values: tuple[str, ...]) -> str:
    quoted = [f"'{v}'" for v in values]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}"
