"""A KB's review rows and their checklist, fuzzed together (hypothesis) with what a hostile document, checklist or
note may hold (formula starts, HTML, ``|``, backslashes, control characters, bidi marks, non-characters), stored
in a real KB and exported in every format; each report read back as its reader's tool reads it:

- CSV with the csv module: every line has every column, no cell starts a formula, each text is there;
- DOCX with python-docx (it parses the XML: the file is valid), each table row with its cells;
- HTML with the standard library's parser: only the tags and attributes the report writes, links that land,
  each table row with its cells, each text there as written;
- Markdown with a small table parser (a row's cells split on every ``|`` not escaped by a backslash): the right
  cell count in every row, and no tag but the ``<br>`` the report writes.

The fast tier runs a few examples; the slow tier runs many."""

from __future__ import annotations

import csv
import itertools
import os
import re
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import docx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.review import REVIEW_MARKS, REVIEW_VERDICTS, VALUE_KINDS, Located, ReviewQuote, ReviewRow, Value
from pikelocal.embed.fake import HashEncoder
from pikelocal.review.escape import clean_text, csv_cell, markdown_text, xml_text
from pikelocal.review.export import CSV_COLUMNS, MARKDOWN_COLUMNS, ROW_COLUMNS
from pikelocal.review.stored import row_json
from pikelocal.store.store import Store
from tests.support.search_corpus import make_pdf

FRAGMENTS = (
    "=", "+", "-", "@", "\t", "\r", "\n", " ", "|", "\\", "\\|", "`", "*", "_", "[", "]", "(", ")", "&", "&amp;",
    "<", ">", "<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "<br>", "=HYPERLINK(\"http://x\")",
    "+SUM(1+1)", "@cmd", "-2+3", "=cmd|' /C calc'!A0", "\x00", "\x07", "\x1b[31m", "\x7f", "\x9b", "\u2028",
    "\u202e", "\ufffe", "\uffff", "\U0001f600", "押標金", "＝1+1", "  ", '"', "'",
)  # fmt: skip
FORMULA_START = tuple("=+-@\t\r＝＋－＠")
HTML_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "code", "table", "tr", "th",
             "td", "br", "small", "blockquote", "a", "pre", "span"}  # fmt: skip
HTML_ATTRIBUTES = {"charset", "href", "id", "class"}
# What no report holds: what XML forbids, DEL, C1 controls, bidi marks.
UNSAFE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
PAGE_LINES = ("Notice of tender.", "The budget is 5000 USD.", "Bids close on 1 June.")

text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=6).map("".join)
# A text the checklist reader keeps: it starts with a character that is not blank (the reader strips blanks).
leading = st.sampled_from(list("=+-@|<[`\\&a押") + ["＝"])
kept_text = st.tuples(leading, text).map(lambda t: t[0] + t[1])


# Checklist items (as TOML texts), the stored row of each, and marks (item, mark, note).
Case = tuple[list[dict[str, str]], list[ReviewRow], list[tuple[str, str, str]]]


@st.composite
def quote(draw: st.DrawFn) -> ReviewQuote:
    line = draw(st.integers(1, 2))
    where = Located(1, draw(text), draw(st.sampled_from((1, None))), line, line + draw(st.integers(0, 1)))
    return ReviewQuote(draw(text), where)


@st.composite
def rows_and_checklist(draw: st.DrawFn) -> Case:
    """Checklist items (as TOML texts), the stored row of each, and marks (item, mark, note)."""
    n = draw(st.integers(1, 4))
    items, rows = [], []
    for i in range(n):
        item = {"id": f"i{i}", "label": draw(kept_text), "section": draw(st.one_of(st.just(""), kept_text)),
                "kind": draw(st.sampled_from(VALUE_KINDS)), "question": draw(kept_text)}  # fmt: skip
        quotes = tuple(draw(st.lists(quote(), max_size=3)))
        values = tuple(Value(item["kind"], draw(text), draw(text)) for _ in range(draw(st.integers(0, 2))))
        rows.append(
            ReviewRow(
                checklist="", item_id=item["id"], label=item["label"], section=item["section"], kind=item["kind"],
                question=item["question"], answer=draw(text), verdict=draw(st.sampled_from(REVIEW_VERDICTS)),
                values=values, quotes=quotes, answered_at=draw(text),
            )
        )  # fmt: skip
        items.append(item)
    marks = draw(st.lists(st.tuples(st.sampled_from([i["id"] for i in items]), st.sampled_from(REVIEW_MARKS), text),
                          max_size=3))  # fmt: skip
    return items, rows, marks


