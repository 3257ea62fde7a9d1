"""A grammar of citations to laws and their articles, Chinese and English, as pure functions.

Forms read (numbers in Chinese numerals, ASCII or full-width digits):

- 《中华人民共和国招标投标法》第四十六条, 《…实施条例》第四条第三款, 《…》第十条、第十一条 — a book-titled law; a title
  alone counts only when it names a law (ends in 法, 条例, 规定, 办法, 细则, 解释, 规则, 决定, 通则, or 法典, in either
  script), so 《示范文本》 is not a citation, while 《示范文本》第三条 (an article of it) is.
- 依政府採購法第64條, 违反招标投标法第五十条, 刑法第二百六十四条之一 — a law named without marks: the run of Han
  characters before 第, cut after the verb or conjunction that introduces it (依, 根据, 违反, 和 …).
- 本法第十条, 本条例第五条, 第十二条第二款 — the citing document's own article (``law`` None); 该法/同法 第N条 — the law
  cited last before it in the same text.
- "section 12 of the Insurance Contracts Act 1984", "ss 54 and 55 of the …", "Insurance Contracts Act 1984 (Cth)
  s 54(1)", "s 54(1)", "Article 5", "cl 3.2" — bare sections are the citing document's own; "the Contracts Review
  Act 1980 (NSW)" alone cites the Act as a whole. "this Act" is the citing document.

Near-misses that are not citations: 第三章 / 第2页 / 第一次 (not an article), 条件 after a number, an article number
that is not a number, "its 54" or "items 54" (no word boundary before s), "the act of signing" (lowercase),
"Acting", "Actions".

:func:`find_refs` reads citations; :func:`article_starts` finds where articles begin (第N条 at the start of a line;
in an Act, a numbered section heading at the start of a line); :func:`clause_starts` finds a contract's numbered
clauses ("Clause 15", "12.3 Refund"); :func:`law_keys` gives the names a law is matched by.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from pikelocal.domain.references import ArticleStart, LegalRef
from pikelocal.text.numerals import ZH_DIGIT_CHARS, ZH_UNIT_CHARS, han_number

_NUM = rf"(?:[0-9０-９]+|[{ZH_DIGIT_CHARS}{ZH_UNIT_CHARS}]+)"
_LAW_SUFFIX = r"(?:法典|法|条例|條例|规定|規定|办法|辦法|细则|細則|解释|解釋|规则|規則|决定|決定|通则|通則)"
_ARTICLE = rf"第\s*({_NUM})\s*[条條](?:\s*之\s*({_NUM}))?(?![件款])"  # 条件 is "condition"; 条款 "clause" (a word)
_DETAIL_ITEM = rf"第\s*{_NUM}\s*[款项項目]"
# 第二款、第三款: a list of paragraphs stays the article's detail, so that an article listed after it (或者第七十二条)
# is still read as the same law's (公司法第七十一条第二款、第三款或者第七十二条: lawrefbook's own-article misses)
_DETAIL = rf"((?:\s*{_DETAIL_ITEM}(?:\s*(?:、|，|,|和|及|或者|或|至|到)\s*{_DETAIL_ITEM})*)*)"
_LIST_SEP = r"\s*(?:、|，|,|和|及|以及|或者|或|与|與|至|到)\s*"

# 《title》 with an optional article; bare (unmarked) article with what precedes it read separately.
_MARKED = re.compile(rf"《([^《》\n]{{1,60}})》\s*(?:{_ARTICLE}{_DETAIL})?")
_BARE_ARTICLE = re.compile(rf"{_ARTICLE}{_DETAIL}")
_NEXT_ARTICLE = re.compile(rf"{_LIST_SEP}{_ARTICLE}{_DETAIL}")
_HAN = re.compile(r"[\u3400-\u9fff]")
_SELF_NAMES = (
    "本法",
    "本条例",
    "本條例",
    "本规定",
    "本規定",
    "本办法",
    "本辦法",
    "本细则",
    "本細則",
    "本解释",
    "本規則",
    "本规则",
    "本决定",
    "本法典",
)
_PREVIOUS_NAMES = ("该法", "該法", "上述法", "前述法")  # a name ending so is the law cited last (同法: only alone)
# What introduces a law's name in running text; the name is what follows the last one (longest first).
_INTRO = (
    "依据",
    "依照",
    "按照",
    "根据",
    "根據",
    "依據",
    "违反",
    "違反",
    "适用",
    "適用",
    "参照",
    "參照",
    "遵守",
    "遵照",
    "符合",
    "执行",
    "執行",
    "以及",
    "或者",
    "及",
    "与",
    "與",
    "或",
    "和",
    "并",
    "並",
)
# Prepositions that may open a name's run too, but also occur inside law names (对外贸易法, 经济合同法): cut at them
# only at the run's start.
_INTRO_AT_START = ("依", "按", "据", "據", "照", "的", "在", "由", "于", "於", "对", "對", "经", "經", "是", "为", "為")
_MAX_NAME = 30

_ACT_WORD = r"(?:[A-Z][A-Za-z'’\-]*|\((?:[A-Z][A-Za-z]*)\))"
_ACT_TAIL = r"(?:Act|Code|Regulations?|Rules|Ordinance)"
_JURIS = r"(?:Cth|NSW|Vic|Qld|WA|SA|Tas|ACT|NT|UK|NZ|Imp)"
_ACT = (
    rf"(?:[Tt]he\s+)?((?:{_ACT_WORD}\s+(?:(?:of|and|for|on|in|to|de)\s+)*)+?{_ACT_TAIL})\b"
    rf"(?:\s+(\d{{4}}))?(?:\s*\(({_JURIS})\))?"
)
_SECTION_NO = r"(\d+(?:\.\d+)*[A-Z]{0,3})((?:\([0-9a-zA-Z]{1,4}\))*)"
_SECTION_NO_PLAIN = r"\d+(?:\.\d+)*[A-Z]{0,3}(?:\([0-9a-zA-Z]{1,4}\))*"
_SECTION_WORD = r"(?:[Ss]ections?|[Ss]ecs?|ss?|[Aa]rticles?|[Aa]rts?|[Cc]lauses?|cls?|[Rr]egulations?|regs?)"
_EN_SECTION = re.compile(
    rf"(?<![A-Za-z0-9'’])({_SECTION_WORD})(?:\.\s*|\s+){_SECTION_NO}(?![0-9A-Za-z])"
    rf"((?:\s*(?:,|and|or|to|-|–)\s*{_SECTION_NO_PLAIN}(?![0-9A-Za-z]))*)"
    rf"(?:\s+of\s+{_ACT})?"
)
_EN_SECTION_NO = re.compile(_SECTION_NO)
_EN_ACT = re.compile(rf"(?<![A-Za-z]){_ACT}")
_EN_ACT_THEN_SECTION = re.compile(rf"(?<![A-Za-z]){_ACT}\s*,?\s*(?=(?:ss?\.?|[Ss]ections?)\s*\d)")
_LEADING = {"under", "in", "by", "see", "pursuant", "per", "from", "with", "and", "or", "of", "to", "as", "if", "when",
            "since", "because", "but", "however", "also", "whereas", "unlike", "following", "applying"}  # fmt: skip
_DETERMINERS = {"this", "that", "the", "such", "each", "any", "an", "a", "our", "said", "same", "principal"}

_ZH_ARTICLE_START = re.compile(rf"(?m)^[ \t\u3000#>*]*第\s*({_NUM})\s*[条條](?:\s*之\s*({_NUM}))?(?=[\s\u3000　:：]|$)")
_EN_SECTION_START = re.compile(r"(?m)^[ \t]*(?:Section\s+)?(\d+[A-Z]{0,2})\.?[ \t]+(?=[A-Z][a-z])")
_TITLE_NOISE = re.compile(
    r"[（(][^（）()]*[0-9０-９][^（）()]*[）)]\s*$"
)  # "(2017-12-27)", "（2019年修正）" at the end


def _article_key(number: str, sub: str | None) -> str | None:
    n = han_number(number)
    if n is None or n == 0:
        return None
    if sub:
        s = han_number(sub)
        return f"{n}-{s}" if s else None
    return str(n)


def is_law_title(title: str) -> bool:
    """Whether a book title names a law (its name, less a trailing version in brackets, ends in a law word)."""
    name = _TITLE_NOISE.sub("", title.strip())
    name = re.sub(r"[（(][^（）()]*[）)]$", "", name)  # 刑法修正案（十一）: the bracket after the name
    return re.search(rf"{_LAW_SUFFIX}(?:修正案|修订案)?$", name) is not None


def _INTRO_AT_START_OK(run: str) -> bool:  # noqa: N802
    return not run.startswith(("经济", "經濟", "对外", "對外", "为了"))


def _name_before(text: str, end: int) -> str:
    """The Han run ending at ``end`` (at most ``_MAX_NAME`` characters), cut after its last introducing word."""
    start = end
    while start > 0 and end - start < _MAX_NAME and _HAN.match(text[start - 1]):
        start -= 1
    run = text[start:end]
    while len(run) > 2 and run.startswith(_INTRO_AT_START) and _INTRO_AT_START_OK(run):
        run = run[1:]
    cut = 0
    for i in range(len(run) - 1, -1, -1):  # the last introducing word that leaves a name behind it
        for word in _INTRO:
            # at least two characters after it (刑法): in 法律适用法, 适用 is part of the name, not before it
            if run.startswith(word, i) and i + len(word) <= len(run) - 2:
                if word == "和" and i > 0 and run[i - 1] == "共":  # 共和国
                    continue
                cut = i + len(word)
                break
        if cut:
            break
    return run[cut:]


def _zh_refs(text: str) -> list[LegalRef]:
    refs: list[LegalRef] = []
    taken: list[tuple[int, int]] = []

    def add_list(law: str | None, start: int, number: str, sub: str | None, detail: str | None, end: int) -> int:
        """The article cited at [start, end) and those listed after it (、第N条, 至第M条); the end of the last."""
        key = _article_key(number, sub)
        if key is None:
            return end
        refs.append(LegalRef(start, end, law, key, _detail(detail)))
        while nxt := _NEXT_ARTICLE.match(text, end):
            key = _article_key(nxt.group(1), nxt.group(2))
            if key is None:
                break
            at = text.index("第", nxt.start())
            refs.append(LegalRef(at, nxt.end(), law, key, _detail(nxt.group(3))))
            end = nxt.end()
        return end

    for m in _MARKED.finditer(text):
        title = m.group(1).strip()
        if m.group(2) is not None:  # 《X》第N条: an article of X, whatever X is
            taken.append((m.start(), add_list(title, m.start(), m.group(2), m.group(3), m.group(4), m.end())))
        elif is_law_title(title):
            refs.append(LegalRef(m.start(), m.end(1) + 1, title, None))
            taken.append((m.start(), m.end(1) + 1))
    for m in _BARE_ARTICLE.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        if _at_line_start(text, m.start()) and _ZH_ARTICLE_START.match(text, text.rfind("\n", 0, m.start()) + 1):
            # an article's own heading (第一条 为了…, a space after it at the start of a line), not a citation
            continue
        law: str | None = None
        start = m.start()
        name = _name_before(text, m.start())
        if name.endswith(_SELF_NAMES):
            start -= len(next(s for s in _SELF_NAMES if name.endswith(s)))
        elif name.endswith(_PREVIOUS_NAMES) or name == "同法":  # 该法: the law named last before it
            prior = [r for r in refs if r.law is not None and r.end <= m.start()]
            law = max(prior, key=lambda r: r.end).law if prior else None
            start -= len(next((p for p in _PREVIOUS_NAMES if name.endswith(p)), name))
        elif name and re.search(rf"{_LAW_SUFFIX}$", name):
            law, start = name, m.start() - len(name)
        taken.append((start, add_list(law, start, m.group(1), m.group(2), m.group(3), m.end())))
    refs.sort(key=lambda r: r.start)
    return refs


def _at_line_start(text: str, pos: int) -> bool:
    line = text[text.rfind("\n", 0, pos) + 1 : pos]
    return not line.strip(" \t\u3000#>*")


def _detail(raw: str | None) -> str:
    return re.sub(r"\s+", "", raw or "")


def _act_name(m: re.Match[str], name_group: int) -> str | None:
    """The Act's name as cited ("Insurance Contracts Act 1984 (Cth)"); None for "this Act", "the Act"."""
    words = m.group(name_group).split()
    while len(words) > 2 and words[0].lower() in _LEADING:  # "Under Insurance Contracts Act": a sentence's start
        words = words[1:]
    if len(words) < 2 or words[0].lower() in _DETERMINERS:
        return None
    name = " ".join(words)
    if m.group(name_group + 1):
        name += f" {m.group(name_group + 1)}"
    if m.group(name_group + 2):
        name += f" ({m.group(name_group + 2)})"
    return name


