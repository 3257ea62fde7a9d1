"""A statement read against the sources' sentences term by term, each term with its polarity.

A true/false statement or a yes/no question is false when the sentence that states it says it with the opposite
polarity: "the ANZ appealed against the finding" against "The ANZ has not sought to appeal against that finding";
"Mr Elisha showed remorse" against "showed no remorse"; "投标人可以分包" against "投标人不得分包". So each text is cut
into terms (English word stems and numbers, Chinese character pairs), and a term within a few words after a
negation (not, no, never, without, unless, except; 不, 不得, 未, 无, 没有, 禁止; what 除…外 encloses) is negated.
"Not only" negates nothing.

``read_statement`` finds the sentence (``query/context/compress.unit_spans``) that holds most of the statement's terms,
weighted by how rare each term is among the sources' sentences, and reads the statement's terms in it and in the
sentences on either side (the evidence often runs into the next one). A term of the statement that stands there
only with the opposite polarity makes the reading "contradicts", and so does a name or number of the statement
where the sentence, aligned with it, has another between the same words ("conducted in the New South Wales
District Registry" against "conducted in the Victorian District Registry"); a sentence that holds every term of
the statement with its polarity makes it "agrees"; anything else is "unknown". Names (capitalised words) carry no
polarity: "had not paid Mr McCourt" says nothing negative of McCourt.

The statement's scope ("In the case of Andrews v ANZ [2012] HCA 30,", "According to the Contracts Review Act 1980,",
"根据《…》，") names the document, not the clause, and is left out; so is the benchmark's "True or False?".

Pure: no model, no encoder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cached_property
from typing import Literal

from pikelocal.domain.answers import Source
from pikelocal.query.context.compress import unit_spans
from pikelocal.query.verify.claims import stem
from pikelocal.text.negation import EN_NEGATIONS, ZH_NEGATION
from pikelocal.text.question_kind import RIGHT_TAILS, TRUE_OR_FALSE_EN, TRUE_OR_FALSE_ZH, YESNO_WORDS
from pikelocal.text.script import to_simplified

EN_SCOPE = 3  # content words after an English negation that it negates (up to a clause mark)
ZH_SCOPE = 4  # characters after a Chinese negation that it negates
MIN_COVER = 0.5  # share of the statement's (weighted) terms its best sentence must hold to be read at all
AGREE_COVER = 0.99  # … to say the statement as it stands
MAX_SLOT = 4  # terms on either side of a substituted name or number

_EN_NEGATION = frozenset(EN_NEGATIONS)
_STOP_WORDS = """a an the of in on at to for by with from and or is are was were be been being do does did has have had
    this that these those there their its it as any all will shall would should may might can could than then into
    upon about per each which who whom whose what when where why how he she his her him they them we our you your
    such also only so if but must true false statement following"""
_EN_STOP = frozenset(_STOP_WORDS.split())
_CLAUSE_MARK = frozenset(',;:()[]"“”')
_EN_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|\$?\d+(?:[.,/:-]\d+)*|[,;:()\[\]\"“”]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_ZH_MODAL = re.compile(r"可以|能够|应当|应该|必须|需要|[可能应须需得]")  # may, must: the polarity is the negation's
_ZH_EXCEPT = re.compile(r"除([^，,。；;]{1,40}?)(?:以外|之外|外)")
_ZH_CLAUSE = re.compile(r"[，,。；;：:！？!?、\s]")
# A negation inside a phrase that describes a noun (「从对该等信息不负有保密义务的第三方获得的信息」): its words up to
# 的 say what the third party is, not the clause's polarity; 「…的，」 (a case) and 「…的话」 (if) are clauses.
_ZH_ATTRIBUTIVE = re.compile(r"[^，,。；;：:！？!?、\s的]{1,12}的(?=[\u3400-\u9fff])(?!话|話)")
# "True or False?" and the like, and the scope a statement is asked in
_TAIL = re.compile(
    rf"\s*(?:\(?\s*{TRUE_OR_FALSE_EN}\s*\)?|" + "|".join([*TRUE_OR_FALSE_ZH, *RIGHT_TAILS]) + r")[?？.。]?\s*$", re.I
)
_EN_SCOPE_LEAD = re.compile(
    r"^\s*(?:in\s+the\s+case\s+of|in|under|according\s+to|as\s+per)\s+.{0,240}?"
    r"(?:\[\d{4}\]\s*[A-Z]{2,6}\s*\d+|\(\d{4}\)\s*\d*\s*[A-Z]{2,6}\s*\d+|\bAct\s+\d{4}(?:\s+No\s+\d+)?"
    r"(?:\s*\[[A-Z]{2,4}\])?)\s*(?:,|\bstates\s+that\b|\bprovides\s+that\b)?\s*",
    re.I,
)
_EN_SCOPE_COMMA = re.compile(r"^\s*(?:in\s+the\s+case\s+of|according\s+to)\s+[^,]{1,160},\s*", re.I)
_ZH_SCOPE_LEAD = re.compile(r"^\s*(?:根据|依据|按照|根據|依據)?《[^》]{1,60}》(?:的规定|的規定|规定|規定)?[，,：:]?")
# a yes/no question's own words, which are not the statement's: 是否, 能否, 有没有, 吗; "Is …?" keeps its terms
_ZH_ASKING = re.compile("|".join(YESNO_WORDS) + r"|[吗嗎呢][？?]?\s*$|[？?]\s*$")

Verdict = Literal["agrees", "contradicts", "unknown"]


@dataclass(frozen=True)
class Term:
    """One term of a text: an English stem or number, or a Chinese character pair; negated when a negation stands
    a few words before it; a name (a capitalised English word not starting the text) carries no polarity."""

    key: str
    negated: bool = False
    name: bool = False


def terms(text: str) -> list[Term]:
    """The text's terms in order (English and Chinese alike)."""
    text = to_simplified(text).replace("’", "'")
    text = re.sub(r"n't\b", " not", re.sub(r"\bcannot\b", "can not", text, flags=re.I), flags=re.I)
    out: list[Term] = []
    for piece in re.split(r"([\u3400-\u9fff][\u3400-\u9fff，,、；;：:\s（）()《》“”0-9]*)", text):
        if not piece:
            continue
        out.extend(_zh_terms(piece) if _CJK.match(piece) else _en_terms(piece))
    return out


