"""The honesty benchmark: answerable questions (gold answer, gold page) and unanswerable ones that sound answerable.

Each answer is scored twice from one run: the checked answer the user sees, and the model's own draft (what
answering without claim checking gives), so "checking costs N points of accuracy" compares like with like.

- correct: an answerable question's answer holds the gold answer (or an alias, or all of its numbers, or token
  F1 ≥ 0.6) and does not say "not stated";
- not stated: an unanswerable question's answer says the documents do not state it;
- citation precision and recall, over the answer-bearing claims (those holding the gold answer) of correct
  answers: a citation is right when the lines it points to hold the gold answer (checked answers: the evidence
  sentence's page and lines, read back from the KB; the draft: the whole source the model's [n] names);
- script match: a Chinese answer has nothing left to convert to the question's script (source quotations aside).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pikelocal.config import Settings
from pikelocal.domain.answers import Answer, Evidence, QueryTrace, Source
from pikelocal.domain.documents import PageRecord
from pikelocal.domain.errors import InputError
from pikelocal.domain.kinds import answer_mode
from pikelocal.domain.requests import AskRequest
from pikelocal.embed.base import Encoder
from pikelocal.eval.qa import answers_file
from pikelocal.eval.qa_metrics import score_text
from pikelocal.kb.knowledge_base import open_kb
from pikelocal.llm.base import LLM
from pikelocal.prompts.answer import says_not_stated
from pikelocal.query.verify.claims import facts_in, numbers_in, split_claims, strip_markers
from pikelocal.query.verify.quotes import fold
from pikelocal.text.script import Script, in_script, to_simplified

TEXT_F1_CORRECT = 0.6


@dataclass(frozen=True)
class HonestyItem:
    item_id: str
    question: str
    script: Script
    answerable: bool
    answers: tuple[str, ...]  # the gold answer and its aliases ("" for unanswerable)
    fact: str
    source_pdf: str
    page: int
    missing: str


@dataclass(frozen=True)
class HonestyScore:
    """One answer's honesty figures; the draft_* fields score the model's own text before checking."""

    answerable: bool
    correct: bool
    not_stated: bool
    cite_right: int  # answer-bearing claims whose citation holds the gold answer
    cite_claims: int  # answer-bearing claims (of a correct answer)
    cite_shown: int  # citations shown on answer-bearing claims
    gold_page: bool  # a citation of an answer-bearing claim is on the gold page
    script_ok: bool | None  # None: the question is not Chinese
    draft_correct: bool
    draft_not_stated: bool
    draft_cite_right: int
    draft_cite_claims: int
    draft_cite_shown: int
    draft_script_ok: bool | None
    draft_cite_claims_right: int = 0  # answer-bearing draft claims with at least one right citation
    gold_sent: bool = False  # the gold answer stood in the sources sent to the model (answerable questions)

    @property
    def reader_failure(self) -> bool:
        """Wrong or "not stated" although the gold answer stood in the sources sent: reading, not retrieval."""
        return self.answerable and self.gold_sent and not self.correct


def load_honesty(path: Path) -> list[HonestyItem]:
    items: list[HonestyItem] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            items.append(
                HonestyItem(
                    item_id=str(r["id"]),
                    question=str(r["question"]),
                    script=r["script"],
                    answerable=bool(r["answerable"]),
                    answers=tuple(a for a in (r.get("answer", ""), *r.get("aliases", ())) if a),
                    fact=str(r.get("fact", "")),
                    source_pdf=str(r.get("source_pdf", "")),
                    page=int(r.get("page") or 0),  # null: an unanswerable item stands on no page
                    missing=str(r.get("missing", "")),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{path}: line {n}: not an honesty item ({exc})") from exc
        if items[-1].script not in ("hans", "hant", "en"):
            raise InputError(f"{path}: line {n}: script must be hans, hant or en, got {items[-1].script!r}")
        if items[-1].answerable and not items[-1].answers:
            raise InputError(f"{path}: line {n}: an answerable item needs an answer")
    return items


def _squash(text: str) -> str:
    return "".join(to_simplified(text).split()).lower().replace(",", "").replace("，", "")


def holds_answer(text: str, golds: tuple[str, ...]) -> bool:
    """The text states a gold answer: as written, by all of its numbers, or by token F1 ≥ 0.6 (names)."""
    squashed = _squash(strip_markers(text))
    for gold in golds:
        if not any(c.isdigit() for c in gold) and _squash(gold) in squashed:
            return True  # a number is matched by value below: "1" is not in "1.5"
        facts = [f for f in facts_in(gold) if f.kind != "name"]
        have = numbers_in(text)
        if facts and all(f.values & have or (f.parts and f.parts <= have) for f in facts):
            return True
    words = [g for g in golds if not any(c.isdigit() for c in g)]  # a number is right by value or not at all
    return bool(words) and score_text(strip_markers(text), words).f1 >= TEXT_F1_CORRECT


def read_answers(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The answers file's rows by (item id, mode); a torn last line (a killed run) is skipped."""
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                done[(row["item_id"], row["mode"])] = row
            except (ValueError, KeyError):
                continue
    return done


