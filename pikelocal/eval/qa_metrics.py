"""Pure answer scoring: SQuAD-style EM/F1 (English words, Chinese characters), choices, true/false, articles."""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pikelocal.text.lang import Lang, cjk_count
from pikelocal.text.numerals import ZH_DIGIT_CHARS, ZH_UNIT_CHARS, han_number

LAWBENCH_CHOICE_TASKS = frozenset({"1-2", "3-6"})
LAWBENCH_TEXT_TASKS = frozenset({"1-1", "3-2", "3-8"})
LAWBENCH_TASKS = LAWBENCH_CHOICE_TASKS | LAWBENCH_TEXT_TASKS | {"3-1"}

_ARTICLES_EN = re.compile(r"\b(a|an|the)\b")
_ZH_TOKEN = re.compile(r"[a-z0-9]+|\S")
_GOLD_PREFIXES = ("正确答案:", "正确答案：", "答案:", "答案：", "法条:", "法条：", "回答:", "回答：")

# An option letter not inside a word; an "A"/"a" followed by a lower-case word is the English article ("A contract").
_LETTER = r"(?<![A-Za-z])[A-Ea-e](?![A-Za-z])"
_LETTERS = re.compile(
    rf"(?<![A-Za-z])(?:[A-E]{{1,5}}|[a-e])(?![A-Za-z])(?:\s*(?:[,，、/&和与及]|\band\b)\s*{_LETTER})*"
)
_LETTER_CHUNK = re.compile(r"(?<![A-Za-z])[A-Ea-e]+(?![A-Za-z])")
_ARTICLE_AFTER = re.compile(r"\s+(?!(?:is|and|or|only|alone|both|are|was)\b)[a-z]")
_MARKERS = (
    re.compile(r"\[正确答案\]\s*"),
    re.compile(
        r"(?:正确答案|答案)\s*(?:应该是|应为|是|为)?\s*[:：]?\s*|(?i:(?:correct\s+)?(?:answer|option)\s*(?:is|:)\s*)"
    ),
)
_FALLBACK = re.compile(r"(?:^[\s*#>]*|选项?\s*|(?i:option)\s*|[(（]\s*)(?=[A-E]{1,5}(?![A-Za-z]))")

_TRUE_WORDS = frozenset({"true", "t", "yes", "correct"})
_FALSE_WORDS = frozenset({"false", "f", "no", "incorrect", "wrong"})
_ZH_FALSE_START = re.compile(r"不正确|不对|错误|(?:错|否)(?:的|[^\u3400-\u9fff]|$)")
_ZH_TRUE_START = re.compile(r"正确|(?:对|是)(?:的|[^\u3400-\u9fff]|$)")
_BOOL_MARKER = re.compile(r"^(?:\[正确答案\]|(?:正确)?答案\s*[:：是为]?|(?i:(?:the\s+)?answer\s*(?:is|:)?))\s*")
_EN_BOOL = re.compile(r"((?:\bnot|n't)\s+)?\b(true|false)\b", re.IGNORECASE)
_ECHO = re.compile(r"^true\s+or\s+false\s*[?:]?\s*", re.IGNORECASE)  # the question's own "True or False?"

_NUM = rf"(?:[0-9]+|[{ZH_DIGIT_CHARS}{ZH_UNIT_CHARS}]+)"
_ARTICLE_NO = re.compile(rf"第\s*({_NUM}(?:\s*[、,，和及与]\s*(?:第\s*)?{_NUM})*)\s*条")


@dataclass(frozen=True, slots=True)
class Score:
    """One answer's (or the mean) exact match, F1, precision and recall, each in [0, 1]."""

    em: float
    f1: float
    precision: float
    recall: float


_ZERO = Score(0.0, 0.0, 0.0, 0.0)
_ONE = Score(1.0, 1.0, 1.0, 1.0)


# --- normalisation and tokens ----------------------------------------------------------------------------------


def normalize_en(text: str) -> str:
    """SQuAD's normaliser: lower case, punctuation (ASCII and Unicode) deleted, a/an/the dropped, spaces collapsed."""
    text = "".join(c for c in text.lower() if c not in string.punctuation and unicodedata.category(c)[0] != "P")
    return " ".join(_ARTICLES_EN.sub(" ", text).split())


def _clean_zh(text: str) -> str:
    """NFKC (full width → half width), lower case, punctuation and symbols deleted; whitespace kept."""
    text = unicodedata.normalize("NFKC", text).lower()
    return "".join(c for c in text if not unicodedata.category(c).startswith(("P", "S")))


