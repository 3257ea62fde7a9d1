"""Concept groups: one vocabulary across the mainland, Taiwan and English (term alignment).

A reviewer in Taipei asks about 押標金, 評選 and 履約期限; a mainland tender says 投标保证金, 评标 and 服务期; an
English question says "bid bond". OpenCC converts the script, not the word. The groups (``concepts.toml`` beside
this file, extended by a user's file of the same form) name each procurement and contract notion in all three, so

- a question's terms are also searched under their other names (``expansion``: BM25 query expansion), and
- a sentence is about a question's term when it holds any name of the same concept (``split``: the terms of a text
  become the concepts they name, so 評選 in a question and 評審 in a quote are one term).

Terms are compared after folding: simplified script, lower case, and no spaces between Chinese characters (PDF text
spaces out table labels: "押 標 金"). The longest term wins where two overlap (履约保证金 is a performance bond, not
保证金). English terms match whole words, with a plural "s" allowed.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pikelocal.domain.errors import InputError
from pikelocal.text.script import to_simplified

CONCEPT_PREFIX = "§"  # a concept's term among a text's content terms: "§bid_bond"
_SCRIPTS = ("hans", "hant", "en")
_KEYS = frozenset({"label", *_SCRIPTS})
_ID = re.compile(r"[a-z0-9_]+")
_MIN_CJK = 2
_MIN_LATIN = 3
_MAX_TERMS = 200  # terms of one group
_MAX_TERM_CHARS = 60
_MAX_BYTES = 1 << 20
MEMO_TEXTS = 50_000  # texts whose concepts are kept (a review asks of the same labels and terms ~100,000 times)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff])[ \t\u3000]+(?=[\u3400-\u9fff])")
_HEADER = re.compile(r"^[ \t]*\[[ \t]*concepts[ \t]*\.[ \t]*\"?([^\]\"]+)\"?[ \t]*\]")


class ConceptError(InputError):
    """A concept groups file that cannot be used; the message is one line naming the file and line."""


@dataclass(frozen=True)
class Concept:
    """One notion and its names by script (hans, hant, en), as the file writes them."""

    id: str
    label: str
    terms: Mapping[str, tuple[str, ...]]

    def all_terms(self) -> tuple[str, ...]:
        return tuple(t for s in _SCRIPTS for t in self.terms.get(s, ()))


@dataclass(frozen=True)
class Match:
    """A term of a concept in a folded text: [start, end) and the concept's id."""

    start: int
    end: int
    concept: str


def fold(text: str) -> str:
    """A text as terms are compared: simplified script, lower case, no spaces between Chinese characters."""
    return _CJK_GAP.sub("", to_simplified(text)).lower()


