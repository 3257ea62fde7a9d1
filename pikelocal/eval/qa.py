"""`pikelocal eval qa`: answer benchmark questions in each mode, score them, and keep every answer as it comes.

Each (question, mode) result is appended to a JSONL file the moment it is scored, and every LLM call is in the
KB's cache, so a stopped run continues where it stopped. Questions are taken one at a time with every mode in
turn, so a partial run still compares the modes on the same questions.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from pikelocal.config import Settings
from pikelocal.domain.errors import InputError
from pikelocal.domain.events import EventSink, Notice, ignore
from pikelocal.domain.kinds import AnswerStyle, answer_mode
from pikelocal.domain.requests import AskRequest
from pikelocal.embed.base import Encoder
from pikelocal.eval import datasets as ds
from pikelocal.eval.qa_data import QAItem, detect_qa_layout, load_qa
from pikelocal.eval.qa_metrics import LAWBENCH_CHOICE_TASKS, Score, mean_scores, score_item
from pikelocal.eval.retrieval import ingest_corpus
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.kb.knowledge_base import KnowledgeBase, open_kb
from pikelocal.kb.options import ingest_options
from pikelocal.llm.base import LLM
from pikelocal.query.verify.citations import strip_citations
from pikelocal.store.store import Store

# Tasks answered by an option letter or True/False: no source sentence holds "B", so claim checking (which
# would turn such an answer into "not stated") is off for them; every other task is scored as users see it.
UNCHECKED_TASKS = frozenset({"tf", "mcq", *LAWBENCH_CHOICE_TASKS})

# What each task asks of the answer, on top of the answering rules (LawBench items bring their own).
TASK_INSTRUCTIONS = {
    "tf": "Begin the answer with True or False.",
    "mcq": "Begin the answer with the letter(s) of the correct option(s), e.g. B or A, C.",
}


@dataclass(frozen=True)
class QAResult:
    item_id: str
    mode: str
    task: str
    hops: int
    prediction: str  # the answer without citation markers
    gold: tuple[str, ...]
    em: float
    f1: float
    precision: float
    recall: float
    calls: int
    prompt_tokens: int
    completion_tokens: int
    first_token_s: float | None
    total_s: float
    model_s: float  # the LLM calls' own time when they ran (kept in the cache, so true even for a cached rerun)
    cached: bool  # every LLM call came from the cache (first_token_s and total_s are then not this run's)
    trace_id: int | None
    prompt_evaluated: int | None = None  # prompt tokens the model ran (after reused KV prefixes); None: cached
    draft_f1: float | None = None  # F1 of the model's draft before the claim check; None: no draft kept


@dataclass(frozen=True)
class QARun:
    title: str
    kb: Path
    results_file: Path
    modes: tuple[str, ...]
    results: list[QAResult]
    notes: tuple[str, ...] = ()
    kinds: Mapping[str, str] = field(default_factory=dict)  # item id → the data's question type (AusLaw: file)


def style_for(item: QAItem) -> tuple[AnswerStyle, str]:
    if item.instruction:  # LawBench: the benchmark's own instruction
        return "full", item.instruction
    return "short", TASK_INSTRUCTIONS.get(item.task, "")


def load_results(path: Path) -> dict[tuple[str, str], QAResult]:
    """Finished (item, mode) results of earlier runs; a torn last line (killed mid-write) is ignored."""
    done: dict[tuple[str, str], QAResult] = {}
    if not path.exists():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            row["gold"] = tuple(row["gold"])
            result = QAResult(**row)
        except (ValueError, TypeError, KeyError):
            continue
        done[(result.item_id, result.mode)] = result
    return done


def prepare_kb(
    settings: Settings, data: Path, items: Sequence[QAItem], kb: Path, sink: EventSink, key: str | None = None
) -> list[str]:
    """Build the KB the questions are asked of when it does not exist yet (encrypted with ``key``, else
    ``$PIKELOCAL_KEY``, when one is set); notes on what was built."""
    if kb.exists():
        return []
    layout = detect_qa_layout(data)
    if layout == "lawbench":
        raise InputError(
            f"{kb}: no such KB; LawBench questions are asked of the law KB that"
            " `pikelocal eval retrieval ../shared/data/legal_zh --kb KB` builds"
        )
    from pikelocal.embed.factory import open_encoder

    sink(Notice("info", f"{kb}: building the KB the questions are asked of (once; later runs reuse it)"))
    encoder = open_encoder(settings)
    options = ingest_options(settings)
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder, key=key) as store:
        if layout == "multihop":
            corpus = data.with_name(data.name.replace("_questions.json", "_corpus.json"))
            evalset = ds.load_multihop(corpus, data)
            wanted = {i.item_id for i in items}
            evalset = ds.pooled(evalset, [q for q in evalset.queries if q.query_id in wanted])
            ingest_corpus(store, encoder, evalset, options, sink)
            return [f"KB built from the {len(evalset.docs)} paragraphs pooled for these questions"]
        root = data.parent.parent  # auslaw: source_pdf paths are relative to the data folder
        pdfs = sorted({root / line for line in _auslaw_pdfs(data)})
        Ingestor(store, encoder, options, sink).ingest_paths(pdfs)
        return [f"KB built from the {len(pdfs)} PDFs the questions are about"]


def ends_mid_line(path: Path) -> bool:
    with path.open("rb") as fh:
        if fh.seek(0, 2) == 0:
            return False
        fh.seek(-1, 2)
        return fh.read(1) != b"\n"


@contextmanager
def answers_file(path: Path) -> Iterator[TextIO]:
    """``path`` open for appending one JSON line per answer, after ending a line a killed run tore (so the next
    answer starts its own line and the torn one is skipped when results are read back)."""
    with path.open("a", encoding="utf-8") as out:
        if ends_mid_line(path):
            out.write("\n")
        yield out


def _auslaw_pdfs(data: Path) -> set[str]:
    return {json.loads(line)["source_pdf"] for line in data.read_text(encoding="utf-8").splitlines() if line.strip()}


def run_qa(
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
    sink: EventSink = ignore,
    on_result: Callable[[QAResult], None] | None = None,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
    key: str | None = None,
) -> QARun:
    """Answer ``data``'s questions of ``kb`` (built first when missing) in each mode, resumably. ``key`` opens an
    encrypted ``kb`` or builds it encrypted; without it, ``$PIKELOCAL_KEY`` (see :func:`pikelocal.api.open_kb`)."""
    data = Path(data)
    items = ds.subset(load_qa(data), limit, seed)
    notes = prepare_kb(settings, data, items, kb, sink, key)
    if take is not None:  # answer only the first questions of the subset now (a later run can take more)
        items = items[:take]
    results_file = results_file or kb.with_name(f"{kb.stem}.qa-{data.stem}.jsonl")
    done = load_results(results_file)
    with open_kb(kb, settings, encoder=encoder, llm=llm, key=key) as knowledge_base:
        model_id = getattr(knowledge_base.llm(), "model_id", "?")
        with answers_file(results_file) as out:
            for item in items:
                for mode in modes:
                    if (item.item_id, mode) in done:
                        continue
                    result = _answer_one(knowledge_base, item, mode, rounds)
                    out.write(json.dumps(asdict(result), ensure_ascii=False) + "\n")
                    out.flush()
                    done[(item.item_id, mode)] = result
                    if on_result:
                        on_result(result)
    wanted = {i.item_id for i in items}
    results = [r for (item_id, _), r in done.items() if item_id in wanted and r.mode in modes]
    title = f"{data.name}: {len(items)} questions (seed {seed}), model {model_id}"
    kinds = {i.item_id: i.kind for i in items if i.kind}
    return QARun(title, kb, results_file, tuple(modes), results, tuple(notes), kinds)


def _answer_one(knowledge_base: KnowledgeBase, item: QAItem, mode: str, rounds: int | None) -> QAResult:
    style, instruction = style_for(item)
    check = False if item.task in UNCHECKED_TASKS else None
    request = AskRequest(answer_mode(mode), rounds, style=style, instruction=instruction, check=check)
    trace = knowledge_base.ask(item.question, request)
    prediction = strip_citations(trace.answer.text)
    score: Score = score_item(item.task, prediction, item.answers)
    draft = trace.answer.draft
    draft_f1 = score_item(item.task, strip_citations(draft), item.answers).f1 if draft else None
    return QAResult(
        item_id=item.item_id,
        mode=mode,
        task=item.task,
        hops=item.hops,
        prediction=prediction,
        gold=item.answers,
        em=score.em,
        f1=score.f1,
        precision=score.precision,
        recall=score.recall,
        calls=len(trace.calls),
        prompt_tokens=trace.prompt_tokens,
        completion_tokens=trace.completion_tokens,
        first_token_s=trace.first_token_s,
        total_s=trace.total_s,
        model_s=sum(c.seconds for c in trace.calls),
        cached=bool(trace.calls) and all(c.cached for c in trace.calls),
        trace_id=trace.id,
        prompt_evaluated=None if any(c.cached for c in trace.calls) else trace.prompt_evaluated,
        draft_f1=draft_f1,
    )


def result_line(r: QAResult) -> str:
    """One scored answer, as a run shows it while it goes."""
    return f"  {r.item_id} {r.mode:<9} F1 {r.f1:.2f}  {r.total_s:5.1f} s  {r.prediction[:70]!r}"


def complete_items(run: QARun) -> set[str]:
    """Questions answered in every mode (the fair basis of a side-by-side table)."""
    by_item: dict[str, set[str]] = {}
    for r in run.results:
        by_item.setdefault(r.item_id, set()).add(r.mode)
    return {i for i, ms in by_item.items() if set(run.modes) <= ms}


def format_table(run: QARun) -> str:
    """Per mode: EM, F1, P, R, mean LLM calls / tokens / model seconds, and medians of the uncached timings."""
    items = complete_items(run)
    lines = [
        f"**{run.title}**",
        "",
        "| mode | questions | EM | F1 | P | R | LLM calls | prompt tok | prompt tok evaluated (median)"
        " | output tok | model s (mean) | first token s (median) | total s (median) |",
        "|---" * 13 + "|",
    ]
    for mode in run.modes:
        rows = [r for r in run.results if r.mode == mode and r.item_id in items]
        if not rows:
            continue
        s = mean_scores([Score(r.em, r.f1, r.precision, r.recall) for r in rows])
        live = [r for r in rows if not r.cached]  # timings of answers served from the cache mean nothing
        ttft = [r.first_token_s for r in live if r.first_token_s is not None]
        first = f"{statistics.median(ttft):.1f} ({len(ttft)})" if ttft else "-"
        total = f"{statistics.median(r.total_s for r in live):.1f} ({len(live)})" if live else "-"
        ran = [r.prompt_evaluated for r in rows if r.prompt_evaluated is not None]
        evaluated = f"{statistics.median(ran):,.0f} ({len(ran)})" if ran else "-"
        lines.append(
            f"| {mode} | {len(rows)} | {s.em:.3f} | {s.f1:.3f} | {s.precision:.3f} | {s.recall:.3f}"
            f" | {statistics.mean(r.calls for r in rows):.1f} | {statistics.mean(r.prompt_tokens for r in rows):,.0f}"
            f" | {evaluated}"
            f" | {statistics.mean(r.completion_tokens for r in rows):,.0f}"
            f" | {statistics.mean(r.model_s for r in rows):.1f} | {first} | {total} |"
        )
    hops = {f"{r.hops} hops": r.hops for r in run.results if r.item_id in items}
    lines += _f1_by(run, items, "number of supporting paragraphs (hops)", lambda r: r.hops, hops)
    kinds = {run.kinds[i]: run.kinds[i] for i in items if i in run.kinds}
    what = "the data's question type (AusLaw: the source file)"
    lines += _f1_by(run, items, what, lambda r: run.kinds.get(r.item_id), kinds)
    lines += head_to_head(run, items)
    lines += check_effect(run, items)
    return "\n".join(lines)


def check_effect(run: QARun, items: set[str]) -> list[str]:
    """What the claim check did to each mode's scores: the drafts' F1 before it, and on how many questions the
    checked answer scored lower or higher than its draft (e.g. a right second-hop draft withdrawn as "not
    stated"). Nothing when no draft was kept (older results, unchecked tasks)."""
    lines = []
    for mode in run.modes:
        pairs = [
            (r.draft_f1, r.f1) for r in run.results if r.mode == mode and r.item_id in items and r.draft_f1 is not None
        ]
        if not pairs:
            continue
        lowered = sum(checked < draft for draft, checked in pairs)
        raised = sum(checked > draft for draft, checked in pairs)
        lines.append(
            f"{mode}: the drafts before the claim check score F1 {statistics.mean(d for d, _ in pairs):.3f}, the"
            f" checked answers {statistics.mean(c for _, c in pairs):.3f} ({len(pairs)} questions); the check"
            f" lowered F1 on {lowered}, raised it on {raised}."
        )
    return ["", *lines] if lines else []


def _f1_by(
    run: QARun, items: set[str], what: str, group: Callable[[QAResult], object], groups: Mapping[str, object]
) -> list[str]:
    """A table of F1 (and n) per mode and group, when the questions fall in more than one group."""
    if len(groups) < 2:
        return []
    names = sorted(groups, key=lambda name: (str(type(groups[name])), groups[name]))  # hops by number, types by name
    lines = ["", f"F1 by {what}:", "", "| mode | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for mode in run.modes:
        cells = []
        for name in names:
            rows = [r for r in run.results if r.mode == mode and r.item_id in items and group(r) == groups[name]]
            cells.append(f"{statistics.mean(r.f1 for r in rows):.3f} ({len(rows)})" if rows else "-")
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    return lines


def head_to_head(run: QARun, items: set[str], baseline: str = "naive") -> list[str]:
    """Each other mode against ``baseline``, question by question: on how many its F1 is higher, lower, equal."""
    if baseline not in run.modes:
        return []
    f1 = {(r.item_id, r.mode): r.f1 for r in run.results if r.item_id in items}
    lines = []
    for mode in run.modes:
        if mode == baseline:
            continue
        diffs = [f1[(i, mode)] - f1[(i, baseline)] for i in sorted(items) if (i, mode) in f1 and (i, baseline) in f1]
        if diffs:
            up, down = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
            lines.append(
                f"{mode} against {baseline}, question by question: F1 higher on {up}, lower on {down},"
                f" equal on {len(diffs) - up - down} (mean difference {statistics.mean(diffs):+.3f})."
            )
    return ["", *lines] if lines else []