def _en_terms(text: str) -> list[Term]:
    out: list[Term] = []
    left = 0  # content words the last negation still covers
    tokens = _EN_TOKEN.findall(text)
    for i, token in enumerate(tokens):
        low = token.lower().strip("'-")
        if token in _CLAUSE_MARK or low == "but":
            left = 0
            continue
        if low in _EN_NEGATION:
            if not (low == "not" and i + 1 < len(tokens) and tokens[i + 1].lower() in ("only", "merely", "just")):
                left = EN_SCOPE
            continue
        if low[:1].isdigit() or low[:1] == "$":
            out.append(Term(low.lstrip("$").replace(",", ""), left > 0))
        elif low not in _EN_STOP and len(low) >= 2:
            first = i == 0 or tokens[i - 1][:1].isdigit() or tokens[i - 1] in _CLAUSE_MARK
            name = token[0].isupper() and not first and low not in ("mr", "ms", "mrs", "dr")
            out.append(Term(stem(low), left > 0 and not name, name))
        else:
            continue
        left = max(0, left - 1)
    return out


def _zh_terms(text: str) -> list[Term]:
    """Chinese character pairs; the characters after a negation (to the clause's end, ``ZH_SCOPE`` at most) and
    those that 除…外 encloses are negated; the negation's own characters and modal words (可以, 应当, 必须) are left
    out, and no pair spans them. A negation in a phrase describing a noun (「不负有保密义务的第三方」) is dropped with
    the phrase."""
    negated = [False] * len(text)
    drop = [False] * len(text)
    for m in _ZH_EXCEPT.finditer(text):
        drop[m.start()] = True
        for i in range(m.start(1), m.end(1)):
            negated[i] = True
        for i in range(m.end(1), m.end()):
            drop[i] = True
    for m in ZH_NEGATION.finditer(text):
        if any(drop[m.start() : m.end()]):
            continue
        if (attributive := _ZH_ATTRIBUTIVE.match(text, m.end())) is not None:
            for i in range(m.start(), attributive.end()):
                drop[i] = True  # 「不负有保密义务的第三方」 describes the third party: says nothing either way
            continue
        for i in range(m.start(), m.end()):
            drop[i] = True
        j, n = m.end(), 0
        while j < len(text) and n < ZH_SCOPE and not _ZH_CLAUSE.match(text[j]):
            negated[j] = not negated[j]
            j, n = j + 1, n + 1
    for m in _ZH_MODAL.finditer(text):
        for i in range(m.start(), m.end()):
            drop[i] = True
    # a dropped negation or modal word ends a run of characters: no pair across it
    kept = [("。", False) if drop[i] else (ch, negated[i]) for i, ch in enumerate(text)]
    out: list[Term] = []
    run: list[tuple[str, bool]] = []
    for ch, neg in [*kept, ("。", False)]:
        if _CJK.match(ch):
            run.append((ch, neg))
            continue
        out.extend(Term(a + b, na or nb) for (a, na), (b, nb) in zip(run, run[1:], strict=False))
        run = []
        if ch.isdigit():
            out.append(Term(ch, neg))
    return out


def statement_of(question: str) -> str:
    """The statement a true/false or yes/no question asks about: without the benchmark's "True or False?", the
    scope phrase naming the case or act, and a Chinese question's 是否/吗."""
    text = _TAIL.sub("", question.strip().strip('"“”')).strip().strip('"“”')
    lead = _EN_SCOPE_LEAD.match(text) or _EN_SCOPE_COMMA.match(text) or _ZH_SCOPE_LEAD.match(text)
    if lead is not None and lead.end() < len(text):
        text = text[lead.end() :]
    return _ZH_ASKING.sub("", text).strip()