class ConceptGroups:
    """The groups, indexed for finding their terms in a text."""

    def __init__(self, concepts: Mapping[str, Concept]) -> None:
        self.concepts = dict(concepts)
        self._named: dict[str, frozenset[str]] = {}  # concepts_in's answers (the readers ask of the same labels)
        self._cjk: dict[str, list[tuple[str, str]]] = {}  # first two characters → (term, concept), longest first
        latin: list[tuple[str, str]] = []
        for concept in self.concepts.values():
            for term in concept.all_terms():
                folded = fold(term)
                if _CJK.search(folded):
                    self._cjk.setdefault(folded[:2], []).append(("".join(folded.split()), concept.id))
                else:
                    latin.append((_words(folded), concept.id))
        for entries in self._cjk.values():
            entries.sort(key=lambda e: -len(e[0]))
        latin.sort(key=lambda e: -len(e[0]))
        self._latin_concept = {t: c for t, c in reversed(latin)}
        alternation = "|".join(r"[\s-]+".join(map(re.escape, t.split(" "))) for t, _ in latin) or "(?!)"
        self._latin = re.compile(rf"(?<![a-z0-9])(?:{alternation})(?:e?s)?(?![a-z0-9])")
        # the concepts a term names besides its own, by the other terms it holds (評選方式 holds 評選: evaluation)
        self._inner: dict[tuple[str, str], frozenset[str]] = {}
        cjk_terms = [e for entries in self._cjk.values() for e in entries]
        for term, cid in cjk_terms:
            held = {c for t, c in cjk_terms if c != cid and len(t) < len(term) and t in term}
            if held:
                self._inner[(term, cid)] = frozenset(held)
        for term, cid in latin:
            held = {c for t, c in latin if c != cid and len(t) < len(term) and f" {t} " in f" {term} "}
            if held:
                self._inner[(term, cid)] = frozenset(held)

    def find(self, folded: str) -> list[Match]:
        """The concepts' terms in a folded text (``fold``), left to right, the longest where two overlap."""
        found: list[Match] = []
        i = 0
        while i < len(folded) - 1:
            for term, concept in self._cjk.get(folded[i : i + 2], ()):
                if folded.startswith(term, i):
                    found.append(Match(i, i + len(term), concept))
                    i += len(term)
                    break
            else:
                i += 1
        for m in self._latin.finditer(folded):
            found.append(Match(m.start(), m.end(), self._latin_of(m.group(0))))
        return sorted(found, key=lambda m: m.start)

    def _latin_of(self, matched: str) -> str:
        """The concept of an English term as matched (any spacing or hyphens, a plural "s" or "es")."""
        words = _words(matched)
        for key in (words, words.removesuffix("s"), words.removesuffix("es")):
            if key in self._latin_concept:
                return self._latin_concept[key]
        raise AssertionError(f"matched {matched!r} names no term")  # the pattern is built from the terms

    def split(self, folded: str) -> tuple[str, frozenset[str]]:
        """The text with its concepts' terms blanked out, and those concepts: what is left is compared word by
        word, the concepts by concept."""
        matches = self.find(folded)
        if not matches:
            return folded, frozenset()
        out: list[str] = []
        last = 0
        for m in matches:
            out.append(folded[last : m.start])
            out.append(" ")
            last = m.end
        out.append(folded[last:])
        return "".join(out), frozenset(m.concept for m in matches)

    def weights(self, folded: str) -> dict[str, int]:
        """Each concept named in a folded text, weighed by the words its term stands for there: the CJK
        bigrams of the term as written (押標金 2, 投标保证金 4) or its English words, so that a share of a question's
        terms counts a concept as much as the words it replaced."""
        out: dict[str, int] = {}
        for m in self.find(folded):
            term = folded[m.start : m.end]
            weight = max(1, len(term) - 1) if _CJK.search(term) else len(_words(term).split())
            out[m.concept] = max(out.get(m.concept, 0), weight)
        return out

    def concepts_in(self, text: str) -> frozenset[str]:
        named = self._named.get(text)
        if named is None:
            if len(self._named) >= MEMO_TEXTS:
                self._named.clear()
            named = self._named[text] = frozenset(m.concept for m in self.find(fold(text)))
        return named

    def broad_concepts_in(self, text: str) -> frozenset[str]:
        """The concepts ``text`` names, with those its terms hold (評選方式 names the award basis and, by 評選,
        evaluation; 評審委員 the committee and evaluation): what two texts about one thing share however narrowly
        each says it."""
        folded = fold(text)
        out: set[str] = set()
        for m in self.find(folded):
            term = folded[m.start : m.end]
            key = "".join(term.split()) if _CJK.search(term) else _words(term)
            out.add(m.concept)
            out |= self._inner.get((key, m.concept), frozenset())
            if not _CJK.search(term):  # a plural or another spacing of an English term: its singular's inner ones
                out |= self._inner.get((_words(term).removesuffix("s"), m.concept), frozenset())
        return frozenset(out)

    def expansion(self, text: str, *, exclude: Iterable[str] = ()) -> list[str]:
        """The other names of the concepts ``text`` names (for a search): each concept's terms not already in the
        text, in every script, once each; concepts in ``exclude`` left out."""
        folded = fold(text)
        skip = set(exclude)
        out: dict[str, str] = {}  # folded → the term as written (one of each: 押標金 and 押标金 are one)
        for concept in dict.fromkeys(m.concept for m in self.find(folded)):
            if concept in skip:
                continue
            for term in self.concepts[concept].all_terms():
                if (key := fold(term)) not in folded:
                    out.setdefault(key, term)
        return list(out.values())

    def merged(self, other: Mapping[str, Concept]) -> ConceptGroups:
        """These groups with ``other``'s: a new concept added, a known one's terms extended."""
        concepts = dict(self.concepts)
        for cid, c in other.items():
            known = concepts.get(cid)
            if known is None:
                concepts[cid] = c
                continue
            terms = {s: tuple(dict.fromkeys((*known.terms.get(s, ()), *c.terms.get(s, ())))) for s in _SCRIPTS}
            concepts[cid] = Concept(cid, c.label or known.label, terms)
        return ConceptGroups(concepts)


