"""A score's composition, read from a document without the model: the criteria a bid is scored on and the points
of each, as tenders print them.

- Lines of a label and its points (the national templates' 「2.2.1 分值构成（总分100分）」 then 「商务部分：20分」,
  「（1）投标报价：26.25分；」; a range 「商务报价分 0~10」; points in brackets 「技术部分（70分）」).
- A table's rows, the points in the last cell (「| 5 | 經費合理性 | 工作項目經費概算… | 20 |」, then
  「| 合計 | | | 100 |」).
- A criterion of several lines: a numbered heading (「一、廠商主要經營」 wrapped over four short lines), its
  description, and its points alone on a line (「10 分」), as a 評選委員評分表 prints them.
- A table's rows as a PDF's text gives them, under a header naming the criteria's and the points' columns
  (「序号 评分项目 分值 评分内容及标准」, 「评分项目 分值区间 评分办法」): each row a serial number (the next one), the
  criterion's name and its bare points or range (「1 价格分 40」, 「3 业绩 10 投标人提供…」, 「商务报价分 0~10 最低…」),
  a name wrapped over short lines with the points alone on a later line (「2 荣誉、」 「奖项」 「5」).
- A table's rows whose points stand in the column its header names, not the last (header 「| 序号 | 评分因素 | 分值 |
  评分标准 |」, row 「| 1 | 服务方案 | 32分 | 1.根据…」); and a text table's numbered row with its points in brackets
  (「1 价格 （30分）」), its rules on the lines below.
- A cell opening with a criterion's name and its points in brackets, as a platform prints it (「| 技术部分 |
  技术响应情况 (36.0分)，（等次分值选择：…） | …」), also after its part's merged cell (「| 商务部分 （25分） | 业绩
  （13分） |」); not a part's heading row (「| 一、价格部分（50分） | | |」) nor a group's cell merged over rows that
  have points of their own.

- A sentence stating the total and then each part's points (「总分设置100分，其中商务部分30分、技术（服务）部分30分、
  价格部分40分」): its parts, on its line or wrapped onto the next, when they add up to that total (the parts'
  weights, never the criteria: ``composition(text, sentences=False)`` leaves them out).

A run of such criteria, one after another, whose points add up to the total the document states near them
(「总分101.25分」, 「合計 100」), else to 100, is a composition. The first in the document is the one read: the
score's outline comes before its detailed table. Each criterion keeps where it stands, for the citation.

The small reader reads such tables poorly: the score's weights and criteria were missed on most review sheets with
the table in the sources sent (BENCHMARKS "A score's composition read by the system").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from pikelocal.text import concepts

# A criterion's next line stands at most this many lines after the previous one ends: further, a new table (a PDF's
# table wraps a criterion's rules over 48 lines: 北京大学's 技术部分).
MAX_GAP_LINES = 60
# A label longer than this is a sentence, not a criterion's name.
MAX_LABEL_CHARS = 30
MIN_LABEL_CHARS = 2
# At most this many short lines under a numbered heading continue its label (a narrow column wraps it).
MAX_LABEL_LINES = 4
_SHORT_LINE = 12  # a continuation of a wrapped label is at most this long

_NUMBER = r"\d{1,3}(?:\.\d{1,2})?"
# points ending a line: 20 分, （7 分）, 0~10, 0～25分, (20分)
_POINTS_END = re.compile(
    rf"[（(]?\s*(?:0\s*[~～\-－—]\s*)?(?P<pts>{_NUMBER})\s*(?:分|points?)?\s*[)）]?\s*[；;。，,]?\s*$", re.IGNORECASE
)
_POINTS_ONLY = re.compile(
    rf"^\s*[（(]?\s*(?:0\s*[~～\-－—]\s*)?(?P<pts>{_NUMBER})\s*(?:分|points?)\s*[)）]?\s*[；;。]?\s*$", re.IGNORECASE
)
# a numbered line: 一、 （1） (一) 1. 1、 2.2.1 (the clause numbers of a data sheet)
_ORDINAL = re.compile(
    r"^\s*(?:(?P<zh>[一二三四五六七八九十]{1,3})\s*[、.．]|[（(]\s*(?P<paren>[\d一二三四五六七八九十]{1,3})\s*[)）]"
    r"|(?P<clause>\d+(?:\.\d+){1,3})(?!\d)|(?P<digit>\d{1,2})\s*[、.．](?!\d))\s*"
)
# The score's total as a line states it (「总分100分」, 「合計 100」); not 满分, which is one criterion's maximum
# (「价格评分满分为20分」, 「本项满分 40 分」).
_TOTAL = re.compile(rf"(?:总分|總分|合计|合計|总计|總計|total)[^\d\n]{{0,12}}?(?P<pts>{_NUMBER})", re.IGNORECASE)
_TOTAL_WORD = re.compile(r"总分|總分|合计|合計|总计|總計|满分|滿分|小计|小計|total", re.IGNORECASE)
# words of a scoring rule, not of a criterion's name: 「以上得1分」, 「至多扣10分」, 「未達70分者」
# (得 only where it is not 得分: 「价格得分」 names a criterion, 「…证书的得」 5 分 scores one)
_RULE_WORDS = re.compile(r"得(?!分)|扣|加|以上|以下|未达|未達|不超过|不超過|至多|最多|最高|及格|每|者|[，,。；;]")
_MARKED = re.compile(r"分|points?|[（(~～\-－—]", re.IGNORECASE)  # what makes a number at a line's end points
_DESCRIPTION = re.compile(r"^\s*[-•●※*]")  # a bullet of a criterion's description


@dataclass(frozen=True)
class Criterion:
    """One criterion: its name as printed, its points, and the lines it stands on (0-based, inclusive)."""

    label: str
    points: Decimal
    first_line: int
    last_line: int


@dataclass(frozen=True)
class Composition:
    """The criteria of a score, in the document's order, and the total they add up to."""

    criteria: tuple[Criterion, ...]
    total: Decimal

    @property
    def first_line(self) -> int:
        return self.criteria[0].first_line

    @property
    def last_line(self) -> int:
        return self.criteria[-1].last_line