def _en_refs(text: str) -> list[LegalRef]:
    refs: list[LegalRef] = []
    taken: list[tuple[int, int]] = []
    for m in _EN_SECTION.finditer(text):
        law = _act_name(m, 5) if m.group(5) else None
        numbers = [(m.group(2), m.group(3), m.start(), m.end(3))]
        for extra in _EN_SECTION_NO.finditer(m.group(4) or ""):
            at = m.start(4) + extra.start()
            numbers.append((extra.group(1), extra.group(2), at, m.start(4) + extra.end()))
        if not m.group(5):  # "Insurance Contracts Act 1984 (Cth) s 54": the Act just before
            for act in _EN_ACT_THEN_SECTION.finditer(text, max(0, m.start() - 200), m.end()):
                if act.end() == m.start():
                    law = _act_name(act, 1)
                    numbers[0] = (numbers[0][0], numbers[0][1], act.start(), numbers[0][3])
        for number, detail, start, end in numbers:
            refs.append(LegalRef(start, m.end() if m.group(5) and len(numbers) == 1 else end, law, number, detail))
        taken.append((min(n[2] for n in numbers), m.end()))
    for m in _EN_ACT.finditer(text):
        if any(s <= m.start() < e or s < m.end() <= e for s, e in taken):
            continue
        law = _act_name(m, 1)
        if law is not None:
            refs.append(LegalRef(m.start(), m.end(), law, None))
    refs.sort(key=lambda r: r.start)
    return refs


