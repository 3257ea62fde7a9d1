"""Read a Word .docx into page texts: headings as Markdown heading lines, clause numbers as text, tables as Markdown.

- Headings: a paragraph whose style is a Word heading ("heading 1" …, the style's or its own outline level, or
  "Title") becomes ``#`` … ``######`` plus its text, so the splitter opens a section there.
- Numbering: Word's automatic numbers ("9.1", "(a)", "第一条", from ``numbering.xml``, set on the paragraph or on
  its style) are written as text before the paragraph (``docx_styles.py``; docx2python 3.7, tried first, writes
  "1)" for "1.1" and "--" for "第一条", so the XML is read here with the standard library); bullets become "- ".
- Tables: :func:`tables.markdown_table`; the rows marked "repeat as header row" (else the first) are the header.
  A cell merged down repeats its value in every row it covers (each row then reads alone); a cell merged across
  repeats its value in header rows, where every column needs its name, and fills the first column only elsewhere.
  A table inside a cell is flattened into that cell's text ("a / b; c / d").
- Headers and footers are kept out of the body. Their distinct lines, less page numbers, go into one short section
  at the end, "Header and footer" (a project name or tender number there is worth finding; at most
  ``HEADER_LINES_MAX`` lines). Footnotes, endnotes, comments and deleted text are left out, and so is a table of
  contents (paragraphs in the "toc N" styles): it only repeats the headings.
- Pages: where Word stored the page breaks of its last layout (``w:lastRenderedPageBreak``) they make the pages;
  else explicit breaks (page breaks, "page break before", section breaks) do; else the document is unpaged (one
  text, its citations without a page). Pages are approximate: Word's layout is not redone here.

The body is streamed (one top-level paragraph or table in memory at a time; only the text of ``w:t`` elements is
kept from it); the package is checked in ``ooxml.py`` before anything is read. Bounded: at most ``max_chars``
characters are kept, counted while the XML is read, so a single huge ``w:t`` or paragraph is cut where the limit
falls, not after it was read whole; a paragraph's pieces are joined once (a paragraph of millions of runs costs
time in proportion to its runs).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from pikelocal.ingest.read import ooxml
from pikelocal.ingest.read.docx_styles import Styles, integer, val
from pikelocal.ingest.read.ooxml import OfficeText, attr, child, local
from pikelocal.ingest.read.tables import cell_text, markdown_table
from pikelocal.text.unicode_forms import symbol_box

MAX_PAGES = 10_000  # page breaks past this many pages are ignored (with a warning)
HEADER_LINES_MAX = 10
MAX_SPAN = 64  # grid columns one cell may span, or a row skip before its first cell (Word allows 63 columns)
_RENDERED, _EXPLICIT = 1, 2  # page-break tokens among a paragraph's text pieces
_SKIP = {"del", "moveFrom", "delText", "instrText", "rPr", "pPr", "footnoteReference", "endnoteReference",
         "commentReference", "fldData", "tblPr", "tcPr", "trPr", "sectPr", "Fallback"}  # fmt: skip
# a line that is only a page number: "3", "- 3 -", "Page 3 of 9", "第 3 页 共 9 页"
_PAGE_NUMBER = re.compile(r"(?i)^\W*(?:page|第)?\s*\d+\s*(?:页|of\s*\d+|/\s*\d+)?\s*(?:共\s*\d+\s*页)?\W*$")
_HEADING_MARK = re.compile(r"^#{1,6} ")
_CHUNK = 1 << 16  # bytes of the body's XML read at a time
_IGNORED = ET.Element("ignored")  # what the body's parser is handed for the elements past the text limit


@dataclass
class _Block:
    rendered: int  # pages begun so far by Word's rendered breaks
    explicit: int  # ... and by explicit breaks
    text: str
    join: str = "\n\n"  # what goes between this block and the one before it on the same page


@dataclass
class _Out:
    max_chars: int = ooxml.MAX_CHARS
    blocks: list[_Block] = field(default_factory=list)
    rendered: int = 0
    explicit: int = 0
    chars: int = 0  # characters kept, the joins between blocks counted: the pages' text is never longer
    full: bool = False  # a block was cut at ``max_chars``: nothing more is kept

    def add(self, text: str, join: str = "\n\n") -> None:
        room = self.max_chars - self.chars - len(join)
        if len(text) > room:
            text, self.full = text[: max(room, 0)], True
        if text:
            self.blocks.append(_Block(self.rendered, self.explicit, text, join))
            self.chars += len(join) + len(text)

    def brk(self, token: int) -> None:
        self.rendered, self.explicit = self.rendered + (token == _RENDERED), self.explicit + (token == _EXPLICIT)


def read_docx(path: Path, data: bytes, max_chars: int = ooxml.MAX_CHARS) -> OfficeText:
    """The document's pages (or one unpaged text), title and warnings; a DocumentError when it cannot be read.

    At most ``max_chars`` characters are kept (with a warning when the text was cut)."""
    zf = ooxml.open_package(path, data, "Word")
    try:
        with zf:
            return _Reader(path, zf, max_chars).read()
    except MemoryError:
        raise  # the reading process's to handle: its heap may be in any state
    except Exception as exc:  # whatever the zip or XML raised: one line, never a traceback
        raise ooxml.library_error(path, "Word", exc) from None


class _Reader:
    def __init__(self, path: Path, zf: zipfile.ZipFile, max_chars: int) -> None:
        self.path, self.zf, self.max_chars = path, zf, max_chars
        self.main = ooxml.main_part(path, zf, "Word", "word/document.xml")
        self.rels = ooxml.relationships(path, zf, self.main)
        self.styles = Styles(self._part("/styles"), self._part("/numbering"))
        self.title: str | None = None

    def _part(self, kind: str) -> ET.Element | None:
        name = next((t for k, t in self.rels.values() if k.endswith(kind)), None)
        return ooxml.parse_part(self.path, self.zf, name) if name else None

    def read(self) -> OfficeText:
        out = _Out(self.max_chars)
        body = _Body(self.max_chars)
        parser = ET.XMLParser(target=body)
        with self.zf.open(self.main) as head:
            ooxml.check_prolog(self.path, self.main, ooxml.chunks(head))
        with self.zf.open(self.main) as stream:
            while not (out.full or body.cut) and (chunk := stream.read(_CHUNK)):
                parser.feed(chunk)
                self._blocks(body, out)
            if body.cut:  # the text limit fell inside the block being read: what it holds so far is kept
                body.close_open()
                self._blocks(body, out)
            elif not out.full:
                parser.close()
                self._blocks(body, out)
        warnings: list[str] = []
        if out.full or body.cut:
            warnings.append(f"{self.path}: text cut at {self.max_chars:,} characters; the rest is left out")
        if any(b.text.strip() for b in out.blocks) and (extra := self._headers_footers()):
            out.add("# Header and footer\n\n" + "\n\n".join(extra))
        return _pages(self.path, out, ooxml.core_title(self.path, self.zf) or self.title, warnings)

    def _blocks(self, body: _Body, out: _Out) -> None:
        """Read the body's finished top-level blocks into ``out`` and let them go."""
        for el in body.take():
            if not out.full:
                self._block(el, out)

    # --- blocks ------------------------------------------------------------------------------------------

    def _block(self, el: ET.Element, out: _Out) -> None:
        name = local(el.tag)
        if name == "p":
            self._paragraph(el, out)
        elif name == "tbl":
            self._table(el, out)
        elif name in ("sdt", "sdtContent", "customXml", "AlternateContent", "Choice", "txbxContent"):
            for c in list(el):
                self._block(c, out)

    def _paragraph(self, p: ET.Element, out: _Out) -> None:
        ppr = child(p, "pPr")
        form = self.styles.paragraph(ppr)
        if form.toc:
            return  # a table of contents: the headings again, with page numbers
        if ppr is not None and child(ppr, "pageBreakBefore") is not None and val(ppr, "pageBreakBefore") != "0":
            out.brk(_EXPLICIT)
        pieces: list[str | int] = []
        boxes: list[ET.Element] = []
        _runs(p, pieces, boxes)
        parts: list[tuple[int | None, list[str]]] = [(None, [])]  # (page break before it, its pieces)
        for piece in pieces:
            if isinstance(piece, int):
                parts.append((piece, []))
            else:
                parts[-1][1].append(piece)  # joined once below: a paragraph may hold millions of runs
        first = True
        for i, (token, texts) in enumerate(parts):
            if token is not None:
                out.brk(token)
            text = "".join(texts)
            text = text.rstrip() if i == len(parts) - 1 else text
            if not text.strip():
                continue
            if first:  # a page break inside a paragraph: on one page, the rest continues it as it was
                text = " ".join(text.split()) if form.level else text.lstrip()
                if form.title and self.title is None:
                    self.title = text
                text = ("#" * min(form.level, 6) + " " if form.level else "") + form.label + text
            out.add(text, "\n\n" if first else "")
            first = False
        for box in boxes:
            self._block(box, out)
        if ppr is not None and (sect := child(ppr, "sectPr")) is not None and val(sect, "type") != "continuous":
            out.brk(_EXPLICIT)  # a section break that starts a new page

    # --- tables ------------------------------------------------------------------------------------------

    def _table(self, tbl: ET.Element, out: _Out) -> None:
        rows: list[tuple[list[str], list[int]]] = []  # cells, page breaks in the row
        above: dict[int, str] = {}  # vertically merged cells: the text of the cell where the merge starts
        header_rows, all_header = 0, True
        for tr in _children(tbl, "tr"):
            trpr = child(tr, "trPr")
            all_header = all_header and trpr is not None and child(trpr, "tblHeader") is not None
            header_rows += all_header
            repeat = all_header or not rows
            col = min(integer(val(trpr, "gridBefore")) or 0, MAX_SPAN) if trpr is not None else 0
            cells, breaks = [""] * col, [t for t in _tokens(tr)]
            for tc in _children(tr, "tc"):
                tcpr = child(tc, "tcPr")
                span = max(1, min(integer(val(tcpr, "gridSpan")) or 1, MAX_SPAN)) if tcpr is not None else 1
                merge = child(tcpr, "vMerge") if tcpr is not None else None
                if merge is not None and attr(merge, "val") in (None, "continue"):
                    text = above.get(col, "")
                else:
                    text = self._cell(tc)
                    above[col] = text
                cells += [text] + [text if repeat else ""] * (span - 1)
                col += span
            rows.append((cells, breaks))
        kept = [(cells, brk) for cells, brk in rows if any(cell_text(c) for c in cells)]
        if not kept:
            return
        if len(kept) == 1 and sum(1 for c in kept[0][0] if c) == 1:  # a one-cell table is a framed paragraph
            out.add(next(c for c in kept[0][0] if c))
            return
        n_head = max(1, min(header_rows, len(kept)))
        lines = markdown_table([cells for cells, _ in kept], header_rows=n_head).split("\n")
        for token in (t for _, brk in kept[:n_head] for t in brk):
            out.brk(token)
        out.add("\n".join(lines[:2]))
        for line, (_, brk) in zip(lines[2:], kept[n_head:], strict=True):
            for token in brk:
                out.brk(token)
            out.add(line, "\n")

    def _cell(self, tc: ET.Element) -> str:
        """A cell's text on one line: its paragraphs (numbered as Word numbers them), nested tables flattened."""
        parts: list[str] = []
        for el in tc:
            if local(el.tag) == "tbl":
                rows = [" / ".join(c for c in (self._cell(tc2) for tc2 in _children(tr, "tc")) if c)
                        for tr in _children(el, "tr")]  # fmt: skip
                parts.append("; ".join(r for r in rows if r))
            elif local(el.tag) in ("p", "sdt", "sdtContent", "customXml"):
                sub = _Out()
                self._block(el, sub)
                parts += [_HEADING_MARK.sub("", b.text) for b in sub.blocks]  # no heading inside a cell
        return " ".join(p for p in parts if p.strip())

    # --- headers and footers ---------------------------------------------------------------------------

    def _headers_footers(self) -> list[str]:
        names = sorted((k.endswith("/footer"), t) for k, t in self.rels.values() if k.endswith(("/header", "/footer")))
        saved, self.styles = self.styles, self.styles.fresh()  # their lists count apart
        lines: dict[str, None] = {}
        try:
            for _, name in names:
                root = ooxml.parse_part(self.path, self.zf, name)
                sub = _Out()
                for el in list(root) if root is not None else ():
                    self._block(el, sub)
                for block in sub.blocks:
                    for line in _HEADING_MARK.sub("", block.text).splitlines():
                        line = " ".join(line.split())
                        if line and not _PAGE_NUMBER.match(line) and any(ch.isalpha() for ch in line):
                            lines.setdefault(line[:200], None)
        finally:
            self.styles = saved
        return list(lines)[:HEADER_LINES_MAX]


