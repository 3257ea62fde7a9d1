"""The one surface the front ends (CLI, TUI) and eval call: :func:`open_kb` for everything done to a knowledge
base, and the few things that need no KB (settings, models, doctor, demo, benchmarks).

Heavy libraries load lazily, on first use, so ``pikelocal --help`` stays fast. The records these functions
return live in :mod:`pikelocal.domain` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal import domain
from pikelocal.assets import ArtifactStatus, Manifest, check_artifact, load_manifest
from pikelocal.config import (
    CONFIG_FILE_HELP,
    SCHEMA,
    Declared,
    Effective,
    Origin,
    Settings,
    load_settings,
    resolve_settings,
)
from pikelocal.doctor import Section, run_doctor
from pikelocal.domain import *  # noqa: F403  (the records, kinds, events and errors are part of this surface)
from pikelocal.domain.events import EventSink, ignore
from pikelocal.domain.reports import EvalReport
from pikelocal.domain.shown import escape_hidden_json, shown_name
from pikelocal.trace_text import claim_lines, printable, summary_line, trace_lines

if TYPE_CHECKING:
    from pikelocal.demo import DemoResult
    from pikelocal.embed.base import Encoder
    from pikelocal.kb.knowledge_base import KnowledgeBase
    from pikelocal.llm.base import LLM


__all__ = [
    "ArtifactStatus", "KnowledgeBase", "Manifest", "Section", "Settings", "best_excerpt", "builtin_checklists",
    "claim_lines", "demo", "doctor", "CONFIG_FILE_HELP", "SCHEMA", "Declared", "Effective", "Origin",
    "resolve_settings",
    "escape_hidden_json", "eval_qa", "eval_retrieval", "kb_problem", "load_settings", "model_statuses", "open_kb",
    "printable", "shown_name", "summary_line", "trace_lines",
]  # fmt: skip
__all__ += domain.__all__


def __getattr__(name: str) -> object:
    """``api.KnowledgeBase`` without importing numpy, SQLite and the pipelines when the CLI starts."""
    if name == "KnowledgeBase":
        from pikelocal.kb.knowledge_base import KnowledgeBase

        return KnowledgeBase
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_kb(
    path: Path,
    settings: Settings,
    *,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
    key: str | None = None,
) -> KnowledgeBase:
    """The knowledge base at ``path``, created by its first ``add``; a context manager that closes the models it
    loaded. Every operation on a KB is a method of the object returned (``add``, ``enrich``, ``search``,
    ``segments``, ``ask``, ``documents``, ``stats``, ``history``, ``trace``, ``remove``, ``reembed``, ``page``,
    ``encrypt``, ``rekey``, ``decrypt``, and ``recover``: a new KB from what a damaged one still reads; a damaged KB
    is refused by every writer with :class:`CorruptKBError`); a document review too (``review``, ``side_by_side``:
    a checklist per document, as columns, with ``side_by_side_table`` and ``export_side_by_side``). ``key`` opens
    an encrypted KB, or makes a new one encrypted (else ``$PIKELOCAL_KEY``, which a plain KB ignores); it is never
    stored."""
    from pikelocal.kb.knowledge_base import open_kb as open_knowledge_base

    return open_knowledge_base(path, settings, encoder=encoder, llm=llm, key=key)


def builtin_checklists() -> list[str]:
    """The names of the checklists that ship with pikelocal (``pikelocal review --checklist NAME``)."""
    from pikelocal.review.checklist import builtin_checklists as names

    return names()


def best_excerpt(text: str, question: str, width: int = 240) -> str:
    """The part of ``text`` a reader should see first for ``question``: from its sentence holding the most of the
    question's terms (``query/retrieve/snippet.py``), whitespace collapsed."""
    from pikelocal.query.retrieve.snippet import make_snippet

    return make_snippet(text, question, width=width).text


def kb_problem(kb_path: Path) -> str | None:
    """Why ``kb_path`` can be neither opened nor created as a knowledge base, or None when it can."""
    from pikelocal.kb.catalog import check_kb_path

    return check_kb_path(kb_path)


def kb_is_encrypted(kb_path: Path) -> bool:
    """Whether ``kb_path`` is an encrypted KB (its header says so; no key needed)."""
    from pikelocal.kb.catalog import is_encrypted

    return is_encrypted(kb_path)


def unlock_kb(kb_path: Path, key: str) -> None:
    """Use ``key`` for ``kb_path`` in this process (the TUI's chooser); a wrong key raises a one-line InputError."""
    from pikelocal.kb.catalog import unlock_kb as unlock

    unlock(kb_path, key)


def model_statuses(settings: Settings, *, full: bool = False) -> tuple[Manifest, list[ArtifactStatus]]:
    """Every artifact of the manifest with its state (verified / missing / corrupt)."""
    manifest = load_manifest(settings.models_path())
    return manifest, [check_artifact(manifest, art, full=full) for art in manifest.artifacts]