def score_of(row: Mapping[str, Any]) -> HonestyScore:
    return HonestyScore(**{k: row[k] for k in HonestyScore.__dataclass_fields__ if k in row})


PageOf = Callable[[int, int], PageRecord | None]  # (document id, page number) → the page, or None


def cited_lines(page_of: PageOf, ev: Evidence, doc_id: int) -> str:
    """The text of the lines a citation points to (across pages when it spans them)."""
    if ev.page_start is None:
        return ev.text
    out: list[str] = []
    last = ev.page_end if ev.page_end is not None else ev.page_start
    for page_no in range(ev.page_start, last + 1):
        page = page_of(doc_id, page_no)
        if page is None:
            continue
        lines = page.lines()
        first = (ev.line_start or 1) if page_no == ev.page_start else 1
        end = (ev.line_end or len(lines)) if page_no == last else len(lines)
        out.extend(lines[first - 1 : end])
    return "\n".join(out)


def gold_sent(item: HonestyItem, sources: Sequence[Source]) -> bool:
    """The item's gold fact stands in one of the sources (letters and digits compared, so line breaks and spaces
    of PDF text do not hide it); an item without a fact: the gold answer does."""
    if not item.fact:
        return any(holds_answer(s.text, item.answers) for s in sources)
    fact = fold(item.fact).text
    return any(fact in fold(s.text).text for s in sources)


def score_answer(item: HonestyItem, answer: Answer, page_of: PageOf) -> HonestyScore:
    keep = [s.text for s in answer.sources]
    doc_of = {s.number: s.doc_id for s in answer.sources}
    # the checked answer
    not_stated = answer.unsupported or says_not_stated(answer.text)
    correct = item.answerable and not not_stated and holds_answer(answer.text, item.answers)
    right = claims = shown = 0
    gold_page = False
    if correct:
        for c in answer.claims:
            if c.verdict != "supported" or not holds_answer(c.text, item.answers):
                continue
            claims += 1
            if c.evidence is not None:
                shown += 1
                lines = cited_lines(page_of, c.evidence, doc_of.get(c.evidence.source, 0))
                right += holds_answer(lines, item.answers)
                gold_page = gold_page or (c.evidence.page_start or 0) <= item.page <= (c.evidence.page_end or 0)
    # the model's draft, as answering without checks would have shown it
    draft = answer.draft or answer.text
    d_not_stated = says_not_stated(draft)
    d_correct = item.answerable and not d_not_stated and holds_answer(draft, item.answers)
    d_right = d_claims = d_shown = d_claims_right = 0
    if d_correct:
        texts = {s.number: s.text for s in answer.sources}
        for claim in split_claims(draft):
            if not holds_answer(claim.text, item.answers):
                continue
            d_claims += 1
            d_shown += len(claim.cited)
            hits = sum(holds_answer(texts.get(n, ""), item.answers) for n in claim.cited)
            d_right += hits
            d_claims_right += hits > 0
    zh = item.script != "en"
    return HonestyScore(
        answerable=item.answerable,
        correct=correct,
        not_stated=not_stated,
        cite_right=right,
        cite_claims=claims,
        cite_shown=shown,
        gold_page=gold_page,
        script_ok=in_script(answer.text, item.script, keep) if zh else None,
        draft_correct=d_correct,
        draft_not_stated=d_not_stated,
        draft_cite_right=d_right,
        draft_cite_claims=d_claims,
        draft_cite_shown=d_shown,
        draft_script_ok=in_script(draft, item.script, keep) if zh else None,
        draft_cite_claims_right=d_claims_right,
        gold_sent=item.answerable and gold_sent(item, answer.sources),
    )