class _Body:
    """The target of the body's XML parser: builds the tree of each top-level block of ``w:body`` and hands it out
    once it ends (:meth:`take`). Only the text of ``w:t`` elements is kept (all the reader uses), and only its
    first ``max_chars`` characters: past them ``cut`` is set and the rest of the text is dropped as it arrives,
    so neither one huge ``w:t`` nor a long run of them is held whole."""

    def __init__(self, max_chars: int) -> None:
        self.tree = ET.TreeBuilder()
        self.open: list[tuple[str, ET.Element]] = []  # the elements begun and not yet ended, outermost first
        self.done: list[ET.Element] = []  # top-level blocks of the body that ended, not yet taken
        self.room = max_chars
        self.in_text = False
        self.cut = False

    def start(self, tag: str, attrib: dict[str, str]) -> ET.Element:
        if self.cut:  # past the limit: what follows in the chunk being parsed is not built
            return _IGNORED
        el = self.tree.start(tag, attrib)
        self.open.append((tag, el))
        self.in_text = tag.endswith("}t") or tag == "t"
        return el

    def data(self, text: str) -> None:
        if not self.in_text or self.cut:
            return
        if len(text) > self.room:
            text, self.cut = text[: self.room], True
        self.room -= len(text)
        if text:
            self.tree.data(text)

    def end(self, tag: str) -> ET.Element:
        if self.cut:
            return _IGNORED
        el = self.tree.end(tag)
        self.open.pop()
        self.in_text = False
        if len(self.open) == 2 and local(self.open[1][0]) == "body":  # a block of the body ended
            self.done.append(el)
        return el

    def close(self) -> ET.Element:
        return self.tree.close()

    def close_open(self) -> None:
        """End the elements left open inside a block of the body where the text limit fell."""
        self.cut = False  # let the ends through
        while len(self.open) > 2:
            self.end(self.open[-1][0])
        self.cut = True

    def take(self) -> list[ET.Element]:
        """The blocks that ended since the last call, each let go by the body (streamed: read, then dropped)."""
        done, self.done = self.done, []
        if done and len(self.open) >= 2:
            body = self.open[1][1]
            for el in done:
                body.remove(el)
        return done


