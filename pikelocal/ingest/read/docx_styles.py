"""What Word shows before a paragraph's text: its heading level and its automatic number ("9.1", "(a)", "第一条").

A heading is a paragraph in a Word heading style ("heading 1" …, or "Title"), or with an outline level of its own
or through its style's ``basedOn`` chain. Word stores no numbers in a paragraph, only a list (``numId``) and a
level (``ilvl``), directly or through its style; ``numbering.xml`` says how each level is written (``lvlText``
such as ``%1.%2`` or ``第%1条``, a format such as ``decimal`` or ``chineseCounting``, a start value).
:class:`Numbering` keeps the counters as the paragraphs come in document order. (docx2python 3.7 renders only
the current level and no Chinese formats: "1)" for "1.1", "a)" for "(a)", "--" for "第一条"; hence this module.)

Counters are kept per abstract list, as Word does for lists that share one, except that a list with a
``startOverride`` counts on its own. A deeper level restarts after a shallower one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

from pikelocal.ingest.read.ooxml import attr, child, local

_HEADING_NAME = re.compile(r"^heading\s*([1-9])$")

_CN_DIGITS = "零一二三四五六七八九"
_CN_LEGAL = "零壹贰叁肆伍陆柒捌玖"
_TIANGAN = "甲乙丙丁戊己庚辛壬癸"
_DIZHI = "子丑寅卯辰巳午未申酉戌亥"
_PLACEHOLDER = re.compile(r"%([1-9])")
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))  # fmt: skip


@dataclass
class _Level:
    fmt: str = "decimal"
    text: str = ""
    start: int = 1
    suffix: str = " "  # what follows the number: a tab and a space both read as one space here
    legal: bool = False  # isLgl: every level's number written in decimal ("1.1" under "第一章")
    style: str | None = None  # the paragraph style tied to this level (pStyle), for headings numbered by style


@dataclass
class _List:
    abstract: str
    overrides: dict[int, _Level] = field(default_factory=dict)
    restarts: bool = False  # a startOverride: this list counts on its own


def _levels(el: ET.Element) -> dict[int, _Level]:
    levels: dict[int, _Level] = {}
    for lvl in (c for c in el if local(c.tag) == "lvl"):
        try:
            ilvl = int(attr(lvl, "ilvl") or "0")
            start_el = child(lvl, "start")
            start = int(attr(start_el, "val") or "1") if start_el is not None else 1
        except ValueError:
            continue
        level = _Level(start=start)
        for c in lvl:
            name, val = local(c.tag), attr(c, "val")
            if name == "numFmt" and val:
                level.fmt = val
            elif name == "lvlText":
                level.text = val or ""
            elif name == "suff":
                level.suffix = "" if val == "nothing" else " "
            elif name == "isLgl":
                level.legal = val not in ("0", "false")
            elif name == "pStyle":
                level.style = val
        levels[ilvl] = level
    return levels


class Numbering:
    """The numbering definitions of one document and its counters."""

    def __init__(self, root: ET.Element | None) -> None:
        self._abstract: dict[str, dict[int, _Level]] = {}
        self._lists: dict[str, _List] = {}
        self._counts: dict[str, dict[int, int]] = {}
        for el in root if root is not None else ():
            name, aid = local(el.tag), attr(el, "abstractNumId")
            if name == "abstractNum" and aid is not None:
                self._abstract[aid] = _levels(el)
            elif name == "num" and (nid := attr(el, "numId")) is not None:
                ref = child(el, "abstractNumId")
                entry = _List(attr(ref, "val") or "" if ref is not None else "")
                for over in (c for c in el if local(c.tag) == "lvlOverride"):
                    ilvl = integer(attr(over, "ilvl")) or 0
                    entry.overrides.update(_levels(over))  # a whole level redefined for this list
                    if (start := child(over, "startOverride")) is not None:
                        entry.restarts = True
                        base = entry.overrides.get(ilvl) or self._level(entry, ilvl) or _Level()
                        val = attr(start, "val") or "1"
                        entry.overrides[ilvl] = _copy(base, start=int(val) if val.isdigit() else 1)
                self._lists[nid] = entry

    def _level(self, entry: _List, ilvl: int) -> _Level | None:
        return entry.overrides.get(ilvl) or self._abstract.get(entry.abstract, {}).get(ilvl)

    def level_of_style(self, num_id: str, style: str) -> int | None:
        """The level a list ties to paragraph style ``style`` (headings numbered through their style)."""
        entry = self._lists.get(num_id)
        levels = self._abstract.get(entry.abstract, {}) if entry else {}
        return next((i for i, lvl in sorted(levels.items()) if lvl.style == style), None)

    def label(self, num_id: str, ilvl: int) -> str:
        """The number of the next paragraph in list ``num_id`` at level ``ilvl`` as Word writes it, with the
        space after it ("1.1 ", "第一条 ", "- " for a bullet); "" when the list or level is not defined."""
        entry = self._lists.get(num_id)
        if entry is None or num_id == "0" or (level := self._level(entry, ilvl)) is None:
            return ""
        key = num_id if entry.restarts else "a" + entry.abstract
        counts = self._counts.setdefault(key, {})
        counts[ilvl] = counts.get(ilvl, level.start - 1) + 1
        for deeper in [k for k in counts if k > ilvl]:
            del counts[deeper]
        if level.fmt == "bullet":
            return "- "
        if level.fmt == "none":
            return _PLACEHOLDER.sub("", level.text).strip() + level.suffix if level.text.strip() else ""

        def number(match: re.Match[str]) -> str:
            k = int(match.group(1)) - 1
            lvl = self._level(entry, k) or _Level()
            value = counts.get(k, lvl.start)
            return format_number(value, "decimal" if level.legal and k != ilvl else lvl.fmt)

        text = _PLACEHOLDER.sub(number, level.text)
        return text + level.suffix if text.strip() else ""


def _copy(level: _Level, *, start: int) -> _Level:
    return _Level(level.fmt, level.text, start, level.suffix, level.legal, level.style)


def format_number(n: int, fmt: str) -> str:
    """``n`` in Word's number format ``fmt``; an unknown format is written in decimal."""
    if fmt in ("lowerLetter", "upperLetter") and 0 < n <= 26 * 10:  # past "zzzzzzzzzz": decimal
        letters = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)  # Word's a … z, aa … zz
        return letters if fmt == "lowerLetter" else letters.upper()
    if fmt in ("lowerRoman", "upperRoman") and 0 < n < 4000:
        out, rest = "", n
        for value, digits in _ROMAN:
            while rest >= value:
                out, rest = out + digits, rest - value
        return out if fmt == "lowerRoman" else out.upper()
    if fmt in ("chineseCounting", "chineseCountingThousand", "japaneseCounting", "taiwaneseCounting") and n >= 0:
        return chinese_number(n)
    if fmt == "chineseLegalSimplified" and n >= 0:
        return chinese_number(n, _CN_LEGAL, "拾佰仟")
    if fmt == "ideographTraditional" and 0 < n <= len(_TIANGAN):
        return _TIANGAN[n - 1]
    if fmt == "ideographZodiac" and 0 < n <= len(_DIZHI):
        return _DIZHI[n - 1]
    if fmt.startswith("decimalEnclosedCircle") and 0 < n <= 20:
        return chr(0x2460 + n - 1)  # ① … ⑳
    if fmt.startswith("decimalFullWidth") and n >= 0:
        return "".join(chr(0xFF10 + int(d)) for d in str(n))
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def chinese_number(n: int, digits: str = _CN_DIGITS, units: str = "十百千") -> str:
    """1 → 一, 10 → 十, 11 → 十一, 20 → 二十, 105 → 一百零五 (below 10,000; larger numbers in decimal)."""
    if n == 0:
        return digits[0]
    if n >= 10_000:
        return str(n)
    out, zero = "", False
    for power, unit in ((1000, units[2]), (100, units[1]), (10, units[0]), (1, "")):
        d = n // power % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out += digits[0]
            zero = False
        out += ("" if d == 1 and power == 10 and not out and digits is _CN_DIGITS else digits[d]) + unit
    return out