def _words(text: str) -> str:
    """An English term's words, one space apart (hyphens and line breaks as spaces)."""
    return " ".join(w for w in re.split(r"[\s-]+", text) if w)


def parse_groups(text: str, where: str) -> dict[str, Concept]:
    """The groups a TOML text declares; every error a :class:`ConceptError` naming ``where`` and the line."""
    if len(text.encode("utf-8", "replace")) > _MAX_BYTES:
        raise ConceptError(f"{where}: larger than {_MAX_BYTES // 1024} KiB; a concepts file is a few kilobytes")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConceptError(f"{where}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConceptError(f"{where}: nested too deeply to be a concepts file") from None
    lines = _header_lines(text)
    unknown = sorted(set(data) - {"concepts"})
    if unknown:
        raise ConceptError(f"{where}: unknown key {unknown[0]!r} (a concepts file has only [concepts.NAME] tables)")
    table = data.get("concepts", {})
    if not isinstance(table, dict):
        raise ConceptError(f"{where}: 'concepts' must be a table of [concepts.NAME] groups")
    return {cid: _concept(cid, body, f"{where}:{lines.get(cid, 1)}") for cid, body in table.items()}


def _header_lines(text: str) -> dict[str, int]:
    """The line of each ``[concepts.NAME]`` header (tomllib gives no line numbers), in one pass."""
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        m = _HEADER.match(line)
        if m:
            out.setdefault(m.group(1).strip(), number)
    return out


def _concept(cid: str, body: Any, where: str) -> Concept:
    if not _ID.fullmatch(cid):
        raise ConceptError(f"{where}: concept {cid!r}: a name is lower-case letters, digits and _")
    if not isinstance(body, dict):
        raise ConceptError(f"{where}: concept {cid!r} must be a table with hans, hant and en lists")
    unknown = sorted(set(body) - _KEYS)
    if unknown:
        raise ConceptError(f"{where}: concept {cid!r}: unknown key {unknown[0]!r} (use label, hans, hant, en)")
    label = body.get("label", "")
    if not isinstance(label, str):
        raise ConceptError(f"{where}: concept {cid!r}: label must be a string")
    terms = {s: _terms(cid, s, body.get(s, []), where) for s in _SCRIPTS}
    if not any(terms.values()):
        raise ConceptError(f"{where}: concept {cid!r} has no terms (give hans, hant or en)")
    return Concept(cid, label, terms)


def _terms(cid: str, script: str, value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise ConceptError(f"{where}: concept {cid!r}: {script} must be a list of strings")
    if len(value) > _MAX_TERMS:
        raise ConceptError(f"{where}: concept {cid!r}: {script} has {len(value)} terms (at most {_MAX_TERMS})")
    out: list[str] = []
    for term in value:
        t = " ".join(term.split())
        cjk = bool(_CJK.search(t))
        if len(t) > _MAX_TERM_CHARS:
            raise ConceptError(f"{where}: concept {cid!r}: term {t[:20]!r}… is longer than {_MAX_TERM_CHARS} chars")
        if (cjk and len(fold(t)) < _MIN_CJK) or (not cjk and len(t) < _MIN_LATIN):
            raise ConceptError(
                f"{where}: concept {cid!r}: term {t!r} is too short to name one thing "
                f"(at least {_MIN_CJK} Chinese characters or {_MIN_LATIN} letters)"
            )
        if script == "en" and cjk:
            raise ConceptError(f"{where}: concept {cid!r}: en term {t!r} is Chinese (put it under hans or hant)")
        out.append(t)
    return tuple(dict.fromkeys(out))


@cache
@cache
def builtin_groups() -> ConceptGroups:
    """The groups shipped with pikelocal (``text/concepts.toml``), read once a process (every check and search asks
    for them; parsing the file each time cost about 2 ms a call)."""
    text = (resources.files("pikelocal.text") / "concepts.toml").read_text(encoding="utf-8")
    return ConceptGroups(parse_groups(text, "built-in concepts.toml"))


def load_groups(path: Path | None) -> ConceptGroups:
    """The built-in groups, extended by the user's file at ``path`` (None or "": the built-in alone)."""
    base = builtin_groups()
    if path is None or not str(path):
        return base
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConceptError(f"{path}: concepts file not found") from None
    except UnicodeDecodeError:
        raise ConceptError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConceptError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return base.merged(parse_groups(text, str(path)))


_active: list[ConceptGroups] = []


def use_groups(groups: ConceptGroups | None) -> None:
    """Make ``groups`` the ones every check and search of this process uses (None: back to the built-in)."""
    _active[:] = [groups] if groups is not None else []


def active() -> ConceptGroups:
    """The groups in use: the user's (``use_groups``) or the built-in."""
    return _active[0] if _active else builtin_groups()


def concept_term(concept: str) -> str:
    return f"{CONCEPT_PREFIX}{concept}"


def concept_terms(folded: str, groups: ConceptGroups | None = None) -> tuple[str, frozenset[str]]:
    """``split`` by the active groups, the concepts as content terms (§bid_bond)."""
    rest, found = (groups or active()).split(folded)
    return rest, frozenset(concept_term(c) for c in found)


def concept_weights(folded: str, groups: ConceptGroups | None = None) -> dict[str, int]:
    """``weights`` by the active groups, keyed by content term (§bid_bond)."""
    return {concept_term(c): w for c, w in (groups or active()).weights(folded).items()}


# What may stand around a concept's name in an answer that names nothing else ("本案之招標機關", "the purchaser").
_FILLER = re.compile(r"[\W_]|\b(?:the|a|an|of|this|its)\b|本标案|本项目|本合同|本案|[该之的]")


def only_terms(text: str, groups: ConceptGroups | None = None) -> bool:
    """Whether ``text`` is nothing but concept names ("招标人", "the purchaser", "本案招標機關"): a field's label or a
    party's role, not a value such as the purchaser's name."""
    rest, found = (groups or active()).split(fold(text))
    return bool(found) and not _FILLER.sub("", rest).strip()


def term_spans(folded: str, concepts: Iterable[str], groups: ConceptGroups | None = None) -> list[tuple[int, int]]:
    """Every place a term of one of ``concepts`` stands in a folded text (``fold``), overlapping ones included
    (「电子投标截止时间」 holds 投标截止时间 though 电子投标 is found first), as (start, end)."""
    out: list[tuple[int, int]] = []
    for term in {fold(t) for c in concepts for t in names(c, groups)}:
        at = folded.find(term) if term else -1
        while at >= 0:
            out.append((at, at + len(term)))
            at = folded.find(term, at + 1)
    return sorted(out)


def names(concept: str, groups: ConceptGroups | None = None) -> Sequence[str]:
    c = (groups or active()).concepts.get(concept)
    return c.all_terms() if c is not None else ()
