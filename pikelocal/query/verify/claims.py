"""What an answer claims: its sentences, the hard facts in each (numbers, amounts, dates, article numbers, quoted
names) and the content terms a supporting sentence should share; and the focus terms of a question.

Pure text functions, no model. Chinese is compared in simplified characters, so a traditional answer finds a
simplified source (and the reverse). Numbers are compared by value: 35万900元 = 350,900; 三十日 = 30 日;
第一百八十八条 = article 188; 百分之二十 = 20 %.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pikelocal.text.concepts import concept_terms, concept_weights
from pikelocal.text.numerals import (
    EN_NUMBER_WORDS,
    ZH_DIGIT_CHARS,
    ZH_FINANCIAL_CHARS,
    ZH_UNIT_CHARS,
    ZH_WAN_CHARS,
    han_number,
)
from pikelocal.text.script import to_simplified

# A claim ends at 。！？；!? , at ". " / "; " and at a line break. A list item ("1. ...") stays one claim.
# A list number ("1. ", "12. " at a line start) is not a full stop.
# A full stop after a title or an initial ("Dr. Mabuse", "George W. Bush", "e.g. a bond") ends no sentence: split
# there, "The Testament Of Dr." became a claim of its own, unsupported, and the checked answer lost the title.
# ("No." is left out: as an answer, "No. The contract …", it does end a sentence.)
_ABBREVIATIONS = ("Dr", "Mr", "Mrs", "Ms", "Prof", "St", "Jr", "Sr", "Mt", "vs", "Co", "Inc", "Ltd", "e.g", "i.e")
_NOT_AN_ABBREVIATION = "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS) + r"(?<!\b[A-Z])"
_CLAIM = re.compile(
    r"[^。！？；!?;\n]+?(?:[。！？；!?;]+|(?<!^\d)(?<!\n\d)(?<!^\d\d)(?<!\n\d\d)"
    + _NOT_AN_ABBREVIATION
    + r"\.(?=\s|$)|(?=\n)|$)"
)
_CITE = re.compile(r"\s?[\[【]\s*\d{1,3}(?:\s*[,，、;]\s*\d{1,3})*\s*[\]】]")


def _words(text: str) -> list[str]:
    return text.split()


_COMMA = re.compile(r"[，；;]|,(?!\d)")
_LEADING_CITES = re.compile(r"(?:\s?[\[【]\s*\d{1,3}(?:\s*[,，、;]\s*\d{1,3})*\s*[\]】])+")

# Everyday and financial (大写: 伍万元整) numerals up to 万 (亿 is a measure word here: 3亿 stays 3, as sources print
# it); traditional forms are simplified before parsing.
_ZH_NUMERAL = rf"[{ZH_DIGIT_CHARS}{ZH_UNIT_CHARS}{ZH_FINANCIAL_CHARS}{ZH_WAN_CHARS}]+"
# A Chinese numeral counts as a number only before a measure word or after 第 (else 统一, 一般 would be numbers).
_ZH_MEASURE = (
    r"(?=\s*(?:年|个月|月|日|天|周|小时|分钟|分|岁|倍|条|款|项|章|节|名|人|次|元|万|亿|%|％|个|份|家|页|日历天|工作日))"
)
_ZH_NUMBER = re.compile(rf"第\s*({_ZH_NUMERAL})|百分之({_ZH_NUMERAL})|({_ZH_NUMERAL}){_ZH_MEASURE}")
_ARABIC = re.compile(r"\d+(?:[,，]\d{3})*(?:\.\d+)?")
# A clause's number of three levels or more ("3.6.3投标人提供…", "10.2.1"): no figure of the sentence, so its parts
# never bear a claim's number (the "3" of 3.6.3 is no page limit of 3). A dotted date starts with a longer year.
_CLAUSE_NUMBER = re.compile(r"(?<![\d.])\d{1,2}(?:\.\d{1,3}){2,}(?![\d.])")
_LIST_MARK = re.compile(r"^\s*(?:\d{1,2}[.、)）](?!\d)|[（(]\d{1,2}[)）]|[-*•])\s*")  # "1. " "2、" "(3)" "- "
_BLANK = re.compile(r"(?:[为是：:]|为)\s*[/／∕]\s*(?:[万亿]?元|%|％|日|天|个|人|$|[。，,；;])")
_PHONE = re.compile(r"(?<!\d)\d{3,4}-\d{6,8}(?!\d)")
_WAN = re.compile(r"(\d+(?:\.\d+)?)\s*[万萬]\s*(\d+)?")
_EN_WORD_NUMBER = re.compile(r"\b(" + "|".join(EN_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_QUOTED = re.compile(r"「([^」]{2,40})」|『([^』]{2,40})』|“([^”]{2,40})”|\"([^\"]{2,40})\"")
_TITLE = re.compile(r"《([^》]{1,40})》")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff])[ \t\u3000]+(?=[\u3400-\u9fff])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")

# Words a question or an answer uses around its facts, which bind nothing. Single function characters (在, 占,
# …) also cut a run, so that no bigram spans a word boundary: "勘察设计方案在总分中占多少分" must not ask for
# 案在 and 在总.
_ZH_GENERIC = _words(
    "资料 答案 回答 如下 以下 综上 "
    "中华人民共和国 本招标文件 招标文件 本文件 该文件 文件中 文档中 资料中 根据 依据 按照 依照"
    " 规定的 规定 所述 是多少 为多少 多少 是什么 什么 哪些 哪个 哪一 哪里 是否 请问 如何"
    " 怎样 怎么 本案 本项目 该项目 本工程 本次 可以 应当 需要 要求 的是 是 的 了 吗 呢 为"
    " 即 有何 有哪些 有多少 有几 有什么 多长 多久 几 何时 何种 对 与 及 或 由 向 从 被 把 将 于 在 占 正确 错误 不对"
)
_ZH_GENERIC_RE = re.compile("|".join(sorted(map(re.escape, _ZH_GENERIC), key=len, reverse=True)))
_EN_STOP = frozenset(
    _words(
        "yes true false correct incorrect"
        " source sources answer a an the of in on at to for by with from and or not no is are was were be been being do"
        " does did what which who whom whose when where why how many much under according judgment"
        " judgement court act document documents state states stated said say says this that these"
        " those there their its it as any all was has have had will shall would should may might can"
        " could than then into upon about per each case high section"
    )
)


@dataclass(frozen=True)
class Fact:
    """One hard fact of a claim: its text, the values it may appear as, and its kind (for contradictions)."""

    text: str
    values: frozenset[str]  # any one of these among a sentence's numbers supports it
    parts: frozenset[str]  # … or all of these (35万900 → 35 and 900; 2024年3月1日 → 2024, 3, 1)
    kind: str  # percent | amount | date | article | count | name


@dataclass(frozen=True)
class Claim:
    text: str  # as the model wrote it, citation markers included
    start: int  # offsets in the answer
    end: int
    cited: tuple[int, ...]  # the source numbers the model put on it


def split_claims(answer: str, *, clauses: bool = True) -> list[Claim]:
    """The answer's claims (sentences, cut into clauses by ``_clauses`` unless ``clauses`` is False) with the [n]
    the model wrote on each; blank pieces are dropped.

    A marker written after the full stop ("…15分钟。[1]") belongs to the claim before it.
    """
    spans: list[list[int]] = []
    for m in _CLAIM.finditer(answer):
        start, end = m.start(), m.end()
        lead = _LEADING_CITES.match(answer, start, end)
        if lead and lead.end() > start and spans:
            spans[-1][1] = lead.end()
            start = lead.end()
        if not strip_markers(answer[start:end]).strip(" \t。！？；!?;.,，、:：-*#"):
            if spans and answer[start:end].strip():  # a marker alone after the full stop
                spans[-1][1] = end
            continue
        spans.append([start, end])
    if clauses:
        spans = [[a, b] for s0, e0 in spans for a, b in _clauses(answer, s0, e0)]
    return [Claim(answer[a:b], a, b, cited_numbers(answer[a:b])) for a, b in spans]


def _clauses(answer: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence cut at each comma with a number before it and a new number after it: "投标保证金为伍万元，履约
    保证金为10%" is two claims, each checked against its own source sentence (50,000's comma is no cut)."""
    out: list[tuple[int, int]] = []
    begin = start
    commas = [m.start() for m in _COMMA.finditer(answer, start, end)]
    for i, at in enumerate(commas):
        after = commas[i + 1] if i + 1 < len(commas) else end
        left = numbers_in(strip_markers(answer[begin:at]))
        if left and numbers_in(strip_markers(answer[at + 1 : after])) - left:
            out.append((begin, at + 1))
            begin = at + 1
    out.append((begin, end))
    return out


