"""Settings: defaults < the config file < PIKELOCAL_* environment < command-line flags.

Every setting is declared once, below, with :func:`setting`: its default (whose type is the setting's type), one
line of help, its bounds or choices, and the benchmark section that justifies its default. Parsing, the checks,
the environment names, ``pikelocal config`` and docs/settings.md's settings table (build/settings_table.py) all
read that declaration.

The config file is ``--config FILE`` (or ``$PIKELOCAL_CONFIG``) when given, else the user's own
``$XDG_CONFIG_HOME/pikelocal/pikelocal.toml`` (``~/.config/pikelocal/pikelocal.toml``) when it exists. A
``pikelocal.toml`` in the current folder is never read unless named: a file someone left in a shared folder must
not redirect the LLM (and the documents' text) to a server of their choosing.

Unknown keys are rejected with a suggestion, so a typo never silently falls back to a default.
Environment names are ``PIKELOCAL_<SECTION>_<KEY>`` (e.g. ``PIKELOCAL_LLM_BASE_URL``) or
``PIKELOCAL_<KEY>`` for top-level keys (``PIKELOCAL_MODELS_DIR``).
"""

from __future__ import annotations

import difflib
import hashlib
import ipaddress
import json
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
CONFIG_FILE_HELP = (
    "Settings file. Else $PIKELOCAL_CONFIG, else $XDG_CONFIG_HOME/pikelocal/pikelocal.toml"
    " (~/.config/pikelocal/pikelocal.toml) if it exists; a ./pikelocal.toml is read only when named here or in"
    " $PIKELOCAL_CONFIG."
)
ENV_PREFIX = "PIKELOCAL_"
ENV_NOT_SETTINGS = {"PIKELOCAL_CONFIG", "PIKELOCAL_DEBUG", "PIKELOCAL_KEY"}  # the KB key: never a setting
BENCHMARKS = "docs/BENCHMARKS.md"


@dataclass(frozen=True)
class Spec:
    """What a setting's declaration says besides its default (:func:`setting`)."""

    help: str  # one line: what it does
    ge: float | None = None  # least value
    le: float | None = None  # greatest value
    gt: float | None = None  # the value must be above this
    choices: tuple[str, ...] = ()  # the only values allowed
    meaning: str = ""  # what a value bounded on both sides is ("a cosine"), for the error
    unit: str = ""  # of the bounds ("seconds"), for the error
    docs: str = ""  # the benchmark section that justifies the default: a heading of docs/benchmarks/ begins so
    secret: bool = False  # never shown (`pikelocal config` says whether it is set)
    # A change can change an answer (what is asked, searched, read or written), so a stored review row made before
    # it is asked again (:func:`answers_key`). False only for what changes how fast, where or how long the work runs,
    # which paths it reads, what may be opened or sent, or what is only shown: threads, kernels, batching, time
    # and memory limits, the models' folder, permissions and secrets, `pikelocal search`'s result count. True by
    # default, so a new setting is counted until declared otherwise.
    answers: bool = True


def setting(
    default: Any,
    help: str,
    *,
    ge: float | None = None,
    le: float | None = None,
    gt: float | None = None,
    choices: tuple[str, ...] = (),
    meaning: str = "",
    unit: str = "",
    docs: str = "",
    secret: bool = False,
    answers: bool = True,
) -> Any:
    """A setting's one declaration: a dataclass field with ``default`` and its :class:`Spec` in the metadata."""
    spec = Spec(help, ge, le, gt, choices, meaning, unit, docs, secret, answers)
    return field(default=default, metadata={"setting": spec})