def composition(text: str, *, sentences: bool = True) -> Composition | None:
    """The first score composition of ``text`` (a document's text, lines as printed), or None. ``sentences``: False
    leaves out a sentence's parts (「其中商务部分30分、技术部分30分…」), which weigh the parts but name no criteria."""
    lines = text.split("\n")
    by_line: dict[int, list[Criterion]] = {}
    for c in _criteria(lines, sentences=sentences):
        by_line.setdefault(c.first_line, []).append(c)
    for c in _column_rows(lines):
        by_line.setdefault(c.first_line, [c])
    found = [c for i in sorted(by_line) for c in by_line[i]]
    for run in _runs(found):
        total = _stated_total(lines, run[0].first_line, run[-1].last_line)
        read = _adding_up(run, total)
        if read is not None:
            return read
    return None


def _criteria(lines: list[str], *, sentences: bool = True) -> Iterator[Criterion]:
    """Every criterion of the text, in order: a table row, a line of a label and its points, or a numbered heading
    whose points stand alone on a later line."""
    heading: tuple[str, int, str] | None = None  # an open numbered heading: its label, line and numbering style
    joined_to = -1  # the line a sentence's parts were read up to (a sentence wrapped onto the next line)
    columns: tuple[int, int] | None = None  # the criteria's and the points' columns the table's header names
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line or i <= joined_to:
            continue
        if line.startswith("|"):
            heading = None
            if (named := _header_columns(line)) is not None:
                columns = named
                continue
            row = _table_row(line, i)
            if row is None and columns is not None:
                row = _column_cell_row(line, columns, i)
            if row is None:
                row = _bracketed_cell_row(line, i)
            if row is not None:
                yield row
            continue
        columns = None
        if sentences and (parts := _sentence_parts(lines, i)):
            heading, joined_to = None, parts[-1].last_line
            yield from parts
            continue
        ordinal = _ORDINAL.match(line)
        style = _style(ordinal)
        if (single := _single_line(line, ordinal, i)) is not None:
            heading = None
            yield single
            continue
        if (only := _POINTS_ONLY.match(line)) is not None:
            if heading is not None:
                yield Criterion(heading[0], Decimal(only["pts"]), heading[1], i)
                heading = None
            continue
        if ordinal is not None and (heading is None or style == heading[2]) and not _TOTAL_WORD.search(line):
            label = _label(line[ordinal.end() :], lines, i)
            heading = (label, i, style) if label else None