def normalize_zh(text: str) -> str:
    """Chinese normaliser: NFKC, lower case, no punctuation, symbols or whitespace."""
    return "".join(_clean_zh(text).split())


def _scored_as(text: str) -> Lang:
    """zh when the text holds any CJK ideograph (scored by characters), else en (by words)."""
    return "zh" if cjk_count(text) else "en"


def tokens(text: str, lang: Lang | None = None) -> list[str]:
    """English: the words of normalize_en. Chinese: one token per character, but ASCII letter/digit runs whole.

    Whitespace separates Chinese-mode tokens before it is dropped, so "hello world" stays two words.
    """
    if (lang or _scored_as(text)) == "en":
        return normalize_en(text).split()
    return _ZH_TOKEN.findall(_clean_zh(text))


def _normalize(text: str, lang: Lang) -> str:
    return normalize_en(text) if lang == "en" else normalize_zh(text)


def _prf(overlap: int, n_pred: int, n_gold: int) -> Score:
    """Score (EM 0) from an overlap count; zeros when nothing overlaps."""
    if overlap <= 0:
        return _ZERO
    precision, recall = overlap / n_pred, overlap / n_gold
    return Score(0.0, 2 * precision * recall / (precision + recall), precision, recall)


def _best(scores: Sequence[Score]) -> Score:
    """The score with the best F1 (then EM); the first of equals."""
    if not scores:
        raise ValueError("no gold answers to score against")
    return max(scores, key=lambda s: (s.f1, s.em))


# --- free text -------------------------------------------------------------------------------------------------


def score_text(prediction: str, golds: Sequence[str], lang: Lang | None = None) -> Score:
    """EM against any gold; P/R/F1 on token multisets from the gold with the best F1.

    lang None: each gold decides (zh if it holds a CJK ideograph). Two empty token lists match fully.
    """
    if isinstance(golds, str):
        raise TypeError("golds must be a sequence of strings, not a string")
    scores: list[Score] = []
    em = 0.0
    for gold in golds:
        gold_lang = lang or _scored_as(gold or prediction)
        if _normalize(prediction, gold_lang) == _normalize(gold, gold_lang):
            em = 1.0
        pred_toks, gold_toks = tokens(prediction, gold_lang), tokens(gold, gold_lang)
        if not pred_toks or not gold_toks:
            scores.append(_ONE if pred_toks == gold_toks else _ZERO)
            continue
        overlap = sum((Counter(pred_toks) & Counter(gold_toks)).values())
        scores.append(_prf(overlap, len(pred_toks), len(gold_toks)))
    best = _best(scores)
    return Score(em, best.f1, best.precision, best.recall)


def _set_score(pred: Collection[object], gold: Collection[object]) -> Score:
    """Set P/R/F1; all 1.0 only for equal non-empty sets."""
    if pred and pred == gold:
        return _ONE
    return _prf(len(set(pred) & set(gold)), len(pred), len(gold))


# --- choice questions ------------------------------------------------------------------------------------------


def _letters_at(text: str, pos: int) -> frozenset[str]:
    """The option letters listed right at ``pos`` ("B", "A, B, C", "ABC" in order); empty if none are."""
    match = _LETTERS.match(text, pos)
    if match is None:
        return frozenset()
    chunks = _LETTER_CHUNK.findall(match.group())
    if chunks in (["A"], ["a"]) and _ARTICLE_AFTER.match(text, match.end()):
        return frozenset()  # "A contract is ...": the article, not an option
    if len(chunks[0]) > 1 and sorted(set(chunks[0])) != list(chunks[0]):
        return frozenset()  # "BAD", "CAB": a word, not a run of options
    return frozenset("".join(chunks).upper())


def extract_choices(text: str) -> frozenset[str]:
    """The option letters (A–E, upper case) a reply commits to, LawBench style.

    First the letters right after an explicit marker ("[正确答案]B<eoa>", "正确答案：B", "答案是 C", "Answer: A, B");
    else the first standalone capital letter at the start of the reply or after 选/选项/option/"("; else none.
    """
    for marker in _MARKERS:
        for match in marker.finditer(text):
            if letters := _letters_at(text, match.end()):
                return letters
    for match in _FALLBACK.finditer(text):
        if letters := _letters_at(text, match.end()):
            return letters
    return frozenset()