@dataclass(frozen=True)
class LLMSettings:
    backend: str = setting(
        "llama_cpp",
        "where the LLM runs: in-process (llama_cpp) or an OpenAI-compatible HTTP server (openai)",
        choices=("llama_cpp", "openai"),
    )
    model: str = setting(
        "default", "llama_cpp: default | fast | tiny | an artifact id | a .gguf; openai: the server's model"
    )
    n_ctx: int = setting(8192, "the LLM's context window in tokens", ge=256)
    threads: int = setting(
        0, "CPU threads llama.cpp uses at most (0: every core the process may use)", ge=0, answers=False
    )
    adapt_threads: bool = setting(
        True,
        "follow the machine's load between tokens: fewer threads while other processes keep cores busy",
        docs="The LLM ceiling on this machine",
        answers=False,
    )
    flash_attn: bool = setting(
        True, "llama.cpp's flash attention (a faster prompt)", docs="Batched in-process calls", answers=False
    )
    gpu_layers: int = setting(
        0, "LLM layers offloaded to the GPU (-1: all; needs a GPU build of llama.cpp)", answers=False
    )
    base_url: str = setting("", "openai: the server's URL, e.g. http://127.0.0.1:8080/v1")
    allow_remote: bool = setting(False, "let a base_url off this machine receive the documents' text", answers=False)
    api_key: str = setting("", "openai: the server's API key", secret=True, answers=False)
    timeout_s: float = setting(
        120.0, "how long one request to the server may take", gt=0, unit="seconds", answers=False
    )
    parallel: int = setting(4, "concurrent requests to an HTTP server", ge=1, answers=False)
    # In-process (pikelocal/llm/llama_batch.py); 0 reads the width pikelocal/llm/batch_width.py kept for the model.
    batch: int = setting(
        0,
        "in-process calls decoded together (0: the width `pikelocal calibrate` measured; 1 until it has run)",
        ge=0,
        docs="Batched in-process calls",
        answers=False,
    )


@dataclass(frozen=True)
class EncoderSettings:
    model: str = setting("default", "default (EmbeddingGemma) | minilm | an artifact id | a folder with encoder.json")
    threads: int = setting(0, "CPU threads of the encoder (0: every core the process may use)", ge=0, answers=False)
    batch_size: int = setting(8, "texts per encoder call", ge=1, answers=False)
    # 0 or at least 32 (_broken_rule): each chunk's context on either side is about half the window.
    late_window: int = setting(
        1024, "late-chunking window in tokens (0: the model's own)", ge=0, docs="Ingestion and search"
    )
    # The probe vectors are kb_meta.encoder_probes: same model id, other numbers (another quantization or kernel).
    force: bool = setting(
        False, "open a KB whose recorded probe vectors this encoder does not reproduce (--force)", answers=False
    )


@dataclass(frozen=True)
class IngestSettings:
    chunk_tokens: int = setting(400, "target chunk size in encoder tokens (structure-aware splitter)")
    min_tokens: int = setting(100, "a chunk may end early at a heading once it holds this many tokens", ge=1)
    max_tokens: int = setting(600, "a chunk's hard cap in tokens, unless one unbreakable piece is longer")
    late: bool = setting(
        False,
        "also compute late-chunked vectors (slower ingest)",
        docs="Late vectors in hybrid: what they buy, and what they cost",
    )
    # A KB keeps the variant its late vectors were made with (kb_meta.late_context) until `pikelocal reembed`.
    late_context: LateContext = setting(
        "mix",
        "how a late vector keeps its document's identity (a KB keeps its own until `pikelocal reembed`)",
        choices=LATE_CONTEXTS,
        docs="Late vectors mixed with their header's",
    )
    splitter: Splitter = setting(
        "structure",
        "how documents are cut: by their structure, at encoder-distance breaks, or by the LLM (PIKE-RAG)",
        choices=SPLITTERS,
        docs="Semantic chunking against the structure splitter",
    )
    max_file_mb: int = setting(200, "a bigger file is refused unread (MB = 2**20 bytes)", ge=1)
    # One PDF is read in a child process (pikelocal/ingest/read/pdf_worker.py), stopped past its time or memory limit.
    pdf_timeout_s: float = setting(300.0, "how long reading one PDF may take", gt=0, unit="seconds", answers=False)
    pdf_memory_mb: int = setting(1536, "address space of the process that reads a PDF", ge=256, answers=False)
    pdf_max_pages: int = setting(5000, "a PDF with more pages fails unread", ge=1)
    pdf_max_chars: int = setting(20_000_000, "a PDF's text beyond this is cut, with a warning", ge=1000)
    ocr: OcrMode = setting(
        "auto",
        "which PDF pages are OCR'd (auto: those with no text layer or a garbled one)",
        choices=OCR_MODES,
        docs="OCR of scanned pages",
    )
    ocr_dpi: int = setting(200, "OCR's page rendering resolution", ge=72, le=600, docs="OCR of scanned pages")
    ocr_max_side: int = setting(
        2400,
        "OCR: a rendered page's longer side in pixels at most, whatever its size (a big drawing is scaled down)",
        ge=500,
        le=8000,
    )
    ocr_threads: int = setting(
        0, "onnxruntime threads for OCR (0: the machine's cores, at most 2)", ge=0, answers=False
    )
    ocr_page_timeout_s: float = setting(
        60.0, "added to pdf_timeout_s for each page OCR'd", gt=0, unit="seconds", answers=False
    )
    ocr_memory_mb: int = setting(
        3072,
        "address space of the reading process once OCR is loaded (pdf_memory_mb before)",
        ge=1024,
        docs="OCR of scanned pages",
        answers=False,
    )


