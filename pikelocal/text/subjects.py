"""What a value in a sentence is a value of: the words before it in its clause, less what is not its subject.

Read by the statements of a document (``ingest/enrich/statements.py``). The rules are those the review's conflict
check applies to a value after an item's term (``review/conflicts.py``, which keeps its own copy of the patterns
``START_POINT``, ``LINE_BEFORE`` and ``LINE_AFTER``):

- a start point is not the subject: "自投标截止时间起90日", "投标截止之日起90天", "合同签订后30日内" count from an event
  (``START_POINT``, and the reference a duration is counted from);
- a base is not the subject: "合同总价的10%", "契約價金總額之20%" is a share *of* the base;
- points a score must reach are a threshold, not a weight: "總分達80分以上", "未達70分者" (``is_threshold``).

Where nothing is left before a value ("投标保证金：人民币5万元", "自2025年11月10日至…"), the clause before it names
the subject; where that fails too, the words after the value in its clause do ("30日内提交可行性研究报告"). What must be
done within a period follows it ("项目负责人2天内不能履行职责": 项目负责人 … 不能履行职责), and so does what a run of
years is of ("连续三年的财务审计报告"), the thing counted after an alternative ("两个或两个以上投标报价", "一家或者多家
小微企业") and, in English, the object a verb takes after an aside that holds the value ("procure within 10 Business
Days, the spare parts"): these join the words before the value.

Pure functions over text (a page's or a table cell's), offsets in that text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pikelocal.domain.review import Value, ValueKind
from pikelocal.text import concepts
from pikelocal.text.sentences import clean_sentence

_Kind = ValueKind | Literal["share", "points"]  # a percentage is a share (of a base) or a score in points
# Where a period is counted from ("自投标截止时间起 90 日", "從決標次日起"): an event named there is the start, not
# the subject of the value after it.
START_POINT = re.compile(r"(?:自|从|從|由|于|於)[^，,；;。]{0,30}?(?:起|之日|以后|以後|后|後)")
# "自收到异议之日起", "於收到申請後之": the 起 (or the 的/之 before the period) with it
_START_POINT_WHOLE = re.compile(START_POINT.pattern + "[起的之]?")
# A score's line: points reached or missed ("總分達80分以上者為及格", "未達70分者不得列為優勝廠商").
LINE_BEFORE = re.compile(r"(?:达|達|未达|未達|满|滿|不足|低于|低於|高于|高於)\s*$")
LINE_AFTER = re.compile(r"\s*(?:以上|以下|或以上|(?i:or (?:more|above|higher)))")

# A clause starts after these (an opening bracket too, unless it numbers a list item: "投标保证金（人民币5万元）" is
# about what stands before it; "（3）联合体各方…" is not cut at its bracket). A full stop inside a sentence closes an
# abbreviation ("Dr. Smith"), not a clause.
_CLAUSE_END_PATTERN = r"[，；：。！？]|[,;:!?](?=\s|$)|[（(](?![\dA-Za-z一二三四五六七八九十]{1,3}[)）])"
_CLAUSE = re.compile("、|" + _CLAUSE_END_PATTERN)
# The words a reference point ends with, right before a duration counted from it ("投标截止之日起90天").
_REFERENCE_END = re.compile(
    r"(?:之日起|之日|之时|之時|当日|當日|当天|當天|(?:以后|以後|之后|之後|后|後)[的之]?|起|以前|之前|前)\s*$"
)
# A period something must be done within ("2天内不能履行职责", "4 小時內回復"): what is due follows it.
_WITHIN = re.compile(r"\s*(?:以内|以內|之内|之內|内|內)")
# A duration counted back or on from the point named before it ("投标截止时间10日前", "验收合格后").
_COUNTED_BACK = re.compile(r"\s*(?:以前|之前|前|以后|以後|之后|之後|后|後)")
# What a share is of: the words before it that end with 的 or 之 ("不超过合同总价的10%", "契約價金總額之20%") are its
# base.
_BASE_END = re.compile(r"[的之]\s*(?:百分之|千分之)?\s*$")
# Words after which a reference point or a base begins ("投标有效期为|投标截止之日起", "不超过|合同总价的").
_OPENER = re.compile(
    r"为|為|是|指|按|占|佔|自|从|從|由|于|於|经|經|在|达到|達到|超过|超過|低于|低於|不少于|不少於|不低于|不低於|不高于|不高於"
    r"|最高|最低|支付|缴纳|繳納|扣除|[：:]"
)
# A look-back window or a run of periods: "近5年", "最近三年", "连续三年", "in the last 5 years" (what follows is what
# the window or the run is of: "连续三年的财务审计报告").
_LOOK_BACK = re.compile(r"(?:近|最近|连续|連續|(?i:\b(?:within|in|during) the (?:last|past)|\b(?:last|past)))\s*$")
# A bracketed aside, dropped from the words around a value ("近5年（从投标截止时间往前推，…）承接过").
_ASIDE = re.compile(r"[（(][^（()）]*[)）]")
# Words that say nothing of what a value is of: a subject of only these is empty.
_FILLER = re.compile(
    r"不[应應得可宜能]?(?:超过|超過|少于|少於|低于|低於|高于|高於|大于|大於|小于|小於)|人民币|新台币|新臺幣"
    r"|金额|金額|其中|最高|最低|最多|最少|至少|以内|以內|应当|應當|最近|有权|有權|连续|連續|否则|否則|备注|備註|附注|附註|说明|說明|注"
    r"|[为為是指得则則约約共计計即达達至到和及或与與内內前后後自从從由于於在应應须須并並且近将將起]"
    r"|(?i:\b(?:of|is|are|was|be|shall|will|the|a|an|to|and|or|at|by|on|in|for|from|within|than|not|no|more|less"
    r"|least|most|up|last|past|next)\b)|[\s\W_\d]"
)
_TIME = r"\d{1,2}[:：]\d{2}(?:[:：]\d{2})?"  # 17:00, a date's hour: part of the date, no subject
# The start of a clause's words that numbers or marks a list item, not its subject ("2.2.1", "（1）", "1、", "(a)").
_LEADING_MARK = re.compile(
    r"^(?:" + _TIME + r"\s*(?:以前|之前|前|以后|以後|之后|之後|后|後)?"
    r"|[#>*\-•·\s☑□■☐✓√✔的、\u2460-\u2473\u2776-\u277f]|\*\*|\d{1,2}(?:\.\d{1,2})*\.?(?![\d%])"
    r"|[（(]?[\dA-Za-z一二三四五六七八九十]{1,3}[)）]"
    r"|[一二三四五六七八九十]{1,3}、|\d{1,2}、|第[一二三四五六七八九十百千零〇\d]{1,8}[章节節条條款]|[A-Za-z][.)](?=\s)"
    r"|并且|並且|以及|或者|[并並且但而或及和])+"
)
# Words a subject does not end with: a copula, a colon, a connective, a modal.
_TRAILING = re.compile(
    r"(?:[\s:：,，、～~]|\d+(?:\.\d+)?(?=\s*[～~])|得分|得|\*\*|为|為|是|应当|應當|应于|應於|应|應|须|須|将|將|并在|並在|在|和|及|与|與|或|或者|未达|未達|达|達"
    r"|(?i:\b(?:is|are|was|be|shall be|shall|will|must|of|to|at|by)))+$"
)
# After a value: the words that continue it rather than name its subject ("30日内提交", "10日前提出").
_AFTER_LEAD = re.compile(
    r"^(?:[\s)）]|以内|以內|之内|之內|内|內|以前|之前|前|以后|以後|之后|之後|后|後|起|止|整|左右|者|以上|以下|或以上|的|之)+"
)
SUBJECT_MAX = 40  # characters of a subject kept (those nearest the value)
COUNTED_MAX = 20  # characters of the thing a count counts, when it follows the count ("一份加密的电子投标文件")
_ENGLISH_WORDS = 12  # words of an English subject kept
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_NEW_WORDS = re.compile(r"[\u3400-\u9fff].*[\u3400-\u9fff]", re.S)  # two CJK characters or more
# What continues a value rather than starting the next one's subject ("30日内支付", "验收后", "以上").
_CONTINUES = "内內以后後前起之至到每"
_LIST_COMMA = "、"
# What ends the words after a value: a clause mark other than the list comma ("投标人或其法定代表人、拟任项目负责人被
# 人民法院判决为行贿罪" is one list of who, and what happened to them).
_CLAUSE_END = re.compile(_CLAUSE_END_PATTERN)
# An alternative after a count before the thing it counts ("两个或两个以上投标报价", "一家或者多家小微企业").
_OR_MORE = re.compile(r"\s*(?:或者?|及|或是)\s*(?:多|数|數|几|幾)[个個家项項份名人次种種位件]")
_OR_MORE_AFTER = re.compile(r"\s*(?:或者?|或是)\s*$")
_MORE = re.compile(r"\s*(?:以上|以下)")
# English: the object a verb takes after a comma aside that holds the value ("…procure within 10 Business Days, the
# spare parts listed…"; "give the Buyer, at least 20 Business Days before the Pumps are shipped, the factory test
# certificates").
_EN_OBJECT = re.compile(
    r"[^,;:.]*,[ \t]+((?:the|a|an|any|all|each)[ \t]+[A-Za-z][A-Za-z \t-]*?)"
    r"(?=[ \t]+(?:for|listed|in|at|to|of|with|under|from|by|that|which)\b|[,;:.]|$)"
)
_LEADING_PUNCTUATION = re.compile(r"^[^\w（(“\"《「『\[]+")
_AND = re.compile(r"(?:和|及|与|與|以及)\s*$")
_EN_POSSESSIVE = re.compile(
    r"['’]s?[ \t]+((?:written[ \t]+)?[a-z]+(?:[ \t]+of[ \t]+(?:each[ \t]+|the[ \t]+|a[ \t]+)?[a-z]+)?)"
)
_EN_COUNTED = re.compile(r"[ \t]+([a-z]+s)\b")
_NOT_COUNTED = frozenset(("is", "was", "has", "as", "its", "this", "thus", "unless", "plus", "does", "always"))
_ONE_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SHORT_AFTER = 2  # characters: words after a value this short ("提出", "日期") need the clause before them


def _kind(value: Value) -> _Kind:
    """A value's kind as the rules see it: a percentage is a share of a base, points are not."""
    if value.kind == "percentage":
        return "points" if value.unit == "points" else "share"
    return value.kind