def find_refs(text: str) -> list[LegalRef]:
    """Every citation of a law or article in ``text``, in order of position."""
    refs = _zh_refs(text) if _HAN.search(text) else []
    if re.search(r"[A-Za-z]", text):
        refs += _en_refs(text)
    refs.sort(key=lambda r: (r.start, r.end))
    return refs


def article_starts(text: str, *, english: bool = False) -> list[ArticleStart]:
    """Where articles begin in ``text``: 第N条 at the start of a line (and, with ``english``, a numbered section
    heading such as "54 Insurer may not refuse…" or "Section 7 Definitions"), first occurrence of each."""
    seen: dict[str, int] = {}
    for m in _ZH_ARTICLE_START.finditer(text):
        key = _article_key(m.group(1), m.group(2))
        if key is not None:
            seen.setdefault(key, m.start())
    if english:
        for m in _EN_SECTION_START.finditer(text):
            seen.setdefault(m.group(1), m.start())
    return [ArticleStart(k, v) for k, v in sorted(seen.items(), key=lambda kv: kv[1])]


# A clause's own heading at the start of a line: "第15条", "## 第十五條 退還", "Clause 12.3", "Article 5 Scope",
# "15. Refund of the bid bond", "12.3 Refund" (a numbered heading of a contract or a tender's instructions).
_CLAUSE_START = re.compile(
    rf"(?m)^[ \t\u3000#>*]*(?:第\s*(?P<zh>{_NUM})\s*[条條](?:\s*之\s*(?P<zhsub>{_NUM}))?(?=[\s\u3000:：]|$)"
    r"|(?:[Cc]lause|CLAUSE|[Aa]rticle|ARTICLE|[Ss]ection|SECTION)\s+(?P<word>\d+(?:\.\d+)*[A-Z]?)\b"
    r"|(?P<num>\d{1,3}(?:\.\d{1,3})*)(?:\.|\))?[ \t]+(?=[A-Z\u4e00-\u9fff]))"
)