# A header of a scoring table's columns: the criteria's (评分项目, 评分因素 …) and the points' (分值, 分值区间, 配分 …).
_CRITERIA_COLUMN = re.compile(
    r"评分项目|评分因素|评审因素|评审项目|评分项|评分内容|評分項目|評選項目|評分項|評審項目|评价项目"
)
_POINTS_COLUMN = re.compile(r"分值|分数|分數|配分|权重|權重|标准分|標準分|满分|滿分")
MAX_HEADER_CELL = 8  # a header's cell is a column's name (「评分因素」, 「分值」), not a row's text
# Rows of such a table stand at most this many lines below its header.
MAX_TABLE_LINES = 240
_BARE = rf"(?:0\s*[~～\-－—]\s*)?(?P<pts>{_NUMBER})(?:\s*分)?"
_ROW = re.compile(
    rf"^\s*(?:(?P<n>\d{{1,2}})\s+)?(?P<label>[^\s\d，,。；;：:]{{2,16}}(?:\s[^\s\d，,。；;：:]{{2,8}})?)\s+{_BARE}(?:\s+(?!分)\S.*)?$"
)
_ROW_START = re.compile(r"^\s*(?P<n>\d{1,2})\s+(?P<label>[^\s\d，,。；;：:]{2,16})\s*$")
# a numbered row whose points stand in brackets after its name, its description on the lines below (「1 价格 （30分）」)
_ROW_BRACKETED = re.compile(
    rf"^\s*(?P<n>\d{{1,2}})\s+(?P<label>[^\s\d，,。；;：:（(]{{2,16}})\s*[（(]\s*(?P<pts>{_NUMBER})\s*分\s*[)）]\s*$"
)
_BARE_ONLY = re.compile(rf"^\s*{_BARE}\s*$")


def _column_rows(lines: list[str]) -> Iterator[Criterion]:
    """The rows of every scoring table printed as text under a header naming its criteria's and points' columns.
    Numbered rows must number on from the row before (1, 2, 3 …), so a description's line is no row."""
    i = 0
    while i < len(lines):
        header = lines[i]
        if not (_CRITERIA_COLUMN.search(header) and _POINTS_COLUMN.search(header)) or len(header.strip()) > 40:
            i += 1
            continue
        serial = 0
        j = i + 1
        while j < min(len(lines), i + 1 + MAX_TABLE_LINES):
            line = lines[j]
            row = _ROW.match(line) or _ROW_BRACKETED.match(line)
            if row is not None and _row_label(row["label"]) and _next_serial(row["n"], serial):
                serial = int(row["n"]) if row["n"] else serial
                yield Criterion(_row_label(row["label"]), Decimal(row["pts"]), j, j)
                j += 1
                continue
            start = _ROW_START.match(line)
            if start is not None and _next_serial(start["n"], serial):
                wrapped = _wrapped_row(lines, j, start["label"])
                if wrapped is not None:
                    serial = int(start["n"])
                    yield wrapped
                    j = wrapped.last_line + 1
                    continue
            j += 1
        i = j


def _next_serial(number: str | None, serial: int) -> bool:
    return number is None or int(number) == serial + 1


def _row_label(label: str) -> str:
    """A criterion's name from a row's first words: no rule's words, no total, two characters at least."""
    label = label.strip()
    if _RULE_WORDS.search(label) or _TOTAL_WORD.search(label) or not _has_words(label) or label.endswith("的"):
        return ""  # 「措施全面的 5 分」: a description's clause, not a name
    return label


