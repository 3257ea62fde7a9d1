"""A product chain (``query/answer/chain_plan.py``) answered hop by hop: each hop its own search (restricted to a
document, or reading one article), its own quote-then-answer call, and a value the system reads from the located
quote with ``text/values.py`` and ``text/legal_refs.py``; the last step is computed by the system, not the model.

- cited article: hop 1's quote (or, failing it, the sentence of its sources that cites an article of its own
  document and shares most words with the question) gives the article; hop 2 reads that article, found by its
  heading among the citing document's chunks ("第15条", "Clause 15", "15. Refund"), and its figure of the asked
  kind: the model's, where it stands in the article, else the article's first figure of that kind.
- deadline: hop 1's clause counts a period forward from an event ("合同签订之日起30日内"); hop 2 asks the event's
  date and keeps it only from a sentence about that event; the system adds the period (calendar days, weeks,
  months, years; working days are not counted: the answer says so).
- two documents: each hop searches one document (named by its role, matched against the documents' titles and
  file names) for the item's value; the system compares the two with ``same_value``.

Every value is cited by the sentence it was read from. Where the first hop finds nothing to go on (no article
cited, the article not in the KB, no document of a role, a clause that states the day itself or counts nothing
forward), the chain gives up and the question takes the ordinary path; where a later hop finds nothing, the answer
is "not stated".
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pikelocal.domain.answers import Answer, ClaimCheck, Source
from pikelocal.domain.review import Value
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM, GenParams
from pikelocal.prompts.answer import not_stated
from pikelocal.prompts.quote import QuotedReply, parse_quoted, quote_grammar, quote_messages
from pikelocal.query.answer.chain_plan import Chain, Hop, roles_named
from pikelocal.query.answer.chain_reading import (
    Read,
    day_text,
    figure_read,
    first_value,
    is_roc,
    names_event,
    nearest,
    overlap,
    own_article,
    period_and_event,
    sentences,
    value_in,
)
from pikelocal.query.answer.hop_values import add_period, as_day
from pikelocal.query.answer.second_hop import HopOptions
from pikelocal.query.context.compress import compress_sources
from pikelocal.query.context.expand import Budget, assemble
from pikelocal.query.retrieve.search import search
from pikelocal.query.verify.quotes import locate
from pikelocal.query.verify.support import Locator, Unit, evidence, span_unit
from pikelocal.store.store import Store
from pikelocal.text import chain_phrasings as table
from pikelocal.text.chain_phrasings import Role
from pikelocal.text.concepts import names
from pikelocal.text.lang import Lang
from pikelocal.text.legal_refs import clause_starts
from pikelocal.text.script import Script, to_traditional
from pikelocal.text.values import same_value

CHAIN_TAG = "answer-chain"


@dataclass
class _Reader:
    """One chain's hops: their searches, the sources read (numbered across hops), the checks and the drafts."""

    store: Store
    encoder: Encoder
    llm: LLM
    options: HopOptions
    locator: Locator | None
    lang: Lang
    script: Script
    sources: list[Source] = field(default_factory=list)
    checks: list[ClaimCheck] = field(default_factory=list)
    drafts: list[str] = field(default_factory=list)
    _numbers: dict[tuple[tuple[int, ...], str], int] = field(default_factory=dict)

    def search(self, question: str, doc_ids: frozenset[int] | None = None) -> list[Source]:
        """The hop's own sources: its search's chunks (only those of ``doc_ids`` when given), compressed."""
        o = self.options
        docs = sorted(doc_ids) if doc_ids is not None else None  # kept to inside each ranking, not after it
        hits = search(self.store, self.encoder, question, k=o.k, weights=o.weights, fusion=o.fusion, doc_ids=docs)
        ranking = [(h.chunk.id, h.score) for h in hits]
        chosen = assemble(self.store, [cid for cid, _ in ranking], Budget(o.context_tokens, 0), ranking=ranking)
        return self.numbered(compress_sources(chosen, self.encoder, [question], o.tokens))

    def numbered(self, chosen: Sequence[Source]) -> list[Source]:
        """``chosen`` numbered after the sources earlier hops read (a source read again keeps its number)."""
        out: list[Source] = []
        for s in chosen:
            key = (s.chunk_ids, s.text)
            if key not in self._numbers:
                self._numbers[key] = len(self.sources) + 1
                self.sources.append(replace(s, number=self._numbers[key]))
            out.append(self.sources[self._numbers[key] - 1])
        return out

    def ask(self, question: str, local: Sequence[Source]) -> tuple[QuotedReply, list[Unit]]:
        """The quote-then-answer call over ``local``; the reply and the sentences its located quotes stand in."""
        blocks = [(i, s.heading(), s.text) for i, s in enumerate(local, start=1)]
        messages = quote_messages(question, self.lang, self.script, blocks)
        params = GenParams(tag=CHAIN_TAG, max_tokens=self.options.max_tokens, grammar=quote_grammar(self.script))
        reply = parse_quoted("".join(self.llm.stream(messages, params)))
        self.drafts.append(reply.answer)
        units: list[Unit] = []
        for q in reply.quotes:
            prefer = local[q.number - 1].number if q.number and 0 < q.number <= len(local) else None
            loc = locate(q.text, local, prefer=prefer)
            if loc is not None:
                around = [u for u in sentences(loc.source) if u.start < loc.end and u.end > loc.start]
                start = min([loc.start, *(u.start for u in around)])
                end = max([loc.end, *(u.end for u in around)])
                units.append(span_unit(loc.source, start, end, table_row=False))
        return reply, units

    def keep(self, read: Read) -> None:
        self.checks.append(
            ClaimCheck(read.value.text, "supported", "", evidence=evidence(read.unit, self.locator), method=read.method)
        )

    def miss(self, question: str, why: str) -> None:
        self.checks.append(ClaimCheck("", "not_stated", f"{question}: {why}", method="chain"))

    def article_source(self, doc_id: int, article: str) -> tuple[Source, int, int] | None:
        """The chunk of document ``doc_id`` that heads ``article`` (by a heading line, or its section path), as a
        numbered source, with the article's span in it (up to the next clause's heading)."""
        for chunk in self.store.chunks.chunks_of(doc_id):
            in_text = next((s for s in clause_starts(chunk.text) if s.article == article), None)
            headed = any(s.article == article and s.offset == 0 for p in chunk.section_path for s in clause_starts(p))
            if in_text is None and not headed:
                continue
            budget = Budget(self.options.context_tokens, 0)
            chosen = assemble(self.store, [chunk.id], budget, ranking=[(chunk.id, None)])
            if not chosen:
                continue
            source = self.numbered(chosen[:1])[0]
            starts = clause_starts(source.text)
            begin = next((s.offset for s in starts if s.article == article), 0)
            end = next((s.offset for s in starts if s.offset > begin), len(source.text))
            return source, begin, end
        return None


