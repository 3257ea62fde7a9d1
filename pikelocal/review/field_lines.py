"""Labelled fields: a line that is a short label, a colon and a value (「2、项目名称：含山县…项目」,
「1、开标时间：同投标文件提交截止时间」, 「11 投标有效期：投标文件提交截止时间后90天」), or a table row of a label cell
and a value cell (「| 项目编号 | 310113… |」), as a tender's notice and data sheet print its facts.

A label is at most ``MAX_LABEL_CHARS`` characters after an optional clause number, with no punctuation of a
sentence; what it is about is left to the concept groups (``text/concepts.py``), so 采购金额, 预算金额 and 採購金額
all name the budget. A value that is blank (a form's underscores, 「/」, 「无」 alone is a no, not a blank: see
:func:`is_blank`) is no field. A value 「同投标文件提交截止时间」 ("the same as …") is kept as printed: the caller
resolves it against the field it names (:func:`referred_label`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

MAX_LABEL_CHARS = 14
MAX_HEADER_CELL = 8  # a column header's characters at most (「项目名称」, 「单 位」, 「交货/服务地点」)
_UNIT_NOTE = re.compile(r"[（(][^（）()]{1,10}[)）]")
# a cell that answers the one before it (「| 是否接受联合体 | 否 |」, 「| 分包 | 不允许 |」): no header's
_ANSWER_CELL = re.compile(r"^(?:是|否|有|无|無|可|不\S{0,3}|允许|允許|接受|要求|需要|不适用|不適用|/|—|-)$")
MAX_VALUE_CHARS = 160
# A table's cell longer than that may open with its answer, then say the rest (「| 9 | 响应保证金 |
# 采购包1：保证金人民币：0.00元整。 开户单位：无 … 响应保函提交方式：…」): its first sentence is the field's value,
# not whole (so no name or text).
_FIRST_SENTENCE = re.compile(r"[^。|]+。")
# A value's line this long or longer was wrapped by the page when the next line goes on without a new field or
# clause (「2、项目名称：含山县城乡…仙踪镇剩余供」 then 「水支管网改造工程（加压泵站设备采购及安装项目）」); a shorter
# line ends its value.
WRAPPED_LINE_CHARS = 24
MAX_WRAPPED_LINES = 2
RUNNING_LINE_TIMES = 3  # a line printed this often is a page's running header or footer, no text of a field
_NUMBER = (
    r"(?:\d{1,2}(?:\s*[.．]\s*\d{1,3}){0,3}\s*[、.．]?"
    r"|[（(]\s*[\d一二三四五六七八九十]{1,3}\s*[)）]|[一二三四五六七八九十]{1,3}\s*[、.．])"
)
# What a label's brackets may say it also is (「投标文件递交截止时间（即投标截止时间和开标时间，下同）：」,
# 「截止时间（开标时间）：」): another name of the same field, a few words with no figure.
_ALIAS = r"(?:[（(]\s*(?:即为|亦即|也即|即)?(?P<alias>[^\d（）()：:，,。；;]{2,20}?)\s*(?:[，,]\s*下同)?\s*[)）])?"
# (a flattened table's row number may stand before the clause number: 「12  15.2.1 缺陷责任期的具体期限：24个月」)
_FIELD = re.compile(
    rf"^\s*(?:#{{1,6}}\s+)?(?:\d{{1,3}}\s+(?=\d))?(?:{_NUMBER}\s*)?(?P<label>[^\s:：，,。；;（）()、|]{{2,{MAX_LABEL_CHARS}}}?)\s*{_ALIAS}"
    rf"\s*[:：]\s*(?P<value>\S.*?)\s*$"
)
# A flattened table's row with no colon: its row number, a label cell and a value cell apart by spaces (「16 投标有效期
# 投标截止时间起 120天」); the number is bare (「16」, not 「16.」 or 「16、」, a clause's) and the label one word.
_ROW_FIELD = re.compile(
    rf"^\s*\d{{1,2}}\s+(?P<label>[^\s\d:：，,。；;（）()、|]{{2,{MAX_LABEL_CHARS}}})\s+(?P<value>[^\s:：].*?)\s*$"
)
_BLANK = re.compile(r"^[/／\\—\-_＿﹍…\s.。、，,:：【】\[\]（）()]*$")
_PLACEHOLDER = re.compile(r"^[（(][^（）()]{1,12}[)）]$")  # 「（盖单位章）」, 「(签字)」: what a form asks to fill in
# the next label on a line; one ending in a digit is a time's colon (「2024 年 6 月 18 日9：00」)
_NEXT_LABEL = re.compile(
    rf"(?:\s+|\s*[，,；;]\s*)[^\s:：，,。；;（）()、|]{{1,{MAX_LABEL_CHARS - 1}}}[^\s\d:：，,。；;（）()、|][:：]"
)
_CODE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9\-_/.]{3,})\s+\S")
# a value that is the next field's label (「项目名称： 项目编号：」), not a time's colon (「2026年06月12日10:00」)
_EMPTY_THEN_FIELD = re.compile(rf"^[^\d\s:：，,。；;（）()、|]{{2,{MAX_LABEL_CHARS}}}[:：]")
_CJK_END = re.compile(r"[\u4e00-\u9fff]$")
_SENTENCE_END = re.compile(r"[。；;！!]\s*$")
_NEW_CLAUSE = re.compile(rf"^\s*(?:{_NUMBER}|[|•●※])")
_REFERENCE = re.compile(r"^(?:同|与|與)(?P<label>[^，,。；;]{2,20}?)(?:相同|一致)?[。；;]?$")
_REFERS = re.compile(r"详见|詳見|参见|參見|见附件|見附件")  # 「本次招标是否需要交纳投标保证金，详见招标公告」
# a reference elsewhere, or a definition (「发包人要求：指合同文件中名为…的文件」)
_ELSEWHERE = re.compile(r"^(?:详见|詳見|见|見|参见|參見|按|依|另行|待定|指|是指|系指|係指)")


@dataclass(frozen=True)
class Field:
    """A labelled field: its label and value as printed (a wrapped value's lines joined), and the 0-based lines of
    the text it stands on."""

    label: str
    value: str
    line: int
    last_line: int
    whole: bool = True  # False: the value goes on past the lines joined (a paragraph, not a field's value)
    # True: what follows is another field, a clause or nothing, or the value ends a sentence; False: a paragraph of
    # its own may go on with it (「开标地点：上海浦成机电设备招标有限公司」, then the address as the next paragraph)
    closed: bool = True
    alias: str = ""  # another name the label's brackets give the field (「（即开标地点，下同）」 → 开标地点)
    colonless: bool = False  # a flattened table's row with no colon (「16 投标有效期 投标截止时间起 120天」)

    @property
    def names(self) -> tuple[str, ...]:
        """The label, then its alias where it has one."""
        return (self.label, self.alias) if self.alias else (self.label,)


_TOPIC = re.compile(r"(?:事项|事項|要求|说明|說明|规定|規定|条件|條件|须知|須知|注意|其他|其它)$|^(?:其他|其它)")
_ATTRIBUTE = re.compile(
    r"(?:具体|具體)?(?:金额|金額|数额|數額|额度|額度|时间|時間|日期|期限|名称|名稱|地点|地點|编号|編號|比例|方式)"
)  # 「缺陷责任期的具体期限」 is the period's
# a figure that only bounds a case (「人民币5万元以上的，应从基本账户转出」): no value of the field
_CONDITION = re.compile(r"(?:以上|以下|以内|以內|及以上|及以下|之内|之內)的")


def fields(text: str) -> Iterator[Field]:
    """Every labelled field of ``text`` (lines as printed), in order; blank values and references elsewhere
    (「详见第三章」) left out. A heading that is a label alone, with one short paragraph under it before the next
    heading (「## 二、采购人」 then 「江苏常熟…有限公司」), is a field too (:func:`_heading_field`); a field
    labelled only by an attribute under a numbered heading that is a label (「6. 开标」 then 「地点：…」) has the
    heading's name as its alias (开标地点). A label alone on its line with its value on the next
    (「履约保证金的金额：」, 「中标金额的5%…」) and a flattened table's row with no colon (「16 投标有效期
    投标截止时间起 120天」) are fields too."""
    lines = text.split("\n")
    counts = Counter(t for line in lines if (t := line.strip()))
    furniture = {t for t, n in counts.items() if n >= RUNNING_LINE_TIMES}  # a page's running header or footer
    heading, heading_at = "", -1  # the last numbered heading that is a label alone (「6. 开标」), and its line
    covered_to = -1  # the last line of the last field read (a wrapped value's lines are the field's)
    for i, raw in enumerate(lines):
        if (under := _heading_field(lines, i)) is not None:
            yield under
            continue
        if (h := _SUB_HEADING.match(raw)) is not None:
            heading, heading_at = h["label"], i
            continue
        labelled = list(_label_values(raw, above_rule=i + 1 < len(lines) and _RULE.match(lines[i + 1]) is not None))
        if not labelled and (below := _value_below(lines, i)) is not None:
            yield Field(below[0], below[1], i, i + 1, True, _closed(lines, i + 1, below[1], furniture))
            covered_to = i + 1
            continue
        if not labelled and raw.strip() and i > covered_to:
            heading_at = -1  # a line of prose or another clause ends the heading's fields
        for label, value, alias, colonless in labelled:
            if not alias and _ATTRIBUTE.fullmatch(label) and 0 < i - heading_at <= MAX_SUB_FIELDS:
                alias = heading + label  # 「6. 开标」 then 「地点：…」: the opening's place (开标地点)
            if is_blank(value) or _ELSEWHERE.match(value) or _REFERS.search(value) or _CONDITION.search(value):
                continue
            cut = False
            if len(value) > MAX_VALUE_CHARS:
                first = _FIRST_SENTENCE.match(value) if raw.lstrip().startswith("|") else None
                if first is None or len(first.group()) > MAX_VALUE_CHARS:
                    continue
                value, cut = first.group(), True  # a table's long cell: its first sentence (not whole)
            last = i
            if (code := _CODE.match(value)) is not None and _is_code(code[1]):
                value = code[1]  # 「MASJY-QT-H-2024-1593 含山县…」: a code, then the cover's words beside it
            elif not raw.lstrip().startswith("|"):
                while last - i < MAX_WRAPPED_LINES and _wraps(lines, last):
                    last += 1
                    value += lines[last].strip()
            whole = not cut and not (last - i == MAX_WRAPPED_LINES and _wraps(lines, last))
            value = value.rstrip(" \t□☐")  # an unticked option blanked after the value leaves its box
            covered_to = last
            yield Field(label, value, i, last, whole, _closed(lines, last, value, furniture), alias, colonless)


# A numbered heading that is a label alone (「6. 开标」, 「5. 投标文件递送」, 「## 四、开标」): a field under it
# labelled by an attribute only (「时间：…」, 「地点：…」) is the heading's (开标时间, 开标地点), within this many lines
# and before a line that is no field.
# Its number is marked (「6.」, 「4.1」, 「（三）」, 「五、」): a bare 「10 谈判保证金」 is a table's row.
_MARKED_NUMBER = (
    r"(?:\d{1,2}(?:\s*[.．]\s*\d{1,3}){1,3}\s*[、.．]?|\d{1,2}\s*[、.．]|\d{1,2}\s"
    r"|[（(]\s*[\d一二三四五六七八九十]{1,3}\s*[)）]|[一二三四五六七八九十]{1,3}\s*[、.．])"
)
_SUB_HEADING = re.compile(
    rf"^\s*(?:#{{1,6}}\s+)?{_MARKED_NUMBER}\s*(?P<label>[^\s\d:：，,。；;（）()、|#]{{2,{MAX_LABEL_CHARS}}})\s*$"
)
MAX_SUB_FIELDS = 4

# a heading that is a label and nothing else (「## 二、采购人」, 「## 四、发放采购文件日期」)
_HEADING_LABEL = re.compile(
    rf"^\s*#{{1,6}}\s+(?:{_NUMBER}\s*)?(?P<label>[^\s:：，,。；;（）()、|#]{{2,{MAX_LABEL_CHARS}}})\s*$"
)
MAX_HEADING_VALUE_CHARS = 60  # the one paragraph under a label's heading: a name, an address, a date, not a clause
_CLAUSE_MARK = re.compile(r"[，,；;。]")
_HEADING_GAP = 2  # blank lines at most between the heading, its paragraph and the next heading


# A label and its colon alone on a line, its value the next line (a form's 「履约保证金的金额：」 then 「中标金额的5%，
# 以万元为单位向上取整」)
_LABEL_ALONE = re.compile(
    rf"^\s*(?:{_NUMBER}\s*)?(?P<label>[^\s:：，,。；;（）()、|#]{{2,{MAX_LABEL_CHARS}}})\s*[:：]\s*$"
)


def _value_below(lines: list[str], at: int) -> tuple[str, str] | None:
    """The label of line ``at`` when it is a label alone (「履约保证金的金额：」) and the value the next line holds
    (a line that starts no field, clause, heading or box, and is no longer than a value); None otherwise."""
    m = _LABEL_ALONE.match(lines[at])
    if m is None or at + 1 >= len(lines):
        return None
    value = lines[at + 1].strip()
    if not value or len(value) > MAX_VALUE_CHARS or _NEW_CLAUSE.match(value) or value.startswith("#"):
        return None
    if _FIELD.match(value) or _ROW_FIELD.match(value) or _LABEL_ALONE.match(value) or value[0] in "□☐☑■√✓":
        return None
    if is_blank(value) or _ELSEWHERE.match(value) or _REFERS.search(value) or _CONDITION.search(value):
        return None  # 「（盖单位章）」, 「详见第三章」: no value, as on the label's own line
    return m["label"], value


def _heading_field(lines: list[str], at: int) -> Field | None:
    """The field of a heading that is only a label, whose section is one short paragraph and then the next heading
    or the text's end (a Word document's notice: 「## 二、采购人」, 「江苏常熟农村商业银行股份有限公司」, 「## 三、…」):
    the label and that paragraph, cited at the lines from the heading to the paragraph. None for any other line,
    and for a section of a table, of several paragraphs, of a long one or of a clause (a comma or a sentence's end:
    「投标截止时间为…，逾期送达的投标文件不予受理。」 is the section's text, not its value)."""
    m = _HEADING_LABEL.match(lines[at])
    if m is None:
        return None
    value_at = _next_filled(lines, at + 1)
    if value_at is None:
        return None
    value = lines[value_at].strip()
    if value.startswith(("#", "|")) or len(value) > MAX_HEADING_VALUE_CHARS or _FIELD.match(value) is not None:
        return None
    if _SENTENCE_END.search(value) or _CLAUSE_MARK.search(value):
        return None  # 「投标截止时间为…，逾期送达的…不予受理。」: a clause of the section, not its value
    after = _next_filled(lines, value_at + 1)
    if after is not None and not lines[after].lstrip().startswith("#"):
        return None
    if is_blank(value) or _ELSEWHERE.match(value) or _REFERS.search(value):
        return None
    return Field(m["label"], value, at, value_at)


def _next_filled(lines: list[str], start: int) -> int | None:
    """The first line with words from ``start``, after at most ``_HEADING_GAP`` blank lines; None past the text's
    end or a wider gap."""
    for j in range(start, min(len(lines), start + _HEADING_GAP + 1)):
        if lines[j].strip():
            return j
    return None


def slash_readings(label: str) -> tuple[str, ...]:
    """The labels one with a slash stands for (「项目实施/提供地点」 is 项目实施地点 or 提供地点, 「交货/服务地点」
    交货地点 or 服务地点): each side, and the left side joined to every tail of the right one (and every head of the
    left joined to the right); the caller keeps those that are a term. () without exactly one slash."""
    parts = re.split(r"[/／]", label)
    if len(parts) != 2 or min(len(p) for p in parts) < 2:
        return ()
    left, right = parts
    joined = [left + right[k:] for k in range(1, len(right))] + [left[:k] + right for k in range(1, len(left))]
    return (left, right, *joined)


def _is_code(token: str) -> bool:
    """A reference code (「MASJY-QT-H-2024-1593」, 「310113000241206154458-13179835」): digits with letters or a
    hyphen, six characters or more; not a year before its 年 (「2023 年 3 月」)."""
    has_mark = any(c.isalpha() for c in token) or "-" in token
    return len(token) >= 6 and any(c.isdigit() for c in token) and has_mark


def _closed(lines: list[str], last: int, value: str, furniture: set[str]) -> bool:
    """The value ends where its field does: it ends a sentence, or the next line with words (a page's running header
    or number skipped) starts a field or a clause, or there is none."""
    if _SENTENCE_END.search(value):
        return True
    after = next(
        (t for line in lines[last + 1 :] if (t := line.strip()) and t not in furniture and not t.isdigit()), ""
    )
    return not after or bool(_NEW_CLAUSE.match(after) or _FIELD.match(after) or after.startswith("#"))


def _wraps(lines: list[str], at: int) -> bool:
    """Line ``at`` was wrapped: it ends no sentence, and either ends inside brackets or is long and ends inside a
    word of characters (a code such as 「MASJY-QT-H-2024-1593」 ends its line whole), and the next line starts no
    field or clause."""
    line, after = lines[at].strip(), lines[at + 1].strip() if at + 1 < len(lines) else ""
    if _SENTENCE_END.search(line) or not after or _NEW_CLAUSE.match(after):
        return False
    open_bracket = line.count("（") + line.count("(") > line.count("）") + line.count(")")
    if not open_bracket and (len(line) < WRAPPED_LINE_CHARS or not _CJK_END.search(line)):
        return False
    return _FIELD.match(after) is None


def _label_values(line: str, above_rule: bool = False) -> Iterator[tuple[str, str, str, bool]]:
    """The (label, value, alias, colonless) of a line: a table row's label cells and the cells after them, or a
    line's label (and the other name its brackets give it) and its value up to the next label on the line (「发包人：
    （盖单位章） 勘察设计人： （盖单位章）」), or a flattened table's row with no colon (「16 投标有效期 投标截止时间起
    120天」). A table's header row gives none; ``above_rule``: the row stands above the header's rule (「|---|」)."""
    if line.lstrip().startswith("|"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if _is_header(cells) or (above_rule and _is_wide_header(cells)):
            return
        for label, value in zip(cells, cells[1:], strict=False):
            m = re.fullmatch(rf"(?:{_NUMBER}\s*)?(?P<label>[^\s:：，,。；;、]{{2,{MAX_LABEL_CHARS}}})\s*[:：]?", label)
            if m is not None and value:
                yield m["label"], value, "", False
        return
    m = _FIELD.match(line)
    if m is not None and _EMPTY_THEN_FIELD.match(m["value"]) is None:  # 「项目名称： 项目编号：」: two empty fields
        yield m["label"], _NEXT_LABEL.split(m["value"], maxsplit=1)[0], (m["alias"] or "").strip(), False
    elif m is None and (row := _ROW_FIELD.match(line)) is not None and not _FIELD.match(row["value"]):
        yield row["label"], row["value"], "", True


def _is_header(cells: list[str]) -> bool:
    """A table's header row (「| 序 号 | 项目名称 | 单 位 | 数量 | 单价 |」): three cells or more, each a few
    characters and no figure, so no cell is the value of the one before it."""
    filled = [c for c in cells if c]
    bare = [_UNIT_NOTE.sub("", c).strip() for c in filled]  # 「单价（元/人*年）」: a column's unit is no text
    short = all(len(c) <= MAX_HEADER_CELL and not any(ch.isdigit() for ch in c) for c in bare)
    return len(filled) >= 3 and short and not any(_ANSWER_CELL.match(c) for c in filled)


# The rule under a table's header row, as the Word reader writes it (「|---|---|」)
_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
MIN_WIDE_HEADER_CELLS = 5  # a row of label and value pairs has rarely three pairs
MAX_WIDE_HEADER_CELL = 12


def _is_wide_header(cells: list[str]) -> bool:
    """A header row above its rule with longer column names (「| 品目号 | 品目名称 | 采购标的 | 数量（单位） |
    技术规格、参数及要求 | 是否允许进口产品 |」): five cells or more, all filled, each a name with no figure."""
    bare = [_UNIT_NOTE.sub("", c).strip() for c in cells]
    return (
        len(cells) >= MIN_WIDE_HEADER_CELLS
        and all(0 < len(c) <= MAX_WIDE_HEADER_CELL and not any(ch.isdigit() for ch in c) for c in bare)
        and not any(_ANSWER_CELL.match(c) for c in cells)
    )


def head_of(label: str) -> str:
    """What a label names: the words after its last 的 or 之 (「发包人提供的设备清单」 names a list of equipment, not
    the purchaser), unless they are an attribute of what comes before (「投标保证金的金额」 is the bond's amount);
    "" for a label of a topic, not a value (「其他投标保证金事项」, 「报价要求」)."""
    if _TOPIC.search(label):
        return ""
    parts = re.split(r"(?<![标標目])的|之", label)  # 标的 (the subject matter) and 目的 are words, not a 的
    if len(parts) > 1 and _ATTRIBUTE.fullmatch(parts[-1]):
        return parts[-2]
    return parts[-1]


def is_blank(value: str) -> bool:
    """A form's field never filled in: only underscores, dashes, slashes, brackets or spaces, or what to fill in
    (「（盖单位章）」)."""
    return bool(_BLANK.match(value) or _PLACEHOLDER.match(value.strip()))


def referred_label(value: str) -> str:
    """The label a value refers to (「同投标文件提交截止时间」 → 投标文件提交截止时间); "" when it refers to none."""
    m = _REFERENCE.match(value.strip())
    return m["label"].strip() if m is not None else ""