def _wrapped_row(lines: list[str], at: int, first: str) -> Criterion | None:
    """A numbered row whose name wraps over short lines (「2 荣誉、」 「奖项」) with the points alone on the next."""
    parts = [first.strip()]
    for k in range(at + 1, min(len(lines), at + 1 + MAX_LABEL_LINES)):
        text = lines[k].strip()
        if (only := _BARE_ONLY.match(text)) is not None:
            label = _row_label("".join(parts).rstrip("、，,"))
            return Criterion(label, Decimal(only["pts"]), at, k) if label else None
        if not text or len(text) > _SHORT_LINE or _ORDINAL.match(text):
            return None
        parts.append(text)
    return None


def _style(ordinal: re.Match[str] | None) -> str:
    if ordinal is None:
        return ""
    return next(name for name in ("zh", "paren", "clause", "digit") if ordinal[name] is not None)


def _table_row(line: str, at: int) -> Criterion | None:
    """A table row whose last cell is points and one of whose cells names the criterion (the first cell with a
    letter or character that is not a number)."""
    cells = [c for c in _raw_cells(line) if c]
    if len(cells) < 2 or set("".join(cells)) <= set("-: "):
        return None
    points = _POINTS_END.fullmatch(cells[-1]) if not _TOTAL_WORD.search(cells[0]) else None
    label = next((c for c in cells[:-1] if not _ORDINAL_ONLY.fullmatch(c)), "")
    if points is None or not label or len(label) > MAX_LABEL_CHARS or _RULE_WORDS.search(label):
        return None
    return Criterion(label, Decimal(points["pts"]), at, at)


_ORDINAL_ONLY = re.compile(r"[（(]?[\d一二三四五六七八九十]{1,3}[)）、.．]?")


# A cell opening with a criterion's name and its points in brackets, as a platform's scoring table prints it
# (「| 技术部分 | 技术响应情况 (36.0分)，（等次分值选择：0.0;3.0;…） | 根据供应商对… |」).
_BRACKETED = re.compile(
    rf"^(?P<label>[^\s(（|]{{2,{MAX_LABEL_CHARS}}})\s*[（(]\s*(?P<pts>{_NUMBER})\s*分\s*[)）](?:$|[，,；;。\s])"
)


def _bracketed_cell_row(line: str, at: int) -> Criterion | None:
    """A row one of whose cells (one only, or the second of two, after its part's) is a criterion's name with its
    points in brackets. Not a part's heading (「| 一、价格部分（50分） |  |  |」: the rows under it are its
    criteria), nor a group's cell beside a cell of points (「| 企业管理 （10分） | 管理制度 | 5 | …」: the group
    merged over its rows)."""
    cells = _raw_cells(line)
    found = [m for c in cells if (m := _BRACKETED.match(c)) is not None]
    # 「| 商务部分 （25分） | 业绩 （13分） | …」: the part, merged over its rows, then the criterion
    if len(found) == 2:
        found = found[1:]
    if len(found) != 1 or _ORDINAL.match(found[0].group()) is not None:
        return None
    if any(_POINTS_END.fullmatch(c) for c in cells if c and c != found[0].string):
        return None
    label = found[0]["label"]  # its brackets end it: a comma inside names two things (「安全、文明施工，环保措施」)
    if _RULE_WORDS.search(re.sub("[，,]", "、", label)) or _TOTAL_WORD.search(label) or not _has_words(label):
        return None
    return Criterion(label, Decimal(found[0]["pts"]), at, at)


