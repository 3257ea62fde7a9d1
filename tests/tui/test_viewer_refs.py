"""Following a citation in the document viewer: on a page that cites an article of a law in the KB, ``r``
lists the page's citations, Enter opens the cited article's page with its lines marked, Escape comes back."""

from __future__ import annotations

from pathlib import Path

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.domain.answers import Source
from pikelocal.store.store import Store
from pikelocal.tui.screens.dialogs import RefsDialog
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text
from tests.support.refs_kb import REGULATION, TENDER_TEXT, ingest
from tests.support.search_corpus import ENC
from tests.support.tui import make_app, run, wait_until


def build(tmp_path: Path) -> Path:
    kb = tmp_path / "kb.sqlite"
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        ingest(store, REGULATION, TENDER_TEXT)
    return kb


def first_line_of(kb: Path, key: str) -> Source:
    with api.open_kb(kb, Settings(), encoder=ENC) as knowledge_base:
        (doc,) = [d.record for d in knowledge_base.documents().documents if d.record.path == key]
        line = knowledge_base.page(doc.id, 1).lines()[0]
    return Source(1, doc.id, key, doc.title, (), 1, 1, 1, 1, (), line)


def test_r_follows_a_citation_to_the_article_and_escape_comes_back(tmp_path: Path) -> None:
    kb = build(tmp_path)
    tender = first_line_of(kb, TENDER_TEXT.key)
    law = first_line_of(kb, REGULATION.key)

    async def scenario() -> None:
        app = make_app(kb)
        async with app.run_test(size=(140, 32)) as pilot:
            app.push_screen(DocumentViewer(app.kb, tender))
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            assert "Citations" in screen_text(app).splitlines()[-1]  # the key shows: a citation leads somewhere
            citing = app.screen
            await pilot.press("r")
            await wait_until(pilot, lambda: isinstance(app.screen, RefsDialog))
            listed = screen_text(app)
            assert (
                "《中华人民共和国招标投标法实施条例》第四条第三款 → 中华人民共和国招标投标法实施条例 第4条第三款"
                in listed
            )
            assert "《建筑法》 → not in the KB" in listed
            await pilot.press("enter")  # the first resolved citation is highlighted
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer) and app.screen is not citing)
            shown = screen_text(app)
            assert "招标投标法实施条例.md · page 1 of 1" in shown
            marked = [line for line in shown.splitlines() if "▌" in line]
            assert marked and marked[0].split("▌")[1].strip().startswith("第四条"), marked  # the article's line
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is citing)
            # the regulation itself cites only what is not in the KB, and its own article 2
            app.push_screen(DocumentViewer(app.kb, law))
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer) and app.screen is not citing)
            assert "Citations" in screen_text(app).splitlines()[-1]

    run(scenario())