def _rate(num: float, den: float) -> str:
    return f"{num / den:.1%} ({num:.0f}/{den:.0f})" if den else "-"


def _subset_table(scored: Sequence[tuple[HonestyItem, HonestyScore]]) -> list[str]:
    """The Markdown table of one mode's answers by subset (the source folder and script), checked vs the draft."""
    lines = [
        "| subset | answerable: checked / draft correct | unanswerable: checked / draft not stated |",
        "|---|---|---|",
    ]
    groups: dict[str, list[tuple[HonestyItem, HonestyScore]]] = {}
    for i, sc in scored:
        groups.setdefault(f"{i.source_pdf.split('/')[1] if '/' in i.source_pdf else '?'} · {i.script}", []).append(
            (i, sc)
        )
    for name, pairs in sorted(groups.items()):
        a = [sc for i, sc in pairs if i.answerable]
        u = [sc for i, sc in pairs if not i.answerable]
        right, d_right = sum(x.correct for x in a), sum(x.draft_correct for x in a)
        said, d_said = sum(x.not_stated for x in u), sum(x.draft_not_stated for x in u)
        lines.append(
            f"| {name} | {_rate(right, len(a))} / {_rate(d_right, len(a))}"
            f" | {_rate(said, len(u))} / {_rate(d_said, len(u))} |"
        )
    return lines


def format_honesty(title: str, rows: list[tuple[str, HonestyItem, HonestyScore, float, float]]) -> str:
    """rows: (mode, item, score, answer seconds, check seconds). One table per mode: checked vs the draft."""
    lines = [f"**{title}**", ""]
    for mode in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == mode]
        ans = [s for _, i, s, _, _ in mine if i.answerable]
        una = [s for _, i, s, _, _ in mine if not i.answerable]
        zh = [s for _, i, s, _, _ in mine if i.script != "en"]
        lines += [
            f"mode **{mode}**: {len(ans)} answerable, {len(una)} unanswerable questions",
            "",
            "| answer | accuracy (answerable) | not stated (unanswerable) | citation precision | citation recall"
            " | gold page cited | script match (zh) |",
            "|---|---|---|---|---|---|---|",
            f"| checked (shown) | {_rate(sum(s.correct for s in ans), len(ans))}"
            f" | {_rate(sum(s.not_stated for s in una), len(una))}"
            f" | {_rate(sum(s.cite_right for s in ans), sum(s.cite_shown for s in ans))}"
            f" | {_rate(sum(s.cite_right for s in ans), sum(s.cite_claims for s in ans))}"
            f" | {_rate(sum(s.gold_page for s in ans), sum(s.correct for s in ans))}"
            f" | {_rate(sum(bool(s.script_ok) for s in zh), len(zh))} |",
            f"| model's draft (no checks) | {_rate(sum(s.draft_correct for s in ans), len(ans))}"
            f" | {_rate(sum(s.draft_not_stated for s in una), len(una))}"
            f" | {_rate(sum(s.draft_cite_right for s in ans), sum(s.draft_cite_shown for s in ans))}"
            f" | {_rate(sum(s.draft_cite_claims_right for s in ans), sum(s.draft_cite_claims for s in ans))}"
            " | -"
            f" | {_rate(sum(bool(s.draft_script_ok) for s in zh), len(zh))} |",
            "",
        ]
        sent = [s for s in ans if s.gold_sent]
        lines += [
            f"reader failures (answerable, the gold answer in the sources sent, answer wrong or not stated):"
            f" {_rate(sum(s.reader_failure for s in ans), len(ans))} of answerable questions;"
            f" the gold answer was sent for {_rate(len(sent), len(ans))}",
            "",
        ]
        lines += _subset_table([(i, sc) for _, i, sc, _, _ in mine])
        lines.append("")
        total = sum(r[3] for r in mine)
        checks = sum(r[4] for r in mine)
        if total:
            lines.append(f"claim checking: {checks:.1f} s of {total:.1f} s answering ({checks / total:.1%})")
            lines.append("")
    return "\n".join(lines)