def toml_string(value: str) -> str:
    """A TOML basic string holding ``value`` exactly (controls and DEL as \\u escapes)."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@dataclass
class Kb:
    path: Path
    names: itertools.count[int]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Kb:
    root = tmp_path_factory.mktemp("fuzz-export")
    (root / "tender.pdf").write_bytes(make_pdf([PAGE_LINES]))
    path = root / "k.kb"
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert knowledge_base.add([root / "tender.pdf"]).ingest.count("ingested") == 1
    return Kb(path, itertools.count())


def store_review(
    kb: Kb, folder: Path, case: tuple[list[dict[str, str]], list[ReviewRow], list[tuple[str, str, str]]]
) -> Path:
    """The checklist written as a TOML file, its rows and marks stored in the KB; the checklist's path."""
    items, rows, marks = case
    name = f"fuzz{next(kb.names)}"
    toml = [f"name = {toml_string(name)}", f"title = {toml_string(items[0]['label'])}"]
    for item in items:
        toml += ["", "[[items]]"] + [f"{key if key != 'question' else 'question.en'} = {toml_string(v)}"
                                     for key, v in item.items() if v]  # fmt: skip
    checklist = folder / f"{name}.toml"
    checklist.write_text("\n".join(toml) + "\n", encoding="utf-8")
    enc = HashEncoder()
    with Store.open(kb.path, encoder_id=enc.model_id, dim=enc.dim) as store:
        for row in rows:
            store.reviews.save_result(name, row.item_id, "fuzz", row_json(row))
        for item_id, mark, note in marks:
            store.reviews.add_mark(name, item_id, mark, note)
    return checklist


