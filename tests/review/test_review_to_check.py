"""The "to check" state: an answer that stands word for word in a quoted sentence of the documents, but a sentence that
is not clearly about the question, is neither found nor "not stated". The check keeps it apart (with a stand-in for
the encoder's similarity, so each band is tested on purpose), the runner makes it a row with its quote, and the
CLI, the TUI's cells and every export show it as "to check"; the reviewer's mark accepts it."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import docx
import pytest

from pikelocal import api
from pikelocal.cli.review import _print_row as print_row
from pikelocal.config import load_settings
from pikelocal.domain.answers import TO_CHECK, Source
from pikelocal.domain.review import Located, ReviewQuote, ReviewRow, Value
from pikelocal.embed.fake import HashEncoder
from pikelocal.prompts.quote import Quote, QuotedReply
from pikelocal.query.answer.quote_check import check_reply
from pikelocal.query.verify.about import ABOUT_COSINE, TO_CHECK_COSINE, Meaning
from pikelocal.review.checklist import load_checklist
from pikelocal.review.runner import item_state, state_of
from pikelocal.review.stored import row_json
from pikelocal.store.store import Store
from pikelocal.tui.review_render import verdict_cell
from tests.support.cli import run_cli
from tests.support.review_kb import CHECKLIST, RFP, RULES

BUDGET = "本案採購預算金額為新臺幣35萬900元（含稅），廠商報價超過預算者，不予評選。"


@dataclass
class FixedMeaning(Meaning):
    """The encoder's similarity replaced by one number: which band a sentence falls in is the test's choice."""

    value: float = 0.0

    def similarity(self, text: str) -> float:
        return self.value


def source(text: str) -> Source:
    return Source(number=1, doc_id=1, path="rfp.txt", title="rfp", chunk_ids=(1,), page_start=1, page_end=1,
                  line_start=1, line_end=3, section=(), text=text)  # fmt: skip


RANKED = "本案採序位法，由各評審委員辦理序位評比，以序位合計值最低者為優勝廠商。"


def verdict_at(similarity: float, question: str, quote: str, answer: str) -> tuple[int, str | None]:
    """(claim checks kept, the method of the to-check claim or None) for ``answer`` quoted from ``quote``, the
    encoder's similarity between the question and the quote being ``similarity``."""
    reply = QuotedReply((Quote(1, quote),), answer)
    meaning = FixedMeaning(HashEncoder(), question, value=similarity)
    verdict = check_reply(reply, question, [source(quote)], meaning=meaning)
    return len(verdict.checks), verdict.to_check.method if verdict.to_check else None


def test_an_answer_in_a_sentence_not_clearly_about_the_question_is_to_check() -> None:
    between = (TO_CHECK_COSINE + ABOUT_COSINE) / 2
    # the words differ (評選 asked, 評審 written), the concept is shared: the encoder decides, and is unsure
    assert verdict_at(between, "本案採用何種評選方式？", RANKED, "序位法") == (0, TO_CHECK)


def test_near_the_question_and_of_its_concept_the_answer_is_found() -> None:
    assert verdict_at(ABOUT_COSINE + 0.05, "本案採用何種評選方式？", RANKED, "序位法")[0] == 1


def test_far_from_the_question_it_is_not_stated() -> None:
    assert verdict_at(TO_CHECK_COSINE - 0.1, "本案採用何種評選方式？", RANKED, "序位法") == (0, None)


def test_a_sentence_of_another_concept_is_never_found_however_near_the_encoder_puts_it() -> None:
    # the budget is no bid bond: the question names the bond, the quote the budget; at most a reviewer's check
    assert verdict_at(0.99, "本案押標金金額是多少？", BUDGET, "新臺幣35萬900元") == (0, TO_CHECK)


def test_an_answer_that_stands_in_no_quote_is_never_to_check() -> None:
    reply = QuotedReply((Quote(1, BUDGET),), "新臺幣5萬元")  # the quote is real, the figure is not in it
    meaning = FixedMeaning(HashEncoder(), "本案押標金金額是多少？", value=1.0)
    verdict = check_reply(reply, "本案押標金金額是多少？", [source(BUDGET)], meaning=meaning)
    assert verdict.checks == () and verdict.to_check is None