@dataclass(frozen=True)
class EnrichSettings:
    questions: int = setting(4, "atomic questions asked for per chunk, at most", ge=1, docs="Every LLM token must pay")
    summaries: bool = setting(True, "document summaries (and titles where missing) in the chunk headers")
    # Turning context or entities on later re-asks the chunks already atomized.
    context: bool = setting(
        False,
        "contextual retrieval: the questions' call also situates each chunk in its document",
        docs="Contextual retrieval: chunk contexts from the enrichment call",
    )
    entities: bool = setting(
        False,
        "the entity graph: the questions' call also lists each chunk's entities and triples",
        docs="Entity graph on the pooled 2Wiki-50 set",
    )
    trees: bool = setting(False, "summary trees of sections and clusters, one LLM call per node (enrich --trees)")


@dataclass(frozen=True)
class SearchSettings:
    k: int = setting(10, "results of `pikelocal search`", ge=1, answers=False)
    # The weights of hybrid's fusion, with `fusion`: chosen by build/bench/tune_fusion.py on five sets.
    bm25_weight: float = setting(0.5, "hybrid's weight of BM25 (0: left out)", ge=0, docs="Fusion that never loses")
    dense_weight: float = setting(1.0, "hybrid's weight of the dense vectors", ge=0, docs="Fusion that never loses")
    late_weight: float = setting(0.1, "hybrid's weight of the late vectors", ge=0, docs="Fusion that never loses")
    questions_weight: float = setting(
        0.1,
        "hybrid's weight of the atomic questions (a tie-breaker)",
        ge=0,
        docs="Retrieval gain from atomic questions",
    )
    graph_weight: float = setting(0.0, "hybrid's weight of the entity graph's PageRank (0: off until measured)", ge=0)
    candidates: int = setting(50, "hits taken from each ranking before fusion", ge=1)
    hops: int = setting(
        2,
        "fact hops: chunks reached through the facts nearest the question (enrich.entities; 0: off)",
        ge=0,
        docs="Fact hops: the second hop through the entity graph's facts",
    )
    hop_similarity: float = setting(
        0.5, "least cosine between a fact's end and the chunk it leads to", ge=-1, le=1, meaning="a cosine"
    )
    fusion: FusionMethod = setting(
        "zscore",
        "how hybrid fuses its rankings: weighted reciprocal ranks, or weighted normalised scores",
        choices=FUSION_METHODS,
        docs="Fusion that never loses",
    )
    # A KB with fewer than 60 atomic questions keeps the weights above (query/retrieve/fusion_tuning.py).
    tuned: bool = setting(
        True,
        "use the BM25 and late weights `enrich` tuned on the KB's own atomic questions",
        docs="Fusion tuned per KB on its own atomic questions",
    )

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
    mode: AnswerMode = setting(
        "naive",
        "answering method: naive, hier (with atomic questions) or decompose (PIKE-RAG's Algorithm 1)",
        choices=ANSWER_MODES,
        docs="Answering quality and cost per mode",
    )
    rounds: int = setting(5, "decomposition rounds at most", ge=1)
    proposals: int = setting(3, "sub-questions the LLM may propose per round", ge=1)
    atoms_k: int = setting(4, "atomic questions retrieved per sub-question", ge=1)
    threshold: float = setting(
        0.5, "cosine an atomic question needs to become a candidate", ge=-1, le=1, meaning="a cosine"
    )
    graph_hops: int = setting(0, "decompose: chunks one shared entity away added per candidate (0: off)", ge=0)
    k: int = setting(6, "chunks retrieved by naive and hier (each path)", ge=1)
    # pikelocal/query/context/expand.py; segments = relevant segment extraction after dsRAG
    # (pikelocal/query/context/segments.py).
    context: AnswerContext = setting(
        "neighbours",
        "how the sources are chosen: gathered chunks with their neighbours, or relevant segments",
        choices=ANSWER_CONTEXTS,
        docs="Answers with each context assembly",
    )
    segments: SegmentPreset = setting(
        "balanced", "relevant segment extraction's parameters (context = segments)", choices=SEGMENT_PRESETS
    )
    neighbours: int = setting(1, "context neighbours: chunks added on each side of a gathered chunk", ge=0)
    context_tokens: int = setting(2000, "token budget of the sources", ge=256)
    # pikelocal/query/context/compress.py: decompose appends its sources whole while they fit, then cuts each batch.
    compress_tokens: int = setting(
        1000,
        "send only the source sentences nearest the question, this many tokens (0: off)",
        ge=0,
        docs="The answer's source budget",
    )
    review_compress_tokens: int = setting(
        250,
        "a checklist item's source budget, in tokens (0: answer.compress_tokens)",
        ge=0,
        docs="The review's source budget",
    )
    rerank: int = setting(
        0,
        "the LLM reorders the search's top this-many hits first (0: off)",
        ge=0,
        docs="Reranking the fused top hits with the local LLM",
    )
    follow_refs: int = setting(
        2,
        "article chunks the sources cite, added to the context (0: off)",
        ge=0,
        docs="LawBench 1-1 with legal cross-references on and off",
    )
    tree_nodes: int = setting(2, "summary-tree nodes an overview question reads first (enrich.trees; 0: off)", ge=0)
    max_tokens: int = setting(512, "tokens of the answer at most", ge=16)
    check: bool = setting(
        True,
        "check every claim against the sources; drop what no source sentence supports",
        docs="Answers a reviewer can trust: the honesty benchmark",
    )
    check_encoder: bool = setting(
        True,
        "let the encoder judge a sentence about the question, and accept a paraphrased claim, where words differ",
        docs="Checks that know what a sentence is about",
    )
    # pikelocal/text/concepts.py: 押標金 = 投标保证金 = bid bond, in the checks and in BM25's query
    concepts: str = setting(
        "",
        "a TOML file of concept groups added to the built-in ones (the form of pikelocal/text/concepts.toml); "
        "none: no groups",
        docs="Checks that know what a sentence is about",
    )
    cite_grammar: bool = setting(
        False,
        "a GBNF grammar forces [n] after every sentence",
        docs="Forcing [n] after every sentence with a grammar",
    )
    # pikelocal/query/answer/quoted.py; needs `check`. Decompose keeps the cited-prose prompt.
    quote: bool = setting(
        True,
        "naive and hier: copy the answering sentence, then answer; the quote is found and cited",
        docs="Quote, then answer",
    )
    # pikelocal/query/answer/select.py: the statements read at ingest, the model only picks one.
    select: bool = setting(
        False,
        "naive and hier: a question asking for a figure answered by choosing among the KB's statements of its kind",
        docs="Figures the system reads, the model only picks",
    )
    # pikelocal/query/answer/second_hop.py and chain_hop.py; with `quote`.
    hop: bool = setting(
        True,
        "naive: English comparisons and compositions, and a reviewer's chains (a cited article's figure, a deadline"
        " counted from another date, an item in the tender against the bid), answered one hop at a time",
        docs="Second hop: English comparisons and compositions answered hop by hop",
    )