def _runs(el: ET.Element, out: list[str | int], boxes: list[ET.Element]) -> None:
    """A paragraph's text pieces in order, page-break tokens among them; text boxes go to ``boxes``."""
    for c in el:
        name = local(c.tag)
        if name in _SKIP:
            continue
        if name == "t":
            out.append(c.text or "")
        elif name in ("tab", "ptab"):
            out.append("\t")
        elif name in ("br", "cr"):
            kind = attr(c, "type")
            out.append(_EXPLICIT if kind == "page" else " " if kind == "column" else "\n")
        elif name == "lastRenderedPageBreak":
            out.append(_RENDERED)
        elif name == "noBreakHyphen":
            out.append("-")
        elif name == "sym":  # a symbol font's character: a form's box as the box it draws, else nothing
            raw = attr(c, "char") or ""
            code = int(raw, 16) if re.fullmatch(r"[0-9A-Fa-f]{1,5}", raw) else 0
            font = (attr(c, "font") or "").lower()
            if 0xF000 <= code <= 0xF0FF or (code < 0x100 and "wingdings" in font):
                out.append(symbol_box(code, font))  # the font's own code: a box as the box it draws, else nothing
            else:  # a character of a text font (☑ as U+2611) is itself
                out.append(chr(code) if 32 <= code < 0xE000 or 0xF900 <= code < 0x110000 else "")
        elif name == "txbxContent":
            boxes.append(c)
        elif name == "AlternateContent":
            if (choice := child(c, "Choice")) is not None:
                _runs(choice, out, boxes)
        elif name == "r" and (font := _symbol_font(c)):  # text typed in a symbol font: its boxes as boxes
            pieces: list[str | int] = []
            _runs(c, pieces, boxes)
            out.extend(_as_boxes(p, font) if isinstance(p, str) else p for p in pieces)
        elif name != "p":  # runs, hyperlinks, insertions, fields, content controls …
            _runs(c, out, boxes)