@dataclass(frozen=True)
class Paragraph:
    level: int  # heading level (1 = "heading 1"), 0 for body text
    label: str  # its automatic number as Word writes it, with the space after it; "" when unnumbered
    toc: bool  # in a table-of-contents style
    title: bool  # in the "Title" style


@dataclass
class _Style:
    name: str = ""  # lower case, as Word names built-in styles ("heading 1", "toc 2", "title")
    based_on: str | None = None
    outline: int | None = None
    num: tuple[str | None, int | None] | None = None  # (numId, ilvl) of numbering set on the style


class Styles:
    """A document's paragraph styles and numbering: :meth:`paragraph` tells each paragraph's level and number,
    in document order (it counts)."""

    def __init__(self, styles: ET.Element | None, numbering: ET.Element | None) -> None:
        self._styles: dict[str, _Style] = {}
        self._default: str | None = None
        self._numbering_xml = numbering
        self.numbering = Numbering(numbering)
        for el in styles if styles is not None else ():
            sid = attr(el, "styleId")
            if local(el.tag) != "style" or sid is None or attr(el, "type") not in (None, "paragraph"):
                continue
            ppr = child(el, "pPr")
            num = child(ppr, "numPr") if ppr is not None else None
            self._styles[sid] = _Style(
                name=(val(el, "name") or "").strip().lower(),
                based_on=val(el, "basedOn"),
                outline=integer(val(ppr, "outlineLvl")),
                num=(val(num, "numId"), integer(val(num, "ilvl"))) if num is not None else None,
            )
            if attr(el, "default") in ("1", "true"):
                self._default = sid

    def fresh(self) -> Styles:
        """The same styles with counters of their own (headers and footers number apart from the body)."""
        other = Styles(None, None)
        other._styles, other._default = self._styles, self._default
        other.numbering = Numbering(self._numbering_xml)
        return other

    def paragraph(self, ppr: ET.Element | None) -> Paragraph:
        style_id = val(ppr, "pStyle") or self._default
        chain = list(self._chain(style_id))
        name = chain[0].name if chain else ""
        if name.startswith("toc"):
            return Paragraph(0, "", True, False)  # not counted: Word's contents list is not numbered
        return Paragraph(self._level(ppr, chain), self._label(ppr, style_id, chain), False, name == "title")

    def _chain(self, style_id: str | None) -> Iterator[_Style]:
        seen: set[str] = set()
        while style_id and style_id not in seen and style_id in self._styles and len(seen) < 32:
            seen.add(style_id)
            yield self._styles[style_id]
            style_id = self._styles[style_id].based_on

    def _label(self, ppr: ET.Element | None, style_id: str | None, chain: list[_Style]) -> str:
        direct = child(ppr, "numPr") if ppr is not None else None
        num_id, ilvl = (val(direct, "numId"), integer(val(direct, "ilvl"))) if direct is not None else (None, None)
        styled = next((s.num for s in chain if s.num is not None), None)
        if num_id is None and styled is not None:
            num_id, ilvl = styled[0], styled[1] if ilvl is None else ilvl
            if ilvl is None and num_id and style_id:
                ilvl = self.numbering.level_of_style(num_id, style_id)
        return self.numbering.label(num_id, ilvl or 0) if num_id else ""

    def _level(self, ppr: ET.Element | None, chain: list[_Style]) -> int:
        own = integer(val(ppr, "outlineLvl"))
        if own is not None:
            return own + 1 if own < 9 else 0
        for style in chain:
            if style.outline is not None:
                return style.outline + 1 if style.outline < 9 else 0
            if match := _HEADING_NAME.match(style.name):
                return int(match.group(1))
            if style.name == "title":
                return 1
        return 0


def val(el: ET.Element | None, name: str) -> str | None:
    """The ``w:val`` of ``el``'s child ``name`` (``<w:pStyle w:val="Heading1"/>``)."""
    found = child(el, name) if el is not None else None
    return attr(found, "val") if found is not None else None


def integer(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None