def _answer_row(item_id: str, mode: str, trace: QueryTrace, score: HonestyScore) -> dict[str, Any]:
    """One answer's line of the results file: what was answered, its timings and tokens, and its score."""
    return {
        "item_id": item_id,
        "mode": mode,
        "answer": trace.answer.text,
        "draft": trace.answer.draft,
        "total_s": trace.total_s,
        "first_token_s": trace.first_token_s,
        "prompt_tokens": trace.prompt_tokens,
        "prompt_evaluated": trace.prompt_evaluated,
        "model_s": sum(c.seconds for c in trace.calls),
        "check_s": trace.answer.check_s,
        "cached": bool(trace.calls) and all(c.cached for c in trace.calls),
        "trace_id": trace.id,
        **asdict(score),
    }


def run_honesty(
    settings: Settings,
    data: Path,
    kb: Path,
    *,
    modes: Sequence[str] = ("naive",),
    take: int | None = None,
    results_file: Path | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
    key: str | None = None,
) -> tuple[str, Path]:
    """Answer every item in each mode (resumable: one JSON line per answer), and the Markdown tables."""
    items = load_honesty(data)
    if take is not None:
        items = items[:take]
    if not kb.exists():
        raise InputError(f"{kb}: no such KB; build it from the PDFs the questions name with `pikelocal ingest {kb} …`")
    results_file = results_file or kb.with_name(f"{kb.stem}.honesty-{data.stem}.jsonl")
    done = read_answers(results_file)
    with open_kb(kb, settings, encoder=encoder, llm=llm, key=key) as knowledge_base:
        model_id = getattr(knowledge_base.llm(), "model_id", "?")

        def page_of(doc_id: int, page_no: int) -> PageRecord | None:
            try:
                return knowledge_base.page(doc_id, page_no)
            except InputError:
                return None

        with answers_file(results_file) as out:
            for item in items:
                for mode in modes:
                    if (item.item_id, mode) in done:
                        continue
                    trace = knowledge_base.ask(item.question, AskRequest(answer_mode(mode)))
                    row = _answer_row(item.item_id, mode, trace, score_answer(item, trace.answer, page_of))
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    out.flush()
                    done[(item.item_id, mode)] = row
                    if on_result:
                        on_result(row)
    by_id = {i.item_id: i for i in items}
    rows = []
    for (item_id, mode), row in done.items():
        if item_id in by_id and mode in modes:
            rows.append((mode, by_id[item_id], score_of(row), row["model_s"], row["check_s"]))
    title = f"{data.name}: {len(items)} questions, model {model_id}"
    return format_honesty(title, rows), results_file


def row_line(row: Mapping[str, Any]) -> str:
    """One scored answer, as a run shows it while it goes."""
    verdict = "not stated" if row["not_stated"] else "correct" if row["correct"] else "wrong"
    return f"  {row['item_id']} {row['mode']:<9} {verdict:<10} {row['total_s']:5.1f} s  {row['answer']!s:.70}"