def score_choice(prediction: str, gold: str) -> Score:
    """Set scoring of option letters; the gold ("正确答案：B。", "B", "A, B, C") is read as a reply would be."""
    return _set_score(extract_choices(prediction), extract_choices(clean_lawbench_gold(gold)))


# --- true / false ----------------------------------------------------------------------------------------------


def extract_bool(text: str) -> bool | None:
    """True / False from a reply's first word (true, T, yes, 正确, 对 / false, F, no, 错误, 不正确), else from an
    unambiguous "true"/"false" or "正确"/"错误" in the text; None when unclear or contradictory."""
    text = unicodedata.normalize("NFKC", text)
    head = _BOOL_MARKER.sub("", _ECHO.sub("", text.strip().lstrip("*#> \t")), count=1)
    first = re.match(r"[A-Za-z]+", head)
    if first:
        word = first.group().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        if word == "not" and re.match(r"not\s+(?:true|correct)\b", head, re.IGNORECASE):
            return False
    elif _ZH_FALSE_START.match(head):
        return False
    elif _ZH_TRUE_START.match(head):
        return True
    said = {(m.group(2).lower() == "true") != bool(m.group(1)) for m in _EN_BOOL.finditer(text)}
    if re.search(r"错误|不正确", text):
        said.add(False)
    if re.search(r"(?<!不)正确(?!答案)", text):
        said.add(True)
    return said.pop() if len(said) == 1 else None


def score_bool(prediction: str, gold: str) -> Score:
    """All 1.0 when the reply's truth value equals the gold's ("T", "TRUE", "F", "FALSE"), else all 0.0."""
    expected = {"t": True, "true": True, "f": False, "false": False}.get(gold.strip().lower())
    if expected is None:
        raise ValueError(f"true/false gold must be T, TRUE, F or FALSE, got {gold!r}")
    return _ONE if extract_bool(prediction) is expected else _ZERO


# --- LawBench 3-1: cited articles ------------------------------------------------------------------------------


def article_numbers(text: str) -> frozenset[int]:
    """Every article number cited as 第N条 (N Arabic or Chinese, ``text/numerals.han_number``), including lists like
    刑法第234、275条."""
    found: set[int] = set()
    for match in _ARTICLE_NO.finditer(unicodedata.normalize("NFKC", text)):
        found.update(n for n in map(han_number, re.findall(_NUM, match.group(1))) if n is not None)
    return frozenset(found)


def score_articles(prediction: str, gold: str) -> Score:
    """Set P/R/F1 of the cited article numbers; EM 1.0 iff the sets are equal and non-empty."""
    return _set_score(article_numbers(prediction), article_numbers(gold))


# --- LawBench golds and dispatch -------------------------------------------------------------------------------


def clean_lawbench_gold(answer: str) -> str:
    """A LawBench answer without its leading 答案:/法条:/正确答案:/回答: label (one label, either colon width)."""
    answer = answer.strip()
    for prefix in _GOLD_PREFIXES:
        if answer.startswith(prefix):
            return answer[len(prefix) :].strip()
    return answer


def score_item(task: str, prediction: str, golds: Sequence[str]) -> Score:
    """Score one reply by the item's task; golds are expected cleaned (as the loaders give them); best gold wins.

    1-2, 3-6, mcq: option letters; 3-1: article numbers; tf: true/false; 1-1, 3-2, 3-8: Chinese character F1;
    text: F1 in the golds' language.
    """
    if isinstance(golds, str):
        raise TypeError("golds must be a sequence of strings, not a string")
    if task in LAWBENCH_CHOICE_TASKS or task == "mcq":
        return _best([score_choice(prediction, gold) for gold in golds])
    if task == "3-1":
        return _best([score_articles(prediction, gold) for gold in golds])
    if task == "tf":
        return _best([score_bool(prediction, gold) for gold in golds])
    if task in LAWBENCH_TEXT_TASKS:
        return score_text(prediction, golds, "zh")
    if task == "text":
        return score_text(prediction, golds, None)
    raise ValueError(f"unknown QA task {task!r}")


def mean_scores(scores: Sequence[Score]) -> Score:
    """Field-wise mean; zeros for no scores."""
    if not scores:
        return _ZERO
    rows = [(s.em, s.f1, s.precision, s.recall) for s in scores]
    return Score(*(sum(column) / len(rows) for column in zip(*rows, strict=True)))
