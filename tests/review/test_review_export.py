"""Exports of a review read back as their users' tools read them: the DOCX with python-docx, the CSV with the csv
module, the HTML with an HTML parser (every quote's link lands on its page's text; no external asset), and the
Markdown table; all written from the stored rows with no model loaded."""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import docx
import pytest

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from tests.support.search_corpus import make_pdf

RFP_PAGES = (
    ("Request for proposals: road works.", "Scope of the works is set out in Part 2."),
    (
        "Bids must be submitted before the closing date of 15 December 2025.",
        "The bid security is USD 50,000 in the form of a bank guarantee.",
    ),
)
RULES_PAGES = (("Evaluation rules.", "The closing date for bids is 18 December 2025.", "Late bids are rejected."),)
CHECKLIST = """name = "mini-en"
title = "Mini RFP checklist"

[[items]]
id = "closing"
label = "Closing date"
section = "Dates"
kind = "date"
question.en = "What is the closing date for bids?"
hints = ["closing date"]

[[items]]
id = "security"
label = "Bid security"
section = "Money"
kind = "amount"
question.en = "How much is the bid security?"
hints = ["bid security"]
"""
ANSWERS = {"closing date": ("closing date of", "15 December 2025"), "bid security?": ("bid security is", "USD 50,000")}
_NUMBER = re.compile(r"^\[\d+\]\s*")


def quote_first(messages: Sequence[Message], _params: GenParams) -> str:
    prompt = messages[-1].content
    for asked, (term, answer) in ANSWERS.items():
        if asked in prompt.rsplit("Question:", 1)[-1]:
            line = next((ln for ln in prompt.splitlines() if term in ln), None)
            if line is not None:
                return f"Quote: {_NUMBER.sub('', line).strip()}\nAnswer: {answer}"
    return "Quote: none\nAnswer: The documents do not state this."


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Settings]:
    root = tmp_path_factory.mktemp("export")
    settings = load_settings(environ={})
    docs = root / "docs"
    docs.mkdir()
    (docs / "rfp.pdf").write_bytes(make_pdf(RFP_PAGES))
    (docs / "rules.pdf").write_bytes(make_pdf(RULES_PAGES))
    checklist = root / "mini-en.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    path = root / "t.kb"
    llm = FakeLLM({"answer-quote": quote_first})
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
        report = knowledge_base.review(api.ReviewRequest(str(checklist)))
        knowledge_base.review_mark(str(checklist), "closing", "to_check", "two dates")
    rows = {r.item_id: r for r in report.rows}
    assert rows["closing"].verdict == "conflicting" and rows["security"].verdict == "found"
    return path, str(checklist), settings


def export(reviewed: tuple[Path, str, Settings], tmp_path: Path, name: str) -> Path:
    path, checklist, settings = reviewed
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:  # no LLM: one would be an error
        return knowledge_base.export_review(checklist, tmp_path / name)


def test_the_docx_reads_back_with_each_quote_its_citation_and_the_mark(
    reviewed: tuple[Path, str, Settings], tmp_path: Path
) -> None:
    document = docx.Document(str(export(reviewed, tmp_path, "report.docx")))
    cells = [[c.text for c in row.cells] for table in document.tables for row in table.rows]
    closing = next(r for r in cells if r[0] == "Closing date")
    assert closing[2] == "CONFLICT"
    assert "15 December 2025" in closing[3] and "18 December 2025" in closing[3]
    assert "rfp, p. 2, line 1" in closing[3].replace("Rfp", "rfp") or "p. 2, line 1" in closing[3]
    assert closing[4] == "to check\ntwo dates"
    assert any(r[1:3] == ["closing", "to check"] for r in cells)  # the audit trail's row


def test_the_csv_has_one_line_per_quote(reviewed: tuple[Path, str, Settings], tmp_path: Path) -> None:
    with export(reviewed, tmp_path, "report.csv").open(encoding="utf-8", newline="") as fh:
        lines = list(csv.DictReader(fh))
    closing = [ln for ln in lines if ln["item"] == "closing"]
    assert len(closing) == 2 and {ln["page"] for ln in closing} == {"1", "2"}
    assert {ln["value"] for ln in closing} == {"2025-12-15 / 2025-12-18"}
    assert closing[0]["mark"] == "to_check" and closing[0]["note"] == "two dates"
    (security,) = [ln for ln in lines if ln["item"] == "security"]
    assert security["verdict"] == "found" and "USD 50,000" in security["quote"]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("href"):
            self.hrefs.append(str(a["href"]))
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if a.get("src") or (tag == "link"):
            self.external.append(tag)


def test_the_html_is_self_contained_and_each_quote_links_to_its_page(
    reviewed: tuple[Path, str, Settings], tmp_path: Path
) -> None:
    text = export(reviewed, tmp_path, "report.html").read_text(encoding="utf-8")
    links = _Links()
    links.feed(text)
    assert links.external == [] and "http" not in text
    assert len(links.hrefs) == 3 and all(h.startswith("#") and h[1:] in links.ids for h in links.hrefs)
    assert '<span class="hit"><span class="ln">   2</span> The closing date for bids is 18 December 2025.' in text


def test_the_markdown_lists_every_item_and_the_audit_trail(
    reviewed: tuple[Path, str, Settings], tmp_path: Path
) -> None:
    text = export(reviewed, tmp_path, "report.md").read_text(encoding="utf-8")
    assert "| Closing date |" in text and "CONFLICT" in text and "## Audit trail" in text
    assert "2 items answered: 1 found, 0 to check, 0 not stated, 1 in conflict; 1 marked by the reviewer." in text


def test_an_unknown_format_is_one_clear_line(reviewed: tuple[Path, str, Settings], tmp_path: Path) -> None:
    with pytest.raises(api.InputError, match=r"report\.pdf: the report's format is named by its suffix"):
        export(reviewed, tmp_path, "report.pdf")