def is_threshold(text: str, start: int, end: int) -> bool:
    """Points at ``text[start:end]`` set a line a score must reach ("達80分以上", "未達70分者"), not a weight."""
    return bool(LINE_BEFORE.search(text[max(0, start - 3) : start]) or LINE_AFTER.match(text, end))


def subject_in(
    text: str, lo: int, start: int, end: int, hi: int, value: Value, others: Sequence[tuple[int, int]] = ()
) -> str:
    """The subject of the value at ``text[start:end]`` within the sentence ``text[lo:hi]``.

    The words before it in its clause (after a value before it in the same clause where new words follow that
    value: "正本1份副本3份"), less a start point or a base; for a count, with the thing counted where it follows
    ("生成一份加密的电子投标文件"). Where nothing is left: for a duration counted from a point, the words after it
    ("自收到异议之日起3日内作出答复"); else the clause before it ("投标保证金：人民币5万元"); else the words after it.
    ``others`` are the spans of the sentence's other values. Empty when none of these names anything.
    """
    kind = _kind(value)
    clause = _clause_start(text, lo, start, others)
    restated = _restated(text, clause, others)
    if restated is not None:  # "人民币伍万元整（¥50,000）": the same value again, of the same subject
        s, e = restated
        return subject_in(text, lo, s, e, hi, value, [o for o in others if o != restated])
    words, counted_from = _without_points(_ASIDE.sub("", text[clause:start]), kind, _following(text, end))
    subject = _clean(words) if _clean(_without_values(text, clause, start, others)) else ""
    if kind == "count" and (thing := _counted(text, end, hi, others)):
        # "一份加密的文件和一份不加密的文件": after another count, the words before are that count's thing
        after_value = any(e == clause for _s, e in others)
        subject = f"{subject} {thing}" if subject and not after_value else thing
    after = _after(text, end, hi, others)
    if kind == "duration" and _WITHIN.match(text, end):  # "项目负责人2天内不能履行职责": what is due follows
        counted_from = True
    if counted_from and not after and kind != "share":
        # "招标人最迟在签订合同后5日内，向…退还投标保证金": what is due is next (a share's next clause is the next
        # instalment's: "…支付至合同签订额的50%，施工图设计完成后支付…")
        after = _next_clause(text, end, hi, others)
    if counted_from and after:  # "招标人应当自收到异议之日起3日内作出答复": who, and what is due
        head = subject or (_previous(text, lo, clause, kind, others) if len(after) <= _SHORT_AFTER else "")
        return f"{head} … {after}" if head else after
    if subject and (thing := _english_thing(text, end, kind)):  # "give the Buyer at least 5 Business Days' notice"
        subject = f"{subject} … {thing}"
    if (subject or not _clean(words)) and (thing := _english_object(text, clause, end, hi)):
        head = subject or _previous(text, lo, clause, kind, others)
        return f"{head} … {thing}" if head else thing
    if subject and (_ONE_WORD.fullmatch(subject) or _OPENER.fullmatch(subject)):
        # "…, capped at 10%", "至工程竣工验收前，支付至合同签订额的90%": what is capped, or when it is paid, is in
        # the clause before
        prev = _previous(text, lo, clause, kind, others)
        return f"{prev} … {subject}" if prev else subject
    return subject or _previous(text, lo, clause, kind, others) or after