def doctor(
    settings: Settings, kb: Path | None = None, *, full: bool = False, key: str | None = None, network: bool = False
) -> list[Section]:
    """Versions, hardware, models, the network switches (with ``network``, an encoder run traced for internet
    calls) and (given ``kb``) that KB file, opened with ``key`` when it is encrypted (else the key remembered for
    it, else ``$PIKELOCAL_KEY``): a missing or wrong key is a failed check, not an error."""
    return run_doctor(settings, kb, full=full, key=key, network_traced=network)


def measured_batch_width(settings: Settings) -> int | None:
    """The batch width ``calibrate`` kept for the configured in-process model on this machine, or None."""
    from pikelocal.assets import resolve_gguf
    from pikelocal.llm.batch_width import read_width
    from pikelocal.llm.factory import width_key

    return read_width(width_key(settings.llm, resolve_gguf(settings.llm.model, settings.models_path())))


def calibrate(settings: Settings) -> domain.Calibration:
    """Measure the in-process LLM's generation rate at 1, 2 and 4 batched sequences on this machine and keep the
    width that pays, which ``llm.batch = 0`` then uses (``pikelocal/llm/batch_width.py``). About 10-20 s."""
    from pikelocal.assets import resolve_gguf
    from pikelocal.demo import SAMPLES
    from pikelocal.llm.batch_width import calibrate as measure
    from pikelocal.llm.factory import model_id_of, threads_of, width_key

    cfg = settings.llm
    if cfg.backend != "llama_cpp":
        raise domain.ConfigError("pikelocal calibrate measures the in-process model (llm.backend = 'llama_cpp')")
    path = resolve_gguf(cfg.model, settings.models_path())
    text = "\n".join(f.read_text(encoding="utf-8") for f in sorted(SAMPLES.glob("*.md")))
    return measure(
        path, width_key(cfg, path), model_id_of(path), threads=threads_of(cfg), gpu_layers=cfg.gpu_layers, text=text
    )


def demo(settings: Settings, kb_path: Path, emit: Callable[[str], None]) -> DemoResult:
    """Run the foundation demo (see ``pikelocal.demo``); ``emit`` receives readable lines."""
    from pikelocal.demo import run_demo

    return run_demo(settings, kb_path, emit)


def eval_retrieval(
    settings: Settings,
    data: Path,
    *,
    which: str | None = None,
    kb: Path | None = None,
    modes: Sequence[str] = ("bm25", "dense", "late", "hybrid"),
    ks: Sequence[int] = (1, 2, 5, 10, 100),
    limit: int | None = None,
    seed: int = 0,
    chunk_tokens: int | None = None,
    pool: bool = False,
    sink: EventSink = ignore,
    key: str | None = None,
) -> EvalReport:
    """nDCG@10, Recall@k and MRR per search mode over a benchmark (the KB is built once and reused). ``key`` opens
    the KB when it is encrypted, or builds a new one encrypted (else ``$PIKELOCAL_KEY``, as :func:`open_kb`)."""
    from pikelocal.eval.retrieval import format_table
    from pikelocal.eval.runner import run_retrieval

    run = run_retrieval(
        settings, data, which=which, kb=kb, modes=modes, ks=ks, limit=limit, seed=seed,
        chunk_tokens=chunk_tokens, pool=pool, sink=sink, key=key,
    )  # fmt: skip
    return EvalReport(format_table(run.title, run.scores, run.ks), tuple(run.notes), run.kb)


def eval_qa(
    settings: Settings,
    data: Path,
    kb: Path,
    *,
    modes: Sequence[str] = ("naive", "hier", "decompose"),
    limit: int | None = None,
    seed: int = 0,
    take: int | None = None,
    rounds: int | None = None,
    results_file: Path | None = None,
    on_answer: Callable[[str], None] | None = None,
    sink: EventSink = ignore,
    key: str | None = None,
) -> EvalReport:
    """Answer a benchmark's questions in each mode and score them (resumable); ``on_answer`` gets one line per
    answer as it is scored. An honesty set (``tests/data/honesty_qa.jsonl``) gets its own measures. ``key``: as
    :func:`eval_retrieval`'s."""
    from pikelocal.eval.qa import format_table, result_line, run_qa
    from pikelocal.eval.qa_data import detect_qa_layout

    if detect_qa_layout(data) == "honesty":
        from pikelocal.eval.honesty import row_line, run_honesty

        table, answers = run_honesty(
            settings, data, kb, modes=modes, take=take, results_file=results_file, key=key,
            on_result=(lambda row: on_answer(row_line(row))) if on_answer else None,
        )  # fmt: skip
        return EvalReport(table, (), kb, answers)
    run = run_qa(
        settings, data, kb, modes=modes, limit=limit, seed=seed, take=take, rounds=rounds,
        results_file=results_file, sink=sink, key=key,
        on_result=(lambda r: on_answer(result_line(r))) if on_answer else None,
    )  # fmt: skip
    return EvalReport(format_table(run), tuple(run.notes), kb, run.results_file)
