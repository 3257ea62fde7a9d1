"""Text for a terminal: a question trace as one summary line or line by line (CLI and TUI), and
:func:`printable`, which every piece of document or model text passes through before a terminal sees it."""

from __future__ import annotations

import re

from pikelocal.domain.answers import Answer, QueryTrace, Source

_MARK = {"supported": "✓", "unsupported": "✗", "contradicted": "✗", "not_stated": "∅", "filler": "·"}


# C0 and C1 control characters (ESC, CSI, OSC, BEL, backspace, carriage return, …) but newline and tab, DEL, and
# the Unicode controls that reorder text (bidi embeddings, overrides and isolates).
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` without control characters, so a document cannot clear the screen, set the terminal's title, move
    the cursor or reorder what is shown: without its introducer (ESC, CSI, OSC) an escape sequence is inert text."""
    return _UNPRINTABLE.sub("", text)


def summary_line(trace: QueryTrace) -> str:
    """``trace 7 · decompose · 3 rounds · 8 LLM calls · 4,210 + 310 tokens · first token 12.3 s · 45.6 s``."""
    parts = [f"trace {trace.id}" if trace.id is not None else "trace not stored", trace.mode]
    if trace.mode == "decompose":
        parts.append(f"{len(trace.rounds)} round{'s' if len(trace.rounds) != 1 else ''}")
    parts.append(f"{len(trace.calls)} LLM call{'s' if len(trace.calls) != 1 else ''}")
    ran = trace.prompt_evaluated
    evaluated = f" ({ran:,} evaluated)" if ran != trace.prompt_tokens else ""
    parts.append(f"{trace.prompt_tokens:,}{evaluated} + {trace.completion_tokens:,} tokens")
    if trace.first_token_s is not None:
        parts.append(f"first token {trace.first_token_s:.1f} s")
    parts.append(f"{trace.total_s:.1f} s")
    if trace.answer.removed_citations:
        parts.append(f"{trace.answer.removed_citations} invalid citation(s) removed")
    return " · ".join(parts)


def claim_lines(answer: Answer, width: int = 60) -> list[str]:
    """Each claim of the model's answer with its verdict and evidence (empty when the answer was not checked)."""
    if not answer.claims:
        return []
    kept = sum(c.verdict == "supported" for c in answer.claims)
    checkable = sum(c.verdict in ("supported", "unsupported", "contradicted") for c in answer.claims)
    out = [f"Checked claims: {kept} of {checkable} supported by a source sentence"]
    for c in answer.claims:
        text = " ".join(c.text.split())
        text = text if len(text) <= width else text[: width - 1] + "…"
        line = f"  {_MARK.get(c.verdict, '?')} {c.verdict:<12} {text}"
        if c.verdict == "supported" and c.evidence is not None:
            line += f"  → [{c.evidence.source}] {c.evidence.location()}" + (f" ({c.method})" if c.method else "")
        elif c.verdict == "contradicted" and c.evidence is not None:
            line += f"  — [{c.evidence.source}] {c.evidence.location()} says: {c.evidence.text[:width]}"
        elif c.reason and c.verdict != "filler":
            line += f"  — {c.reason}"
        out.append(line)
    return [printable(line) for line in out]


def _what(source: Source) -> str:
    if source.summary_node is not None:
        return f"summary node {source.summary_node}: {' › '.join(source.section[1:])}"
    return f"chunks {', '.join(map(str, source.chunk_ids))}"


def trace_lines(t: QueryTrace) -> list[str]:
    """The trace as readable lines (also what the TUI's reasoning panel shows)."""
    out = [f"Trace {t.id} · {t.created_at or ''} · {t.mode} · {t.model_id}", f"Question: {t.question}", ""]
    for r in t.rounds:
        out.append(f"Round {r.number}" + (f"  (backup: {r.backup})" if r.backup else ""))
        for p in r.proposals:
            out.append(f"  sub-question: {p}")
        for i, c in enumerate(r.candidates):
            mark = "→" if i == r.picked else " "
            out.append(f"  {mark} {c.score:.3f} [{c.source}] {c.text}")
        if r.chunk_added is not None:
            out.append(f"  added chunk {r.chunk_added}: {r.chunk_location or '(removed since)'}")
        if r.stop:
            out.append(f"  stop: {r.stop}")
    for note in t.notes:
        out.append(f"note: {note}")
    for node_id, label in t.summary_nodes:
        out.append(f"summary node {node_id}: {label}")
    out += ["", "Sources:"]
    out += [f"  [{s.number}] {s.location()}  ({_what(s)})" for s in t.answer.sources]
    out += ["", "Answer:", t.answer.text, ""]
    if t.answer.claims:
        if t.answer.draft and t.answer.draft != t.answer.text:
            out[-1:-1] = ["", "The model's draft (before checking):", t.answer.draft]
        out[-1:-1] = ["", *claim_lines(t.answer, width=80)]
    if t.answer.matched:
        out.insert(
            -1, "(citations " + "".join(f"[{n}]" for n in t.answer.matched) + " added by matching, not by the model)"
        )
    by_tag: dict[str, list[float]] = {}
    for call in t.calls:
        row = by_tag.setdefault(call.tag, [0, 0, 0, 0, 0.0])
        row[0] += 1
        row[1] += call.prompt_tokens
        row[2] += call.ran
        row[3] += call.completion_tokens
        row[4] += call.seconds
    out.append("LLM calls:")
    for tag, (n, prompt, ran, output, seconds) in by_tag.items():
        out.append(
            f"  {tag:<22} {int(n):>3} calls  {int(prompt):>7,} prompt ({int(ran):,} evaluated)"
            f"  {int(output):>6,} output tokens  {seconds:7.1f} s"
        )
    first = f"{t.first_token_s:.1f} s" if t.first_token_s is not None else "-"
    checks = f" · claim checks {t.answer.check_s:.2f} s" if t.answer.claims else ""
    out.append(f"First answer token {first} · total {t.total_s:.1f} s{checks}")
    if t.answer.removed_citations:
        out.append(f"{t.answer.removed_citations} citation number(s) named no source and were removed")
    return [printable(line) for line in out]