def words_before(text: str, lo: int, start: int, end: int, value: Value, others: Sequence[tuple[int, int]] = ()) -> str:
    """The words before the value at ``text[start:end]`` in its clause (within ``text[lo:]``), less a start point or
    a base; empty when they name nothing (no fallback: a table cell's value is about its row and column)."""
    words = _ASIDE.sub("", text[_clause_start(text, lo, start, others) : start])
    return _clean(_without_points(words, _kind(value), _following(text, end))[0])


def clean_subject(words: str, *, tail: bool = True) -> str:
    """``words`` as a subject: one line, without list marks, Markdown and trailing copulas, at most ``SUBJECT_MAX``
    characters (those nearest the value, or with ``tail=False`` the first); empty when only filler is left."""
    return _clean(words, tail=tail)


def concepts_of(subject: str) -> tuple[str, ...]:
    """The concept groups a subject names, the one nearest its end (the value) first, each once."""
    found = concepts.active().find(concepts.fold(subject))
    return tuple(dict.fromkeys(m.concept for m in reversed(found)))


def _clause_start(text: str, lo: int, start: int, others: Sequence[tuple[int, int]]) -> int:
    """Where the clause holding ``start`` begins: after the last clause mark, or after a value before it in the
    clause where Chinese words that do not continue that value follow it ("正本1份副本3份": 副本; but "30日内支付…").
    A list before the value whose items hold no value is the value's ("CA锁、标证通、电子营业执照3种": all three)."""
    asides = [(m.start(), m.end()) for m in _ASIDE.finditer(text, lo, start)]
    marks = [m for m in _CLAUSE.finditer(text, lo, start) if not any(a <= m.start() < b for a, b in asides)]
    clause = marks[-1].end() if marks else lo
    k = len(marks) - 1
    while k >= 0 and marks[k].group(0) == _LIST_COMMA:
        item_start = marks[k - 1].end() if k > 0 else lo
        if any(item_start <= s < marks[k].start() for s, _e in others):
            break
        clause = item_start
        k -= 1
    for s, e in others:
        if clause <= s and e <= start:
            gap = text[e:start].strip()
            if _NEW_WORDS.search(gap) and gap[0] not in _CONTINUES:
                clause = e
    return clause