def _raw_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _header_columns(line: str) -> tuple[int, int] | None:
    """A table's header naming the criteria's column and the points' column (「| 序号 | 评分因素 | 分值 | 评分标准 |」):
    their places, the criteria's first; None for any other row."""
    cells = _raw_cells(line)
    if any(len(c) > MAX_HEADER_CELL for c in cells):
        return None
    named = next((k for k, c in enumerate(cells) if _CRITERIA_COLUMN.search(c)), None)
    if named is None:
        return None
    # after the criteria's (「评审因素及权重」 names the criteria, its weight in brackets; 「分值」 is the points')
    points = next((k for k, c in enumerate(cells) if k > named and _POINTS_COLUMN.search(c)), None)
    return (named, points) if points is not None else None


def _column_cell_row(line: str, columns: tuple[int, int], at: int) -> Criterion | None:
    """A row under such a header whose points stand in the points' column, not the last (「| 1 | 服务方案 | 32分 |
    1.根据供应商…」: the description follows)."""
    cells = _raw_cells(line)
    named, points_at = columns
    if len(cells) <= points_at or _TOTAL_WORD.search(cells[named]):
        return None
    points = _POINTS_END.fullmatch(cells[points_at])
    label = cells[named]
    if points is None or not _MARKED.search(points.group(0)) and not cells[points_at].strip().isdigit():
        return None
    if len(label) > MAX_LABEL_CHARS or _RULE_WORDS.search(label) or not _has_words(label):
        return None
    return Criterion(label, Decimal(points["pts"]), at, at)


def _single_line(line: str, ordinal: re.Match[str] | None, at: int) -> Criterion | None:
    """「商务部分：20分」, 「（1）投标报价： 26.25 分；」, 「六、價格 標價組成內容合理性 10 分」 (the label is the first
    word; the rest describes it), 「技术部分（70分）」."""
    points = _POINTS_END.search(line)
    if points is None or points.start() == 0 or _TOTAL_WORD.search(line):
        return None
    head = line[ordinal.end() if ordinal else 0 : points.start()].strip(" \t:：")
    if not _MARKED.search(points.group(0)):  # a bare number ends many a line: only points, brackets or a range count
        return None
    label = head.split()[0] if head.split() else ""
    label = re.split(r"\d+[.、．]", label)[0].strip(" \t:：")
    if not label or len(label) > MAX_LABEL_CHARS or _RULE_WORDS.search(label) or not _has_words(label):
        return None
    return Criterion(label, Decimal(points["pts"]), at, at)


# One part of a sentence's composition, after the total or a separator: 「其中商务部分30分」, 「、价格部分40分」.
_SENTENCE_PART = re.compile(
    rf"(?:^|[，,、；;]|其中|其中：)\s*(?P<label>[^\s\d，,、；;：:。（(]{{2,10}}(?:[（(][^\s\d）)]{{1,6}}[)）])?"
    rf"[^\s\d，,、；;：:。（(]{{0,4}})\s*(?:为|為|占|：|:)?\s*(?P<pts>{_NUMBER})\s*分"
)


def _sentence_parts(lines: list[str], at: int) -> list[Criterion]:
    """The parts of a sentence stating the score's total and then each part's points (「总分设置100分，其中商务部分
    30分、技术（服务）部分30分、价格部分40分」), on line ``at`` or wrapped onto the next one (「…总分为 100分，其中技术
    得分占」 「60 分，商务得分占 30 分，价格得分占 10 分。」): two parts at least, adding up to the total; else none."""
    line = lines[at].strip()
    if _TOTAL.search(line) is None:
        return []
    parts = _parts_adding_up(line, at, at)
    if not parts and at + 1 < len(lines):
        parts = _parts_adding_up(line + lines[at + 1].strip(), at, at + 1)
    return parts


def _parts_adding_up(text: str, first: int, last: int) -> list[Criterion]:
    total = _TOTAL.search(text)
    if total is None:
        return []
    parts = []
    for m in _SENTENCE_PART.finditer(text, total.end()):
        label = re.sub(r"^其中|[为為占]$", "", m["label"].strip())
        if _RULE_WORDS.search(label) or _TOTAL_WORD.search(label) or not _has_words(label):
            return []
        parts.append(Criterion(label, Decimal(m["pts"]), first, last))
    if len(parts) < 2 or sum((c.points for c in parts), Decimal(0)) != Decimal(total["pts"]):
        return []
    return parts


