"""Who a role is, read from a data sheet's block: a line naming the role, then its 「名称：…」 a line or two below.

The national tender templates print the purchaser and the agent in the 投标人须知前附表 as a block, not as one
labelled field:

    1.1.2 招标人
    名 称：黄梅县水利和湖泊局（规划计划股）
    地 址：黄梅县人民大道682号

and a 政府采购 notice ends with 「1.采购人信息 / 名 称：… / 地 址：…」. The name's own line says only 名称, so a search
for 采购人 or 招标人 finds the heading, not the name, and the model reads neither. The system reads the block without
the LLM: a line that is a role's term alone (after a clause number; 信息 may follow), then, within
``NAME_WITHIN_LINES`` lines, a 「名称：」 line whose value is no blank (「/」, 「无」, a form's underscores). The role
is one of the concept groups (``text/concepts.py``: purchaser, agency), so 招標機關 or 采购单位 name it as well.

An invitation's first sentence names the parties another way, each with its role in brackets after it
(「苏州工业园区计算机信息中心 (招标人)，对…进行招标」, 「受…局（以下简称“采购人”）委托」): that name is read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pikelocal.text import concepts
from pikelocal.text.organisations import ORGANISATION_END

ROLES = frozenset({"purchaser", "agency"})  # the concepts (text/concepts.toml) whose names a block states
NAME_WITHIN_LINES = 2  # the 名称 line follows its role's line at once or after one line (a clause's label)
MAX_NAME_CHARS = 60
_NUMBER = re.compile(
    r"^\s*(?:\d{1,2}(?:\s*[.．、]\s*\d{1,3}){0,3}\s*[.．、]?|[（(]?[一二三四五六七八九十\d]{1,3}[)）、.．])?\s*"
)
_INFO = re.compile(r"(?:的)?(?:信息|资讯|资料)?[:：]?")  # after the role, in folded text (simplified, no spaces)
_NAME_LINE = re.compile(r"^\s*名\s*[称稱]\s*[:：]\s*(?P<name>\S.*?)\s*$")
_BLANK = re.compile(r"^[/／\\—\-_＿﹍…\s无無]*$")


@dataclass(frozen=True)
class RoleName:
    """A role's name as a block states it: the name, and the 0-based lines of ``text`` (the role's line to the
    name's) it was read from."""

    concept: str
    name: str
    first_line: int
    last_line: int


# A name with its role in brackets after it, as an invitation's first sentence introduces the parties:
# 「苏州工业园区计算机信息中心 (招标人)，对…进行招标」, 「受上海市某区教育局（以下简称“采购人”）委托」. The name
# starts a line or a clause (after 受 or 由, if any) and ends as an organisation's name does.
_ROLE_IN_BRACKETS = re.compile(
    rf"(?:^|[，,。；;：:])\s*(?P<name>[^\s，,。；;：:（）()“”\"「」]{{2,{MAX_NAME_CHARS}}}?(?:{ORGANISATION_END}))"
    r"\s*[（(]\s*(?:以下简称|以下簡稱|下称|下稱|简称|簡稱)?\s*[“\"「]?(?P<role>[^（）()“”\"「」]{2,8}?)[”\"」]?\s*[)）]",
    re.MULTILINE,
)


def role_names(text: str, wanted: frozenset[str]) -> list[RoleName]:
    """Every block of ``text`` naming one of the ``wanted`` roles (concept ids), and every name followed by its
    role in brackets, in order."""
    lines = text.split("\n")
    out: list[RoleName] = []
    for i, line in enumerate(lines):
        out.extend(_named_in_brackets(line, i, wanted))
        concept = _role_of(line)
        if concept is None or concept not in wanted:
            continue
        for j in range(i + 1, min(len(lines), i + 1 + NAME_WITHIN_LINES)):
            m = _NAME_LINE.match(lines[j])
            if m is None:
                continue
            name = m.group("name")
            if not _BLANK.match(name) and len(name) <= MAX_NAME_CHARS:
                out.append(RoleName(concept, name, i, j))
            break
    return out


_AGENT_WORD = re.compile(r"^(?:受|由|经|經)")  # 「受…委托」: on behalf of the name after it


def _named_in_brackets(line: str, at: int, wanted: frozenset[str]) -> list[RoleName]:
    """The names on one line followed by a wanted role in brackets (「…中心 (招标人)」)."""
    out = []
    for m in _ROLE_IN_BRACKETS.finditer(line):
        role = concepts.fold(m["role"])  # the role's term alone: 「（项目批准机关名称）」 is a form's hint, no role
        found = concepts.active().find(role)
        if len(found) == 1 and found[0].concept in wanted and (found[0].start, found[0].end) == (0, len(role)):
            out.append(RoleName(found[0].concept, _AGENT_WORD.sub("", m["name"]), at, at))
    return out


def _role_of(line: str) -> str | None:
    """The concept a line names when it is one term alone (after a clause number, before 信息 or a colon)."""
    number = _NUMBER.match(line)
    folded = concepts.fold(line[number.end() if number else 0 :].strip())
    if not folded:
        return None
    found = concepts.active().find(folded)
    if len(found) != 1 or found[0].start != 0:
        return None
    return found[0].concept if _INFO.fullmatch(folded[found[0].end :]) else None