def cited_numbers(text: str) -> tuple[int, ...]:
    return tuple(dict.fromkeys(int(n) for m in _CITE.finditer(text) for n in re.findall(r"\d+", m.group(0))))


def strip_markers(text: str) -> str:
    return _CITE.sub("", text)


def _number_text(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:g}"


def numbers_in(text: str) -> set[str]:
    """Every number of ``text`` by value (as digits): arabic, with 万, Chinese numerals before a measure word; a
    clause's number (3.6.3) is none."""
    text = _CLAUSE_NUMBER.sub(" ", to_simplified(text))
    found = {m.group(0).replace(",", "").replace("，", "") for m in _ARABIC.finditer(text)}
    for m in _WAN.finditer(text):
        value = float(m.group(1)) * 10000 + (int(m.group(2)) if m.group(2) else 0)
        found.add(_number_text(value))
    for m in _ZH_NUMBER.finditer(text):
        zh_value = han_number(next(g for g in m.groups() if g))
        if zh_value is not None:
            found.add(str(zh_value))
    for m in _EN_WORD_NUMBER.finditer(text):
        found.add(str(EN_NUMBER_WORDS[m.group(1).lower()]))
    return {_strip_zeros(n) for n in found}


def _strip_zeros(n: str) -> str:
    """A number's digits as one form: no trailing zeros after its point (1.50 → 1.5), no leading zeros (a date's
    month printed 07 is the 7 of 「7月」)."""
    if "." in n:
        n = n.rstrip("0").rstrip(".")
    whole, point, fraction = n.partition(".")
    return (whole.lstrip("0") or "0") + point + fraction