def unescaped_cells(row: str) -> list[str]:
    """A Markdown table row's cells: split on every | that no backslash escapes (an even run of backslashes before
    it escapes only themselves)."""
    cells, cell, i = [], "", 0
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row):
            cell += row[i : i + 2]
            i += 2
            continue
        if row[i] == "|":
            cells.append(cell)
            cell = ""
        else:
            cell += row[i]
        i += 1
    cells.append(cell)
    return cells[1:-1]  # the text before the first | and after the last one is no cell


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.cells_per_row: list[int] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self.cells_per_row.append(0)
        elif tag in ("td", "th"):
            self.cells_per_row[-1] += 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def check_exports(kb: Kb, case: Case) -> None:
    items, rows, marks = case
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        checklist = store_review(kb, folder, case)
        with api.open_kb(kb.path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
            reports = {fmt: knowledge_base.export_review(str(checklist), folder / f"r.{fmt}")
                       for fmt in ("csv", "md", "html", "docx")}  # fmt: skip
        assert sorted(p.name for p in folder.iterdir()) == sorted([checklist.name, "r.csv", "r.md", "r.html", "r.docx"])
        mode = stat.S_IMODE(os.stat(kb.path).st_mode)
        assert all(stat.S_IMODE(p.stat().st_mode) == mode for p in reports.values())
        check_csv(reports["csv"], rows)
        check_markdown(reports["md"], rows, marks)
        check_html(reports["html"], rows, marks)
        check_docx(reports["docx"], rows, marks)


def check_csv(path: Path, rows: Sequence[ReviewRow]) -> None:
    with path.open(encoding="utf-8", newline="") as fh:
        lines = list(csv.reader(fh))
    assert tuple(lines[0]) == CSV_COLUMNS
    assert len(lines) - 1 == sum(max(1, len(r.quotes)) for r in rows)
    for line in lines[1:]:
        assert len(line) == len(CSV_COLUMNS)
        assert not [cell for cell in line if cell.startswith(FORMULA_START)], line
        assert not [cell for cell in line if cell.lstrip(" \t\r\n").startswith(FORMULA_START)], line
    quotes = [line[CSV_COLUMNS.index("quote")] for line in lines[1:]]
    for r in rows:
        for q in r.quotes:
            assert csv_cell(q.text) in quotes  # each quote there, only prefixed (and cleaned)


def check_markdown(path: Path, rows: Sequence[ReviewRow], marks: Sequence[object]) -> None:
    text = path.read_text(encoding="utf-8")
    table_rows = [line for line in text.splitlines() if line.startswith("|")]
    widths = [len(unescaped_cells(line)) for line in table_rows]
    items = [w for w in widths if w == len(MARKDOWN_COLUMNS)]
    assert all(w in (len(MARKDOWN_COLUMNS), 4) for w in widths), table_rows
    assert len(items) == 2 * len({r.section for r in rows}) + len(rows)  # heading and rule per section, then rows
    assert "<" not in text.replace("<br>", "")
    found = _Html()
    found.feed(text)
    assert {tag for tag, _ in found.tags} <= {"br"}
    assert not re.search(UNSAFE, text)
    for r in rows:
        assert markdown_text(r.label) in text


def check_html(path: Path, rows: Sequence[ReviewRow], marks: Sequence[object]) -> None:
    text = path.read_text(encoding="utf-8")
    found = _Html()
    found.feed(text)
    assert {tag for tag, _ in found.tags} <= HTML_TAGS, {tag for tag, _ in found.tags}
    assert {name for _, attrs in found.tags for name in attrs} <= HTML_ATTRIBUTES
    ids = {attrs["id"] for _, attrs in found.tags if attrs.get("id")}
    hrefs = [str(attrs["href"]) for _, attrs in found.tags if "href" in attrs]
    assert all(h.startswith("#") and h[1:] in ids for h in hrefs)
    assert all(n in (len(ROW_COLUMNS), 4) for n in found.cells_per_row), found.cells_per_row
    assert found.cells_per_row.count(len(ROW_COLUMNS)) == len({r.section for r in rows}) + len(rows)
    body = "".join(found.text)
    for r in rows:
        assert as_read(r.label) in body
        for q in r.quotes:
            assert as_read(q.text) in body


def as_read(value: str) -> str:
    """``value`` as a reader of the text file gets it: cleaned, its line ends (CR, CR LF) read as newlines."""
    return clean_text(value).replace("\r\n", "\n").replace("\r", "\n")


def check_docx(path: Path, rows: Sequence[ReviewRow], marks: Sequence[object]) -> None:
    document = docx.Document(str(path))  # parses every part: the file is well-formed XML
    widths = [len(row.cells) for table in document.tables for row in table.rows]
    assert all(w in (len(ROW_COLUMNS), 4) for w in widths)
    assert widths.count(len(ROW_COLUMNS)) == len({r.section for r in rows}) + len(rows)
    labels = [row.cells[0].text for table in document.tables for row in table.rows]
    for r in rows:
        assert as_read(r.label) in labels, (r.label, labels)


FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                HealthCheck.function_scoped_fixture])  # fmt: skip
LONG = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                HealthCheck.function_scoped_fixture])  # fmt: skip


@FAST
@given(case=rows_and_checklist())
def test_every_export_of_fuzzed_rows_reads_back_safe(kb: Kb, case: Case) -> None:
    check_exports(kb, case)


@pytest.mark.slow
@LONG
@given(case=rows_and_checklist())
def test_every_export_of_fuzzed_rows_reads_back_safe_long(kb: Kb, case: Case) -> None:
    check_exports(kb, case)


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(text, st.text(), st.text(st.characters(categories=["Cs", "Cc"]))))
def test_each_escaper_keeps_its_format(value: str) -> None:
    assert not csv_cell(value).startswith(FORMULA_START)
    assert csv_cell(value) in (clean_text(value), "'" + clean_text(value))
    md = markdown_text(value)
    assert "<" not in md and "\n" not in md and len(unescaped_cells(f"| {md} |")) == 1
    assert not re.search(UNSAFE, xml_text(value)) and not re.search(UNSAFE, md)


@pytest.mark.parametrize("line_end", ["\r\n", "\r", "\n"])
def test_a_line_end_in_a_docx_cell_reads_back_as_one_newline(tmp_path: Path, line_end: str) -> None:
    """Found by the long fuzz: python-docx makes a line break of every CR and every LF, so a CR LF read as two."""
    import docx

    document = docx.Document()
    document.add_table(rows=1, cols=1).rows[0].cells[0].text = xml_text(f"={line_end}x")
    document.save(str(tmp_path / "t.docx"))
    read = docx.Document(str(tmp_path / "t.docx")).tables[0].rows[0].cells[0].text
    assert read == "=\nx"