def _symbol_font(run: ET.Element) -> str:
    """The Wingdings font a run's Latin text is typed in ("R" in Wingdings 2 draws ☑), or ""."""
    props = child(run, "rPr")
    fonts = child(props, "rFonts") if props is not None else None
    for key in ("ascii", "hAnsi"):
        name = (attr(fonts, key) or "") if fonts is not None else ""
        if name.lower().startswith("wingdings"):
            return name
    return ""


def _as_boxes(text: str, font: str) -> str:
    """A symbol font's text: each of its characters as the box it draws, or nothing; other characters kept."""
    return "".join(
        symbol_box(ord(ch), font) if 0x20 < ord(ch) < 0x100 or 0xF000 <= ord(ch) <= 0xF0FF else ch for ch in text
    )


def _tokens(el: ET.Element) -> list[int]:
    """The page-break tokens anywhere inside ``el`` (a table row), text boxes aside."""
    pieces: list[str | int] = []
    for p in el.iter():
        if local(p.tag) == "p":
            _runs(p, pieces, [])
    return [t for t in pieces if isinstance(t, int)]


def _children(el: ET.Element, name: str) -> Iterable[ET.Element]:
    """``el``'s children named ``name``, looking through content controls and custom XML that wrap them."""
    for c in el:
        if local(c.tag) == name:
            yield c
        elif local(c.tag) in ("sdt", "sdtContent", "customXml"):
            yield from _children(c, name)


def _pages(path: Path, out: _Out, title: str | None, warnings: list[str]) -> OfficeText:
    """Blocks onto pages: by rendered breaks where Word stored any, else by explicit ones, else one unpaged text."""
    mode = "rendered" if out.rendered else "explicit" if out.explicit else None
    pages: list[list[str]] = [[]]  # each page's pieces, joined once: a page may hold a million blocks
    for block in out.blocks:
        page = min(block.rendered if mode == "rendered" else block.explicit if mode else 0, MAX_PAGES - 1)
        while len(pages) <= page:
            pages.append([])
        if pages[page]:
            pages[page].append(block.join)
        pages[page].append(block.text)
    if max(out.rendered, out.explicit) >= MAX_PAGES:
        warnings.append(f"{path}: over {MAX_PAGES:,} pages; the text past page {MAX_PAGES:,} is counted on it")
    return OfficeText(tuple("".join(page) for page in pages), mode is not None, title, tuple(warnings))