def facts_in(claim: str) -> list[Fact]:
    """The hard facts of a claim: numbers (with their kind) and quoted names; citation markers ignored."""
    text = _LIST_MARK.sub("", to_simplified(strip_markers(claim)))
    facts: list[Fact] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, fact: Fact) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        facts.append(fact)

    for m in _WAN.finditer(text):
        amount = float(m.group(1)) * 10000 + (int(m.group(2)) if m.group(2) else 0)
        wan_parts = frozenset({m.group(1), *([m.group(2)] if m.group(2) else [])})
        add(m.start(), m.end(), Fact(m.group(0), frozenset({_number_text(amount)}), wan_parts, "amount"))
    for m in _ZH_NUMBER.finditer(text):
        zh_value = han_number(next(g for g in m.groups() if g))
        if zh_value is not None:
            kind = "article" if m.group(1) else "percent" if m.group(2) else _kind(text, m.end())
            add(m.start(), m.end(), Fact(m.group(0), frozenset({str(zh_value)}), frozenset({str(zh_value)}), kind))
    for m in _PHONE.finditer(text):
        phone_parts = frozenset(_strip_zeros(p) for p in re.findall(r"\d+", m.group(0)))
        add(m.start(), m.end(), Fact(m.group(0), frozenset({m.group(0).replace("-", "")}), phone_parts, "phone"))
    for m in _ARABIC.finditer(text):
        value = _strip_zeros(m.group(0).replace(",", "").replace("，", ""))
        add(m.start(), m.end(), Fact(m.group(0), frozenset({value}), frozenset({value}), _kind(text, m.end())))
    for m in _EN_WORD_NUMBER.finditer(text):
        value = str(EN_NUMBER_WORDS[m.group(1).lower()])
        add(m.start(), m.end(), Fact(m.group(0), frozenset({value}), frozenset({value}), _kind(text, m.end())))
    for m in _QUOTED.finditer(text):
        quoted = next(g for g in m.groups() if g)
        add(m.start(), m.end(), Fact(quoted, frozenset({_squash(quoted)}), frozenset(), "name"))
    return _merge_dates(facts)