@dataclass(frozen=True)
class Settings:
    models_dir: str = setting("", "the models' folder (empty: the checkout's models/)", answers=False)
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


@dataclass(frozen=True)
class Declared:
    """One setting as :func:`setting` declared it."""

    key: str  # dotted: llm.model, or models_dir at the top level
    default: Any
    kind: str  # int | float | bool | str
    spec: Spec

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.key.replace(".", "_").upper()


SECTIONS: dict[str, type] = {
    "llm": LLMSettings,
    "encoder": EncoderSettings,
    "ingest": IngestSettings,
    "enrich": EnrichSettings,
    "search": SearchSettings,
    "answer": AnswerSettings,
}
TOP_LEVEL = {f.name for f in fields(Settings)} - set(SECTIONS)
SCHEMA: tuple[Declared, ...] = tuple(
    Declared(f"{prefix}{f.name}", f.default, type(f.default).__name__, f.metadata["setting"])
    for prefix, cls in [("", Settings), *((f"{name}.", cls) for name, cls in SECTIONS.items())]
    for f in fields(cls)
    if "setting" in f.metadata
)
DECLARED = {d.key: d for d in SCHEMA}
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Origin:
    """Where a setting's value came from."""

    source: str = "default"  # default | file | environment | flag
    where: str = ""  # the file's path, the variable's name or the flag ("": a default, or a flag not named)

    def describe(self) -> str:
        if self.source == "file":
            return f"file {self.where}"
        if self.source == "environment":
            return f"environment variable {self.where}"
        if self.source == "flag":
            return f"flag {self.where}" if self.where else "the command line"
        return "default"