def _after(text: str, end: int, hi: int, others: Sequence[tuple[int, int]]) -> str:
    """The words after a value in its clause (up to the next value; asides dropped), without the words that
    continue the value (内, 前, 以上). Where those name nothing and another value follows in the clause, the words
    after that one ("近一年内连续6个月社会保险证明": 社会保险证明)."""
    nxt = [(s, e) for s, e in others if end <= s < hi]
    stop = min([hi, *(s for s, _e in nxt)])
    rest = _ASIDE.sub("", _AFTER_LEAD.sub("", text[end:stop]))
    m = _CLAUSE_END.search(rest)
    run = rest[: m.start()] if m else rest
    if not m and stop < hi and _LIST_COMMA in run:  # "正本1份装订成册、副本每3份…": the next item is the next value's
        run = run[: run.rfind(_LIST_COMMA)]
    words = _clean(_AFTER_LEAD.sub("", run), tail=False)
    if words or m or stop == hi:
        return words
    following = next(e for s, e in nxt if s == stop)
    return _after(text, following, hi, [o for o in others if o[0] > stop])


def _english_thing(text: str, end: int, kind: _Kind) -> str:
    """What an English figure is of where it follows the figure: "5 Business Days' notice of each delivery" (a
    duration's or amount's possessive), "at least eight pumps" (a count's plural noun)."""
    m = _EN_POSSESSIVE.match(text, end)
    if m and kind != "count":
        return " ".join(m.group(1).split())
    m = _EN_COUNTED.match(text, end)
    if m and kind == "count" and m.group(1).lower() not in _NOT_COUNTED:
        return m.group(1)
    return ""