def _kind(text: str, end: int) -> str:
    after = text[end : end + 4].lstrip()
    if after[:1] in ("%", "％") or after.startswith("percent"):
        return "percent"
    if after[:1] in ("元", "万", "亿", "$") or text[max(0, end - 12) : end].strip().startswith(("$", "¥", "￥")):
        return "amount"
    if after[:1] in ("年", "月", "日", "天") or after.startswith(("day", "year", "month", "week")):
        return "duration"
    if after[:1] in ("条", "款", "项") or after.startswith(("s ", "section")):
        return "article"
    return "count"


def _merge_dates(facts: list[Fact]) -> list[Fact]:
    """2024年3月1日 is one fact with three parts, not three numbers."""
    return facts  # each part is checked on its own; a date's numbers must all be in the sentence anyway


def _squash(text: str) -> str:
    return "".join(text.split()).lower()


def content_terms(text: str) -> set[str]:
    """Terms that say what a sentence is about: the concepts it names (``text/concepts.py``: 押標金 and 投标保证金
    are one term, §bid_bond), then CJK bigrams outside generic words and English word stems of the rest."""
    text = to_simplified(strip_markers(text))
    text = _TITLE.sub(" ", text)  # a document's own title scopes the question, it binds no clause
    text = _CJK_GAP.sub("", text)  # PDF text spaces out table labels: "电 话" is 电话
    text, concepts = concept_terms(text.lower())
    terms: set[str] = set(concepts)
    for run in _CJK_RUN.findall(_ZH_GENERIC_RE.sub(" ", text)):
        if len(run) == 1:
            continue
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    for w in _WORD.findall(text):
        low = w.lower().strip("'-")
        if low in _EN_STOP or len(low) < 3:
            continue
        terms.add(stem(low))
    return terms


def stem(word: str) -> str:
    """A crude English stem: the first six letters (terminated / termination / terminate → termin)."""
    word = word.lower()
    for suffix in ("'s", "ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:6]


def quoted_terms(question: str) -> list[str]:
    """Terms the question quotes (「執行計畫與預期成果」): a supporting sentence must hold each of them."""
    text = to_simplified(question)
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]


def focus_terms(question: str) -> set[str]:
    """The question's content terms (its numbers aside): what the supporting sentence must be about."""
    return {t for t in content_terms(question) if not t[0].isdigit()}


def focus_weights(question: str) -> dict[str, int]:
    """How much each concept among the question's focus terms weighs (the words its term replaced: 押標金 2); a
    term not listed weighs 1."""
    text = _CJK_GAP.sub("", _TITLE.sub(" ", to_simplified(strip_markers(question))))
    return concept_weights(text.lower())


def states_a_blank(claim: str) -> bool:
    """The claim gives a form's blank as the value: "合同估算价为 / 万元", "时间：2025年10月 日 时 分"."""
    return _BLANK.search(to_simplified(strip_markers(claim))) is not None


_ASKED = re.compile(r"的([^的，,、]{2,})$")


def asked_terms(question: str) -> set[str]:
    """The terms of what a Chinese question asks of its subject: the phrase after its last 的
    ("…咨询有限公司的邮政编码是多少" → 邮政编码). Empty when there is no such phrase (or it is English)."""
    text = to_simplified(" ".join(question.split())).rstrip(" ？?。.!！")
    m = _ASKED.search(text)
    return {t for t in content_terms(m.group(1)) if not t[0].isdigit()} if m else set()