@dataclass(frozen=True)
class Passage:
    """One sentence (or table row) of a source, with its terms."""

    source: Source
    index: int  # its place among the source's sentences
    start: int
    end: int
    terms: tuple[Term, ...]

    @property
    def text(self) -> str:
        return self.source.text[self.start : self.end]

    @cached_property
    def keys(self) -> frozenset[str]:
        return frozenset(t.key for t in self.terms)

    @cached_property
    def pairs(self) -> frozenset[tuple[str, str]]:
        keys = [t.key for t in self.terms]
        return frozenset(zip(keys, keys[1:], strict=False))


@dataclass(frozen=True)
class Passages:
    """The sources' sentences and how rare each term is among them."""

    items: tuple[Passage, ...]
    df: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, sources: Sequence[Source]) -> Passages:
        items = tuple(
            Passage(s, i, a, b, tuple(terms(s.text[a:b]))) for s in sources for i, (a, b) in enumerate(unit_spans(s))
        )
        df: dict[str, int] = {}
        for p in items:
            for key in p.keys:
                df[key] = df.get(key, 0) + 1
        return cls(items, df)

    def weight(self, key: str) -> float:
        """A term's inverse document frequency among the sentences (a term in none weighs as one in one)."""
        n = len(self.items)
        return math.log((n + 1) / (max(1, self.df.get(key, 0)) + 0.5))

    def cover(self, keys: Iterable[str], passage: Passage) -> float:
        """The weighted share of ``keys`` that ``passage`` holds."""
        wanted = set(keys)
        total = sum(self.weight(k) for k in wanted)
        return sum(self.weight(k) for k in wanted if k in passage.keys) / total if total else 0.0

    def best(self, keys: Iterable[str]) -> tuple[Passage, float] | None:
        """The passage holding the largest weighted share of ``keys`` (the first of equals)."""
        wanted = set(keys)
        scored = [(self.cover(wanted, p), -i, p) for i, p in enumerate(self.items)]
        if not scored or not wanted:
            return None
        share, _, passage = max(scored, key=lambda x: (x[0], x[1]))
        return passage, share

    def around(self, passage: Passage) -> list[Passage]:
        """The passage and its neighbours in the same source."""
        return [p for p in self.items if p.source is passage.source and abs(p.index - passage.index) <= 1]


def substitutions(stated: Sequence[Term], passage: Passage) -> list[str]:
    """Names or numbers of the statement that stand where the passage, aligned with it term by term, has other
    names or numbers between the same neighbours ("conducted in the New South Wales District Registry" against
    "conducted in the Victorian District Registry"); none of them may stand anywhere in the passage."""
    a, b = [t.key for t in stated], [t.key for t in passage.terms]
    ops = SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    out: list[str] = []
    for i, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "replace" or not 0 < i < len(ops) - 1 or ops[i - 1][0] != "equal" or ops[i + 1][0] != "equal":
            continue
        ours, theirs = stated[i1:i2], passage.terms[j1:j2]
        if max(len(ours), len(theirs)) > MAX_SLOT or {t.key for t in ours} & passage.keys:
            continue
        if all(_hard(t) for t in ours) and all(_hard(t) for t in theirs):
            out.extend(t.key for t in ours)
    return out


def _hard(term: Term) -> bool:
    return term.name or term.key[:1].isdigit()


def disagreements(stated: Sequence[Term], window: Sequence[Passage]) -> list[str]:
    """The statement's terms (not names) that stand in ``window`` only with the opposite polarity."""
    out: list[str] = []
    for term in stated:
        if term.name or term.key in out:
            continue
        found = [t.negated for p in window for t in p.terms if t.key == term.key]
        if found and all(neg != term.negated for neg in found):
            out.append(term.key)
    return out


@dataclass(frozen=True)
class Reading:
    """What the sources say of a statement: its verdict, the sentence it rests on, how much of the statement that
    sentence holds, and the terms whose polarity disagrees."""

    verdict: Verdict
    passage: Passage | None
    cover: float
    against: tuple[str, ...] = ()


def read_statement(statement: str, passages: Passages) -> Reading:
    """The statement against the sentence that holds most of it (see the module's docstring)."""
    stated = terms(statement)
    keys = {t.key for t in stated}
    found = passages.best(keys)
    if found is None or found[1] < MIN_COVER:
        return Reading("unknown", found[0] if found else None, found[1] if found else 0.0)
    passage, cover = found
    window = passages.around(passage)
    against = disagreements(stated, window) or [k for p in window for k in substitutions(stated, p)]
    if against:
        return Reading("contradicts", passage, cover, tuple(against))
    if cover >= AGREE_COVER and not disagreements(stated, [passage]):
        return Reading("agrees", passage, cover)
    return Reading("unknown", passage, cover)