@dataclass(frozen=True)
class Effective:
    """The settings of one invocation, with where each value came from and which config file was read."""

    settings: Settings
    origins: Mapping[str, Origin]  # dotted key -> its origin; a key not here has its default
    config_file: Path | None  # the file read, if any
    config_chosen_by: str  # "--config", "$PIKELOCAL_CONFIG", "the user's config file" or "" (none read)

    def value(self, key: str) -> Any:
        return value_of(self.settings, key)

    def origin(self, key: str) -> Origin:
        return self.origins.get(key, Origin())


def value_of(settings: Settings, key: str) -> Any:
    section, _, name = key.partition(".")
    return getattr(getattr(settings, section), name) if name else getattr(settings, section)


def default_of(key: str) -> Any:
    """The declared default of ``key`` (dotted): the default of an option that a setting feeds, so the two never
    disagree."""
    return DECLARED[key].default


def answers_key(settings: Settings) -> str:
    """A digest of every setting that can change an answer (:attr:`Spec.answers`; a secret never enters it): a stored
    review row made under another digest is asked again."""
    values = {d.key: value_of(settings, d.key) for d in SCHEMA if d.spec.answers and not d.spec.secret}
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]


def _unknown(key: str, where: str) -> ConfigError:
    close = difflib.get_close_matches(key, list(DECLARED), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return ConfigError(f"{where}: unknown setting '{key}'{hint}")


def _coerce(value: Any, kind: str, key: str, where: str) -> Any:
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
        declared = DECLARED.get(key)
        if declared is None:
            raise _unknown(key, where)
        section, _, name = key.partition(".")
        coerced = _coerce(value, declared.kind, key, where)
        if name:
            sections.setdefault(section, {})[name] = coerced
        else:
            top[section] = coerced
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


def _config_file(config_file: Path | None, env: Mapping[str, str]) -> tuple[Path | None, str]:
    """The config file to read and what chose it (:data:`CONFIG_FILE_HELP`)."""
    if config_file is not None:
        return config_file, "--config"
    if env.get("PIKELOCAL_CONFIG"):
        return Path(env["PIKELOCAL_CONFIG"]), "$PIKELOCAL_CONFIG"
    user_file = user_config_file(env)
    path = user_file if user_file is not None and user_file.is_file() else None
    if Path(CONFIG_FILE).is_file() and (path is None or Path(CONFIG_FILE).resolve() != path.resolve()):
        log.warning("./%s is not read; pass --config %s to use it", CONFIG_FILE, CONFIG_FILE)
    return path, "the user's config file" if path is not None else ""


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None


def resolve_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, str] | None = None,
) -> Effective:
    """Build settings from every layer, noting where each value came from. ``config_file`` defaults to
    ``$PIKELOCAL_CONFIG``, else the user's config file when it exists (:func:`user_config_file`); ``flags`` names
    the command-line flag of each key in ``overrides`` (None values in it mean "flag not given")."""
    env = os.environ if environ is None else environ
    settings, origins = Settings(), dict[str, Origin]()
    path, chosen_by = _config_file(config_file, env)
    if path is not None:
        values = _flatten(_read_toml(path), str(path))
        settings = apply(settings, values, str(path))
        origins.update((key, Origin("file", str(path))) for key in values)
    for name, (key, value) in from_env(env).items():
        settings = apply(settings, {key: value}, f"environment variable {name}")
        origins[key] = Origin("environment", name)
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    settings = apply(settings, given, "command line")
    origins.update((key, Origin("flag", (flags or {}).get(key, ""))) for key in given)
    _validate(settings, origins)
    return Effective(settings, origins, path, chosen_by)


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """The settings of every layer (:func:`resolve_settings`)."""
    return resolve_settings(config_file, overrides, environ).settings


