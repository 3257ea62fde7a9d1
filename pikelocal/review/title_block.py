"""The title block: a tender's name and purchaser printed as the heading of its first page, not as a labelled field.

「臺北市某區公所「社區長照據點服務委託案」需求說明書」 names the purchaser, the project and the kind of document in one
line; 「115年觀光e學院建置維運案」 above 「需求說明書」 does the same over two. A checklist item asking for the
project's name or purchaser finds no 「標案名稱：」 sentence to quote in such a document, and the model says "not
stated" with the answer printed at the top of page 1. So the system reads the first lines of each document's first
page, without the LLM:

- a name in corner brackets (「…」, 『…』) on a heading line is the project, and the words before it, when they end
  as an agency does (局, 處, 署, 公所, 委員會, 公司 …), the purchaser;
- a heading line of the purchaser, a dash and the project (「台灣自來水公司 - AI 智能客服系統建置案」, an RFP's
  running header) names both;
- else a heading line that ends with the kind of document (需求說明書, 投標須知, 招标文件, 契約書 …; a line of its
  own, the line above it joined) is the project's name followed by that kind, or the purchaser's where the words
  before the kind end as an agency does (「臺北大眾捷運股份有限公司投標須知」: no project named).

A template's cover (示范文本, 範本, 樣稿) names no project. Each reading keeps its page and lines for the citation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pikelocal.text.organisations import ORGANISATION_END

HEAD_LINES = 8  # the first non-empty lines of page 1 that can be its title block
MAX_LINE_CHARS = 80  # a longer line is body text
WRAP_LINES = 2  # a title wrapped over at most three lines: the one read and two above it
MAX_NAME_CHARS = 60
_GAP = re.compile(r"(?<=[\u3400-\u9fff])[ \t\u3000]+(?=[\u3400-\u9fff])")
_DOC_KINDS = (
    "建議書徵求文件", "服務建議書徵求文件", "建議書徵求須知", "服務建議書徵求須知", "需求說明書", "需求规格书",
    "需求說明", "投標須知", "投标须知", "評選須知",
    "评选须知", "評審須知", "招標文件", "招标文件", "採購文件", "采购文件", "磋商文件", "谈判文件", "竞争性磋商文件",
    "招標公告", "招标公告", "採購契約書", "採購契約", "契約書", "采购合同", "合同书", "合同", "工作說明書",
    "委託服務說明書", "邀標書", "詢價單",
)  # fmt: skip
_KIND = "|".join(sorted(map(re.escape, _DOC_KINDS), key=len, reverse=True))
_TEMPLATE = re.compile(r"示范文本|示範文本|范本|範本|樣稿|样稿|格式|模板|template", re.IGNORECASE)
# The bracketed name ends the line, or only the kind of document follows it: 「依「政府採購法」第22條…辦理」 is a
# sentence that quotes a law, not a title.
_BRACKETED = re.compile(
    rf"^(?P<org>[^「『」』]{{0,40}}?)[「『](?P<name>[^」』]{{4,60}})[」』]\s*(?:[（(]?(?:{_KIND})[）)]?)?\s*$"
)
_TRAILING_KIND = re.compile(rf"^(?P<name>.{{4,60}}?)[（(]?(?:{_KIND})[）)]?\s*$")
_KIND_ONLY = re.compile(rf"^[（(]?(?:{_KIND})[）)]?(?:[（(][A-Za-z]{{2,6}}[）)])?$")  # 「…須知（RFP）」
# A header naming the purchaser, a dash and the project (「台灣自來水公司 - AI 智能客服系統建置案」)
_ORG_DASH_NAME = re.compile(
    rf"^(?P<org>[^\s:：，,。；;]{{2,30}}?(?:{ORGANISATION_END}))\s*[-–—]\s*(?P<name>\S.{{3,59}})$"
)
_AGENCY_END = re.compile(rf"(?:{ORGANISATION_END})$")
_SENTENCE = re.compile(r"[。，；;]|, ")  # a line with a sentence's punctuation is body text, not a title
_LABEL = re.compile(r"[:：]")
_PAGE_MARK = re.compile(
    r"\s\d{1,3}$"
)  # a running header's page number  # "標的名稱：…" is a labelled field, read by the ordinary answer, not a title


@dataclass(frozen=True)
class TitleBlock:
    """What a document's first page's heading says: the project's name and the purchaser (either empty: not said),
    the line (1-based, on page 1) and text it was read from."""

    name: str
    purchaser: str
    line_start: int
    line_end: int
    text: str


def title_block(first_page: str) -> TitleBlock | None:
    """The title block of a document whose first page's text is ``first_page``; None when its heading names no
    project (a template's cover, a page that starts with body text)."""
    lines = [(n, _GAP.sub("", ln.strip())) for n, ln in enumerate(first_page.split("\n"), start=1) if ln.strip()]
    head = lines[:HEAD_LINES]
    for i, (number, line) in enumerate(head):
        if len(line) > MAX_LINE_CHARS or _TEMPLATE.search(line):
            continue
        if (m := _BRACKETED.match(line)) is not None:
            org = m["org"].strip()
            purchaser = org if _AGENCY_END.search(org) else ""
            return TitleBlock(m["name"].strip(), purchaser, number, number, line)
        if _LABEL.search(line):
            continue
        if (m := _ORG_DASH_NAME.match(line)) is not None and not _SENTENCE.search(line):
            return TitleBlock(m["name"].strip(), m["org"], number, number, line)
        if (m := _TRAILING_KIND.match(line)) is not None and not _KIND_ONLY.match(line):
            before = m["name"].strip(" 　-–—")
            if _AGENCY_END.search(before):  # 「臺北大眾捷運股份有限公司投標須知」: the purchaser's document, no project
                return TitleBlock("", before, number, number, line)
            first, name = _wrapped(head[:i], before)
            return TitleBlock(name, "", first or number, number, _lines(head, first or number, number))
        if _KIND_ONLY.match(line) and i > 0:  # the kind on a line of its own: the name is the line above
            above_no, above = head[i - 1]
            if _title_line(above) and len(above) >= 4:
                first, name = _wrapped(head[: i - 1], above)
                return TitleBlock(name, "", first or above_no, number, _lines(head, first or above_no, number))
    return None


def _title_line(line: str) -> bool:
    """A line that can be part of a title: no label, no sentence, no template's word, not too long."""
    sentence = _SENTENCE.search(line) is not None
    return not _LABEL.search(line) and not _TEMPLATE.search(line) and not sentence and len(line) <= 60


def _wrapped(above: list[tuple[int, str]], name: str) -> tuple[int | None, str]:
    """The name with the title lines right above it that it continues (a cover's title wrapped over two or three
    lines: 「榆林高新控股集团安全环」「保管家项目（二次）」「竞争性磋商文件」), up to ``WRAP_LINES`` of them and
    ``MAX_NAME_CHARS`` in all; a line that ends as an agency does is the purchaser's, not the name's, and one that
    ends with a page's number is a running header (「本文件係為廠商以電子檔案所列印 1」). The first line's number
    (None: the name alone)."""
    first: int | None = None
    for number, line in reversed(above[-WRAP_LINES:]):
        if not _title_line(line) or _AGENCY_END.search(line) or _PAGE_MARK.search(line):
            break
        if len(line) + len(name) > MAX_NAME_CHARS:
            break
        name, first = line + name, number
    return first, name


def _lines(head: list[tuple[int, str]], first: int, last: int) -> str:
    return "\n".join(line for number, line in head if first <= number <= last)