def clause_starts(text: str) -> list[ArticleStart]:
    """Where numbered clauses begin in ``text``: 第N条, "Clause N", "Article N", "Section N" or a bare number
    ("15.", "12.3") heading a line, first occurrence of each, in order. Wider than :func:`article_starts` (which
    reads a law's articles for citations): a contract or a tender numbers its clauses with bare numbers."""
    seen: dict[str, int] = {}
    for m in _CLAUSE_START.finditer(text):
        key = _article_key(m["zh"], m["zhsub"]) if m["zh"] else m["word"] or m["num"]
        if key is not None:
            seen.setdefault(key, m.start())
    return [ArticleStart(k, v) for k, v in sorted(seen.items(), key=lambda kv: kv[1])]


def law_keys(name: str) -> set[str]:
    """The keys a law is matched by: its name normalised (NFKC, no spaces or 《》, lower case), without the
    中华人民共和国 prefix, without a trailing version in brackets, and for an Act without its year and jurisdiction."""
    base = unicodedata.normalize("NFKC", name).strip().strip("《》<>\"'")
    base = re.sub(r"^(?:the\s+)", "", base, flags=re.IGNORECASE)
    out: set[str] = set()
    for variant in _variants(base):
        key = re.sub(r"\s+", "", variant).lower()
        if key:
            out.add(key)
    return out


def _variants(name: str) -> Iterable[str]:
    yield name
    stripped = _TITLE_NOISE.sub("", name).strip()
    yield stripped
    for prefix in ("中华人民共和国", "中華人民共和國"):
        if stripped.startswith(prefix) and len(stripped) > len(prefix):
            yield stripped[len(prefix) :]
    act = re.sub(rf"\s*\(\s*{_JURIS}\s*\)\s*$", "", stripped)
    yield act
    yield re.sub(r"\s+\d{4}$", "", act)


def name_candidates(name: str) -> list[str]:
    """Keys to try for a cited name, most specific first: the name's own keys, then (for an unmarked Han name
    whose start is uncertain) the keys of each shorter tail that still ends in a law word."""
    out = sorted(law_keys(name), key=len, reverse=True)
    if _HAN.search(name):
        for i in range(1, len(name) - 1):
            tail = name[i:]
            if re.search(rf"{_LAW_SUFFIX}$", tail) and len(tail) >= 2:
                out += [k for k in sorted(law_keys(tail), key=len, reverse=True) if k not in out]
    return out