def is_loopback_url(url: str) -> bool:
    """True when ``url``'s host is this machine: ``localhost`` or a loopback address. A name under ``.localhost``
    does not count: the resolver may ask DNS for it and get any address (a test run saw one POSTed to 192.0.2.2).
    Whatever the name, the LLM client also checks the address it connected to before sending (llm/deadline_http)."""
    host = (urlsplit(url).hostname or "").rstrip(".")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _validate(s: Settings, origins: Mapping[str, Origin]) -> None:
    """Every declared bound and choice, then the rules between settings; the error names the value's origin."""
    for d in SCHEMA:
        value = value_of(s, d.key)
        reason = _out_of_bounds(value, d)
        if reason:
            shown = f"'{value}'" if isinstance(value, str) else value
            raise ConfigError(f"{d.key} = {shown}: {reason}{_set_in(origins, d.key)}")
    broken = _broken_rule(s)
    if broken is not None:
        message, keys = broken
        raise ConfigError(message + _set_in(origins, *keys))


def _out_of_bounds(value: Any, d: Declared) -> str:
    """Why ``value`` breaks ``d``'s declared choices or bounds ("" when it does not)."""
    spec = d.spec
    if spec.choices:
        return "" if value in spec.choices else f"must be {_one_of(spec.choices)}"
    if d.kind not in ("int", "float"):
        return ""
    finite = math.isfinite(value)
    ge, le = _number(spec.ge), _number(spec.le)
    if spec.gt is not None and not (finite and value > spec.gt):
        return f"must be more than {_number(spec.gt)}" + (f" {spec.unit}" if spec.unit else "")
    if (
        d.kind == "float"
        and spec.ge is not None
        and spec.le is not None
        and not (finite and spec.ge <= value <= spec.le)
    ):
        return f"must be {spec.meaning + ', ' if spec.meaning else ''}from {ge} to {le}"
    if spec.ge is not None and not (finite and value >= spec.ge):
        return f"must be at least {ge}" if d.kind == "int" else f"must be a finite number >= {ge}"
    if spec.le is not None and value > spec.le:
        return f"at most {le}"
    return "" if finite else "must be a finite number"


def _broken_rule(s: Settings) -> tuple[str, tuple[str, ...]] | None:
    """The first rule between settings that ``s`` breaks: its message and the keys it involves."""
    llm, ingest, weights = s.llm, s.ingest, s.search.weights()
    if llm.backend == "openai" and not llm.base_url:
        return "llm.backend = 'openai' needs llm.base_url (e.g. http://127.0.0.1:8080/v1)", ("llm.backend",)
    if llm.backend == "openai" and not llm.allow_remote and not is_loopback_url(llm.base_url):
        return (
            f"llm.base_url = '{llm.base_url}' is not on this machine, and the documents' text would be sent there;"
            " set llm.allow_remote = true (PIKELOCAL_LLM_ALLOW_REMOTE=true) to allow it"
        ), ("llm.base_url",)
    if 0 < s.encoder.late_window < 32:
        return f"encoder.late_window = {s.encoder.late_window}: use 0 (the model's own) or at least 32", (
            "encoder.late_window",
        )
    if not ingest.min_tokens <= ingest.chunk_tokens <= ingest.max_tokens:
        return (
            "ingest: need min_tokens <= chunk_tokens <= max_tokens, got"
            f" {ingest.min_tokens}, {ingest.chunk_tokens}, {ingest.max_tokens}"
        ), ("ingest.min_tokens", "ingest.chunk_tokens", "ingest.max_tokens")
    if max(weights.values()) == 0:
        names = [f"search.{name}_weight" for name in weights]
        return (
            "search: bm25_weight, dense_weight, late_weight, questions_weight and graph_weight cannot all be 0",
            tuple(names),
        )
    return None


def _set_in(origins: Mapping[str, Origin], *keys: str) -> str:
    """`` (from FILE)``: where the values of ``keys`` that are not defaults came from."""
    places = dict.fromkeys(origins[k].describe() for k in keys if k in origins)
    return f" (from {', '.join(places)})" if places else ""


def _number(bound: float | None) -> str:
    return "" if bound is None else str(int(bound)) if float(bound).is_integer() else str(bound)


def _one_of(values: tuple[str, ...]) -> str:
    quoted = [f"'{v}'" for v in values]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}"
