"""CJK-aware text for FTS5: the same normalisation at index time and at query time.

FTS5's ``unicode61`` tokenizer keeps a run of Chinese characters as one token, so 合同 would never match
inside 本合同金额. We therefore rewrite text before it reaches FTS5 (the tokenizer stays the stock
``porter unicode61 remove_diacritics 2``, so the file remains readable by any SQLite with FTS5):

* NFKC (full-width → half-width) and lower case;
* each run of CJK characters becomes its overlapping bigrams, framed by the run's first and last character
  as single-character tokens: 本合同金额 → ``本 本合 合同 同金 金额 额``; a 1-character run is just the
  character. The frame lets a query whose CJK run touches a letter or digit (第3条, PDF文件) match
  exactly, and lets a single-character query (``金*``) find the character anywhere in a run;
* everything else is left to ``unicode61`` (words, digits; punctuation separates) and porter stemming.

A query term is turned into the same tokens and searched as an FTS5 phrase of them, every token quoted,
so user input can never be read as FTS5 syntax.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

# Han (incl. extension A, compatibility and the supplementary planes), kana, Hangul syllables / jamo.
_CJK = (
    "\u3005\u3007\u3021-\u3029\u3038-\u303b"  # 々 〇 and Suzhou numerals
    "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK unified ideographs, ext. A, compatibility
    "\u1100-\u11ff\u3131-\u318e\uac00-\ud7af"  # Hangul jamo and syllables
    "\U00020000-\U0003134f"  # CJK extensions B-H
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
# A CJK run, or a run of other letters/digits (what unicode61 keeps as one token; `_` is a separator there).
_SEGMENT = re.compile(f"(?P<cjk>[{_CJK}]+)|(?P<word>(?:(?![{_CJK}])[^\\W_])+)")
_QUOTED = re.compile(r'"([^"]*)"')
# Where a query is split into terms: whitespace, or punctuation touching a CJK character (so
# "保证金?" or "(投标保证金)" give a clean term, while "covid-19" or "50,000" stay one phrase).
_TERM_SPLIT = re.compile(f"\\s+|[^\\w\\s]+(?=[{_CJK}])|(?<=[{_CJK}])[^\\w\\s]+")

# English words too common to help ranking; dropped from OR queries unless nothing else is left.
_STOPWORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "in", "is", "it",
     "of", "on", "or", "the", "this", "that", "to", "was", "what", "when", "where", "which", "who", "why",
     "with")
)  # fmt: skip
CJK_CHARS = _CJK  # for other modules (snippets) that must treat CJK text the same way
STOPWORDS = _STOPWORDS  # for snippets, which must skip the same words
MAX_TERMS = 64  # bounds the cost of a query built from a long text

FTS_NORMALIZER_VERSION = 1  # stored in kb_meta; bump when the index-time text changes (re-index needed)


def _basic(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _cjk_tokens(run: str, *, hard_start: bool, hard_end: bool) -> list[str]:
    """Bigrams of a CJK run, with the first/last character added where the run really starts/ends."""
    if len(run) == 1:
        return [run]
    tokens = [run[i : i + 2] for i in range(len(run) - 1)]
    if hard_start:
        tokens.insert(0, run[0])
    if hard_end:
        tokens.append(run[-1])
    return tokens


def _tokens(text: str, *, soft_edges: bool) -> list[str]:
    """Index tokens of ``text`` (already NFKC + lower case).

    At index time every run boundary is real (``soft_edges=False``). In a query term the two outer edges
    are *soft*: the document's run may continue beyond them, so no framing character is emitted there.
    """
    segments = list(_SEGMENT.finditer(text))
    out: list[str] = []
    for i, m in enumerate(segments):
        if m.group("word") is not None:
            out.append(m.group("word"))
            continue
        first, last = i == 0, i == len(segments) - 1
        out.extend(
            _cjk_tokens(
                m.group("cjk"),
                hard_start=not (soft_edges and first),
                hard_end=not (soft_edges and last),
            )
        )
    return out


def normalize_for_index(text: str) -> str:
    """The text to store in an FTS5 column (space-separated tokens; see the module docstring)."""
    text = _basic(text)
    # Only CJK runs need rewriting; the rest keeps its punctuation so unicode61 splits it as usual.
    return _CJK_RUN.sub(
        lambda m: " " + " ".join(_cjk_tokens(m.group(), hard_start=True, hard_end=True)) + " ", text
    ).strip()


def _split_terms(query: str) -> Iterator[tuple[str, bool]]:
    """(term text, quoted) pairs; ASCII double quotes keep a phrase together."""
    pos = 0
    for m in _QUOTED.finditer(query):
        yield from ((t, False) for t in _TERM_SPLIT.split(query[pos : m.start()]) if t)
        yield m.group(1), True
        pos = m.end()
    # An unbalanced quote is just punctuation.
    yield from ((t, False) for t in _TERM_SPLIT.split(query[pos:].replace('"', " ")) if t)


def _phrase(tokens: list[str]) -> str:
    # A lone CJK character is searched as a prefix: it then matches the character anywhere in a run
    # (as a framing token or as the first half of a bigram; a run's last character is framed).
    if len(tokens) == 1 and _CJK_RUN.fullmatch(tokens[0]) and len(tokens[0]) == 1:
        return f'"{tokens[0]}"*'
    return '"' + " ".join(tokens) + '"'


def _tokens_each(term: str) -> list[str]:
    """Tokens of a term searched one by one: bigrams of each CJK run (a 1-character run as itself)."""
    out: list[str] = []
    for m in _SEGMENT.finditer(term):
        word = m.group("word")
        out.extend([word] if word is not None else _cjk_tokens(m.group("cjk"), hard_start=False, hard_end=False))
    return out


SENTENCE_RUN = 6  # a CJK run this long is a phrase-less sentence (投标保证金是多少), not one term


def is_cjk_sentence(query: str) -> bool:
    """True when the query holds a CJK run of ``SENTENCE_RUN`` or more characters: Chinese questions are written
    without spaces, so matching the run as one exact phrase would find nothing; its bigrams are searched instead."""
    return any(len(m.group()) >= SENTENCE_RUN for m in _CJK_RUN.finditer(_basic(query)))


def build_match_query(query: str, *, require_all: bool = False, exact_phrases: bool = True) -> str | None:
    """An FTS5 MATCH expression for free user text, or None when it holds nothing searchable.

    ``exact_phrases=True``: each term (split at whitespace and at punctuation next to CJK; or an ASCII-quoted
    phrase) must occur as written, e.g. 投标保证金 matches inside 投标人须提交投标保证金 but 履约保证金 does
    not. ``exact_phrases=False`` searches every token (CJK bigram, word) separately, for natural-language
    questions written without spaces (投标保证金是多少); bm25 then ranks texts sharing more tokens higher.
    Terms are OR-ed (ranked retrieval) unless ``require_all``.
    """
    groups: list[list[str]] = []
    for term, quoted in _split_terms(_basic(query)):
        tokens = _tokens(term, soft_edges=True)
        if not tokens:
            continue
        if exact_phrases or quoted:
            groups.append(tokens)
        else:
            groups.extend([t] for t in _tokens_each(term))
    unique = list(dict.fromkeys(_phrase(g) for g in groups if not (len(g) == 1 and g[0] in _STOPWORDS)))
    if not unique:  # nothing but stopwords: search them after all
        unique = list(dict.fromkeys(_phrase(g) for g in groups))
    if not unique:
        return None
    return (" AND " if require_all else " OR ").join(unique[:MAX_TERMS])