@pytest.fixture
def kb_with_to_check_row(tmp_path: Path) -> tuple[Path, Path]:
    """A KB of the two small tender documents whose stored bond row is to check (as the runner stores it)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rfp.md").write_text(RFP, encoding="utf-8")
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    checklist = tmp_path / "mini.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    path = tmp_path / "t.kb"
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
    parsed = load_checklist(checklist)
    item = next(i for i in parsed.items if i.id == "bond")
    quote = ReviewQuote(
        "投标保证金：人民币8万元。", Located(2, "rules.md", None, 9, 9), Value("amount", "8万元", "80000 元")
    )
    row = ReviewRow(
        checklist=parsed.name, item_id="bond", label=item.label, section=item.section, kind="amount",
        question="投标保证金是多少？", answer="8万元", verdict="to_check", values=(quote.value,) if quote.value else (),
        quotes=(quote,), extra={"draft": "8万元"},
    )  # fmt: skip
    with Store.open_existing(path, readonly=False) as store:
        made_on = item_state(state_of(store, "k", "hans", None), item)
        store.reviews.save_result(parsed.name, "bond", made_on, row_json(row))
    return path, checklist


def test_every_export_shows_the_to_check_row_with_its_quote(kb_with_to_check_row: tuple[Path, Path]) -> None:
    path, checklist = kb_with_to_check_row
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        written = {ext: knowledge_base.export_review(str(checklist), path.with_suffix(f".{ext}")) for ext in
                   ("md", "csv", "html", "docx")}  # fmt: skip
    md = written["md"].read_text(encoding="utf-8")
    assert "to check" in md and "投标保证金：人民币8万元。" in md and "1 to check" in md
    rows = list(csv.DictReader(written["csv"].open(encoding="utf-8")))
    assert [(r["item"], r["verdict"]) for r in rows] == [("bond", "to_check")]
    html = written["html"].read_text(encoding="utf-8")
    assert 'class="v-to_check"' in html and "to check" in html and "投标保证金：人民币8万元。" in html
    cells = [c.text for t in docx.Document(str(written["docx"])).tables for r in t.rows for c in r.cells]
    assert "to check" in cells and any("投标保证金：人民币8万元。" in c for c in cells)


def test_the_cli_lists_it_as_to_check_and_a_mark_accepts_it(
    kb_with_to_check_row: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, checklist = kb_with_to_check_row
    marked = run_cli("mark", str(path), str(checklist), "bond", "accepted", "--note", "8万")
    assert marked.returncode == 0, marked.stderr
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        (row,) = knowledge_base.review_rows(str(checklist))[1]
    assert (row.verdict, row.mark, row.note) == ("to_check", "accepted", "8万")
    print_row(row)  # how `pikelocal review` lists a row
    listed = capsys.readouterr().out
    assert listed.startswith("[to check] 投标保证金: 8万元") and "投标保证金：人民币8万元。" in listed


def test_the_tui_cell_shows_it_to_check() -> None:
    row = ReviewRow(checklist="c", item_id="x", label="x", section="", kind="amount", question="?", answer="8万元",
                    verdict="to_check")  # fmt: skip
    assert verdict_cell(row).plain == "? to check"


def names_none(item_id: str, quote: str) -> bool:
    from pikelocal.review.conflicts import Corpus
    from pikelocal.review.runner import _names_none

    item = next(i for i in load_checklist("tender-zh").items if i.id == item_id)
    return _names_none(item, (ReviewQuote(quote, Located(1, "doc", 1, 1, 1)),), Corpus({}, {}, {}))


@pytest.mark.parametrize(
    ("item_id", "quote", "none"),
    [
        # rows the review sheets showed "to check" (BENCHMARKS "Conflicts by meaning, to check needs a concept"):
        # right ones name the item
        ("project_name", "3、標的名稱：115年觀光e學院建置維運案。", False),
        ("award_method", "本案採固定費用決標，不議減價格。", False),
        # wrong ones name another thing: a warranty bond offered as the performance bond, an opening as the
        # document period, a plan's staff as the bidders' qualifications
        ("performance_bond", "(二)保固保證金金額為新臺幣10萬元整。", True),
        ("document_period", "十四、 開標： （一） 開標時間為民國 115年1月27日上午10時。", True),
        ("agency", "2、招標機關：交通部觀光署(以下簡稱本署)。", True),
    ],
)
def test_a_to_check_quote_must_name_one_of_the_item_s_concepts(item_id: str, quote: str, none: bool) -> None:
    assert names_none(item_id, quote) is none