def chain_answer(
    store: Store,
    encoder: Encoder,
    llm: LLM,
    question: str,
    chain: Chain,
    on_delta: Callable[[str], None],
    *,
    options: HopOptions,
    script: Script,
    locator: Locator | None = None,
) -> Answer | None:
    """Answer ``question`` by ``chain``; None when its first hop finds nothing to go on (the question then takes
    the ordinary path). The shown answer goes out through ``on_delta`` once every hop is checked."""
    reader = _Reader(store, encoder, llm, options, locator, chain.lang, script)
    start = time.perf_counter()
    run = {"cited_article": _cited_article, "deadline": _deadline, "two_documents": _two_documents}[chain.kind]
    shown = run(reader, chain, question)
    if shown is None:  # the first hop found nothing to go on
        return None
    if script == "hant":  # the table's answer words are simplified; a traditional question reads them traditional
        shown = to_traditional(shown)
    kept = [c for c in reader.checks if c.verdict == "supported"]
    cited = tuple(dict.fromkeys(c.evidence.source for c in kept if c.evidence is not None))
    text = shown + "".join(f" [{n}]" for n in cited) if shown else not_stated(script)
    on_delta(text)
    return Answer(
        question=question, mode="naive", lang=chain.lang, text=text,
        sources=tuple(reader.sources), cited=cited if shown else (), removed_citations=0, unsupported=not shown,
        claims=tuple(reader.checks), draft=reader.drafts[-1] if reader.drafts else "", script=script,
        check_s=time.perf_counter() - start,
    )  # fmt: skip


# ---- a clause → the article it cites → its figure ----------------------------------------------------------------


def _cited_article(reader: _Reader, chain: Chain, question: str) -> str | None:
    local = reader.search(question)
    if not local:
        return None
    reply, units = reader.ask(question, local)
    citing = [u for u in units if own_article(u)]
    citing = citing or nearest(chain.topic or question, local, lambda u: own_article(u) is not None)
    if not citing:
        return None
    unit = citing[0]
    article = own_article(unit) or ""
    found = reader.article_source(unit.source.doc_id, article)
    if found is None:
        return None
    reader.keep(Read(Value("text", article, article), unit, "chain" if unit in units else "chain-read"))
    source, begin, end = found
    reply, units = reader.ask(question, [source])
    inside = [u for u in units if u.start < end and u.end > begin]
    read = figure_read(reply, inside, [], chain.figure, "")
    if read is None:
        spans = [u for u in sentences(source) if begin <= u.start < end]
        read = next(
            (r for u in spans if (r := figure_read(QuotedReply((), ""), [u], [], chain.figure, "")) is not None), None
        )
    if read is None:
        reader.miss(question, f"no {chain.figure} in {article}")
        return ""
    reader.keep(read)
    name = table.ARTICLE_NAMES[chain.lang].format(n=article)
    return table.ANSWERS[chain.lang]["article_figure"].format(figure=read.value.text, article=name)


# ---- a deadline counted from another event's date ----------------------------------------------------------------