def _english_object(text: str, clause: int, end: int, hi: int) -> str:
    """The object an English verb takes after a comma aside that holds the value: the aside opens with a comma, and
    the object follows the comma that closes it ("or be able to procure within 10 Business Days, the spare parts")."""
    if clause == 0 or text[clause - 1] != "," or _CJK.search(text, clause, end):
        return ""
    m = _EN_OBJECT.match(text[:hi], end)
    return " ".join(m.group(1).split()) if m else ""


def _previous(text: str, lo: int, clause: int, kind: _Kind, others: Sequence[tuple[int, int]]) -> str:
    """The subject the clause before ``clause`` names (its words before its first value), within the sentence."""
    if clause <= lo:
        return ""
    prev_end = clause - 1
    prev = _clause_start(text, lo, prev_end, ())
    first = min((s for s, _e in others if prev <= s < prev_end), default=prev_end)
    return _clean(_without_points(_ASIDE.sub("", text[prev:first]), kind)[0])


def _restated(text: str, clause: int, others: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """The value a bracketed value restates: the one that ends right before the bracket its clause opens with."""
    if clause == 0 or text[clause - 1] not in "（(":
        return None
    at = clause - 1
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return next(((s, e) for s, e in others if e == at), None)


def _following(text: str, end: int) -> str:
    """The few characters after a value, a time after a date left out ("2026年12月15日17:00前": 前)."""
    rest = text[end : end + 16]
    return re.sub(rf"^\s*{_TIME}", "", rest)[:4]


def _without_values(text: str, start: int, end: int, others: Sequence[tuple[int, int]]) -> str:
    """``text[start:end]`` with the other values in it blanked: words that are only other values and filler
    ("自2025年11月10日至") name nothing."""
    out = list(text[start:end])
    for s, e in others:
        for i in range(max(s, start), min(e, end)):
            out[i - start] = " "
    return "".join(out)


def _next_clause(text: str, end: int, hi: int, others: Sequence[tuple[int, int]]) -> str:
    """The words of the clause after the one holding a value (up to the next value)."""
    m = _CLAUSE.search(text, end, hi)
    return _after(text, m.end(), hi, others) if m else ""


def _counted(text: str, end: int, hi: int, others: Sequence[tuple[int, int]]) -> str:
    """The thing a count counts when Chinese words follow its measure word at once ("一份加密的电子投标文件",
    "1 项中型防洪工程…业绩"); empty otherwise ("评标委员会构成：5人，")."""
    if m := _OR_MORE.match(text, end):  # "一家或者多家小微企业": the thing follows the alternative
        end = m.end()
    nxt = min((s for s, _e in others if end <= s < hi), default=hi)
    if nxt < hi and _OR_MORE_AFTER.fullmatch(text, end, nxt):  # "两个或两个以上投标报价"
        after_next = next(e for s, e in others if s == nxt)
        if m := _MORE.match(text, after_next):
            end = m.end()
            others = [o for o in others if o[0] != nxt]
    if not _CJK.match(text, end):
        return ""
    nxt = min((s for s, _e in others if end <= s < hi), default=hi)
    if nxt < hi and not _CLAUSE.search(text, end, nxt) and not _AND.search(text, end, nxt):
        return ""  # "正本1份副本3份": the words up to the next value are that value's (not "一份X和一份Y")
    thing = _after(text, end, hi, others)
    if not thing or not _NEW_WORDS.search(thing):
        return ""
    return thing[:COUNTED_MAX].strip()


def _without_points(words: str, kind: _Kind, after: str = "") -> tuple[str, bool]:
    """The words before a value less the start point a duration counts from ("自收到异议之日起", "投标截止之日起",
    and the point a duration counts back or on from: "投标截止时间10日前", where ``after`` is the text after the
    value) and the base a share is of; and whether such a point or base was taken out (or a date is a deadline:
    "於114年12月15日前完成"), so that the words after the value may name what it is for."""
    counted_from = False
    if kind == "date":  # "自決標日起至115年12月31日止", "於114年12月15日前完成": the date ends a period, or is due
        cut = _START_POINT_WHOLE.sub(" ", words)
        return cut, _COUNTED_BACK.match(after) is not None and after.lstrip()[:1] in "前之以"
    if kind == "duration" and (back := _LOOK_BACK.search(words)):
        return words[: back.start()], True
    if kind == "duration":
        cut = _START_POINT_WHOLE.sub(" ", words)
        counted_from, words = cut != words, cut
        if _REFERENCE_END.search(words) or _COUNTED_BACK.match(after):
            words = words[: _opener_end(words)]
            counted_from = True
    if kind == "share" and (base := _BASE_END.search(words)):
        words = words[: _opener_end(words[: base.start()])]
        counted_from = True  # "支付合同价款的30%作为预付款": what the share is for may follow it
    return words, counted_from


def _opener_end(words: str) -> int:
    """Where a reference point or base begins in the words before a value: after the last opener (为, 按, 不超过,
    …), or at their start when there is none (the words are all reference)."""
    last = None
    for m in _OPENER.finditer(words):
        last = m
    return last.end() if last is not None else 0


def _clean(words: str, *, tail: bool = True) -> str:
    """The words as one line without list marks, Markdown and trailing copulas; empty when only filler is left.
    At most ``SUBJECT_MAX`` characters (English: words), those nearest the value (``tail``) or the first."""
    line = clean_sentence(words).replace("**", "")
    line = _LEADING_MARK.sub("", _LEADING_PUNCTUATION.sub("", line))
    line = _TRAILING.sub("", line).strip()
    if not _FILLER.sub("", line):
        return ""
    if _CJK.search(line):
        if len(line) > SUBJECT_MAX:
            line = line[-SUBJECT_MAX:] if tail else line[:SUBJECT_MAX]
        return line.strip()
    kept = line.split()
    if len(kept) > _ENGLISH_WORDS:
        kept = kept[-_ENGLISH_WORDS:] if tail else kept[:_ENGLISH_WORDS]
    return " ".join(kept)