def _label(first: str, lines: list[str], at: int) -> str:
    """A numbered heading's label: the rest of its line, and the short lines under it that continue it (a narrow
    column wraps 「廠商主要經營項目及公司資訊專業員工人力規模」 over four lines), up to a numbered line or a bullet."""
    parts = [first.strip()]
    for line in lines[at + 1 : at + 1 + MAX_LABEL_LINES]:
        text = line.strip()
        if not text or len(text) > _SHORT_LINE or _ORDINAL.match(text) or _DESCRIPTION.match(text):
            break
        if _POINTS_ONLY.match(text):
            break
        parts.append(text)
    label = "".join(parts).split()[0] if "".join(parts).split() else ""
    if len(label) > MAX_LABEL_CHARS or _RULE_WORDS.search(label) or not _has_words(label):
        return ""
    return label


def _has_words(label: str) -> bool:
    """A criterion's name: two characters at least, not a measure alone (「分（70分）」: the end of a wrapped
    技术部分)."""
    return len(label) >= MIN_LABEL_CHARS and any(c.isalpha() for c in label) and label not in ("分", "points")


def _runs(found: list[Criterion]) -> Iterator[list[Criterion]]:
    """The criteria in runs of neighbours (each within ``MAX_GAP_LINES`` of the one before)."""
    run: list[Criterion] = []
    for c in found:
        if run and c.first_line - run[-1].last_line > MAX_GAP_LINES:
            yield run
            run = []
        run.append(c)
    if run:
        yield run


def _stated_total(lines: list[str], first: int, last: int) -> Decimal | None:
    """The total a line near the run states (「分值构成（总分100分）」 above it, 「合計 100」 below it), or None."""
    for line in lines[max(0, first - 6) : last + 4]:
        if (m := _TOTAL.search(line)) is not None:
            try:
                return Decimal(m["pts"])
            except InvalidOperation:
                continue
    return None


def _adding_up(run: list[Criterion], total: Decimal | None) -> Composition | None:
    """The first stretch of ``run`` whose points add up to ``total`` (else to 100): at least two criteria when the
    document states the total, three when it does not."""
    goal = total if total is not None else Decimal(100)
    least = 2 if total is not None else 3
    for i in range(len(run)):
        sum_ = Decimal(0)
        for j in range(i, len(run)):
            sum_ += run[j].points
            if sum_ == goal and j - i + 1 >= least:
                return Composition(tuple(run[i : j + 1]), goal)
            if sum_ > goal:
                break
    return None


# A score's price row is often titled 價格 alone (「六、價格 標價組成內容合理性 10 分」): a word too broad for the
# concept groups (it stands in most sentences about money), but a criterion's whole name here.
_PRICE_ALONE = re.compile(r"^(?:价格|價格|price)(?:分|部分|得分|评分|評分|项|項)?$", re.IGNORECASE)
# and its technical part 技术 alone, as a sentence's parts name it (「其中商务12分，技术28分,价格60分」)
_TECHNICAL_ALONE = re.compile(r"^(?:技术|技術|technical)(?:分|部分|得分|评分|評分|项|項)?$", re.IGNORECASE)
PRICE, TECHNICAL = "price_score", "technical_score"
_ASIDE = re.compile(r"[（(][^）)]{1,6}[)）]")  # 「技术（服务）部分」 is 技术部分


def is_about(criterion: Criterion, concept: str) -> bool:
    """The criterion is the score's price (``PRICE``: its name names the price score or the bid price, or is 價格
    alone) or its technical part (``TECHNICAL``)."""
    named = concepts.active().concepts_in(_ASIDE.sub("", criterion.label))
    if concept == PRICE:
        return bool(named & {PRICE, "bid_price"}) or _PRICE_ALONE.match(criterion.label.strip()) is not None
    return concept in named or (concept == TECHNICAL and _TECHNICAL_ALONE.match(criterion.label.strip()) is not None)