def _deadline(reader: _Reader, chain: Chain, question: str) -> str | None:
    local = reader.search(question)
    if not any(period_and_event(u) is not None for s in local for u in sentences(s)):
        return None  # no clause of the sources counts a period from an event: no call, the ordinary path answers
    reply, units = reader.ask(question, local)
    counted = next(((u, pe) for u in units if (pe := period_and_event(u)) is not None), None)
    counted = counted or _nearer_count(question, units)
    if counted is None:
        if any(value_in(reply.answer, u, "date") is not None for u in units):
            return None  # the clause states the day itself: nothing to count, the ordinary answer reads it
        # the second line only where no quote was found: a quoted clause that counts nothing is the answer's own
        near = [] if units else nearest(question, local, lambda u: period_and_event(u) is not None)
        counted = next(((u, pe) for u in near if (pe := period_and_event(u)) is not None), None)
    if counted is None:
        return None
    unit, (period, event) = counted
    reader.keep(Read(period, unit, "chain" if unit in units else "chain-read"))
    anchor = _event_date(reader, chain.hops[1], chain.lang, event)
    if anchor is None:
        return ""
    reader.keep(anchor)
    answers = table.ANSWERS[chain.lang]
    day = as_day(anchor.value)
    end = add_period(day, period) if day is not None else None
    if end is None:
        return answers["deadline_working"].format(event=event, start=anchor.value.text, period=period.text)
    shown = day_text(end, chain.lang, roc=is_roc(anchor.value.text))
    return answers["deadline"].format(end=shown, event=event, start=anchor.value.text, period=period.text)


def _nearer_count(question: str, units: Sequence[Unit]) -> tuple[Unit, tuple[Value, str]] | None:
    """A clause counting a period from an event in the passage the model quoted, nearer the question than its
    quote: the model often quotes the event's date ("验收合格日期为2025年7月1日") beside the clause that counts
    from it ("甲方应在验收合格之日起2个月内支付合同价款")."""
    quoted = max((overlap(question, u.text) for u in units), default=0)
    sources = list({u.source.number: u.source for u in units}.values())
    for unit in nearest(question, sources, lambda u: period_and_event(u) is not None):
        if overlap(question, unit.text) > quoted and (found := period_and_event(unit)) is not None:
            return unit, found
    return None


def _event_date(reader: _Reader, hop: Hop, lang: str, event: str) -> Read | None:
    """Hop 2 of a deadline: the date of ``event``, kept only from a sentence about it."""
    asked = (hop.ask or "{event}").format(event=event)
    local = reader.search(asked)
    if not local:
        reader.miss(asked, "no source")
        return None
    reply, units = reader.ask(asked, local)
    about = [u for u in units if names_event(event, u.text)]
    for unit in about:
        if (value := value_in(reply.answer, unit, "date")) is not None:
            return Read(value, unit, "chain")
    for unit in [*about, *nearest(asked, local, lambda u: names_event(event, u.text))]:
        if (value := first_value(unit, "date")) is not None and as_day(value) is not None:
            return Read(value, unit, "chain-read")
    reader.miss(asked, f"no date of {event}")
    return None


# ---- an amount in one document against another's ----------------------------------------------------------------


def _role_documents(store: Store, role: Role) -> frozenset[int]:
    """The documents whose title and file name name ``role`` and no other (``chain_plan.roles_named``)."""
    out = set()
    for doc in store.docs.documents():
        name = f"{doc.title or ''} {doc.path.replace(chr(92), '/').rsplit('/', 1)[-1].rsplit('.', 1)[0]}"
        if roles_named(name.replace("-", " ")) == {role}:
            out.add(doc.id)
    return frozenset(out)


def _two_documents(reader: _Reader, chain: Chain, question: str) -> str | None:
    documents = [_role_documents(reader.store, hop.role) if hop.role else frozenset[int]() for hop in chain.hops]
    if not all(documents):
        return None
    reads: list[Read] = []
    for hop, docs in zip(chain.hops, documents, strict=True):
        asked = (hop.ask or "{item}").format(item=chain.item)
        local = reader.search(asked, docs)
        reply, units = reader.ask(asked, local) if local else (QuotedReply((), ""), [])
        read = figure_read(reply, units, local, chain.figure, chain.item)
        if read is None:
            reader.miss(asked, f"no {chain.figure} of {chain.item} in the {hop.role}")
            return ""
        reader.keep(read)
        reads.append(read)
    a, b = reads
    names = [_role_name(hop.role, chain.lang) if hop.role else "" for hop in chain.hops]
    verdict = "same" if same_value(a.value, b.value) else "different"
    return table.ANSWERS[chain.lang][verdict].format(a=names[0], b=names[1], value_a=a.value.text, value_b=b.value.text)


def _role_name(role: Role, lang: Lang) -> str:
    """How the answer names a document's role: in Chinese its concept group's first term (招标文件), in English its
    bare word (the tender, the bid)."""
    concept, bare = table.DOCUMENT_ROLES[role]
    if lang == "en":
        return bare[0]
    return next((w for w in names(concept) if re.search(r"[\u4e00-\u9fff]", w)), role)
