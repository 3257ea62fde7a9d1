"""`search` applies the KB's concept groups (answer.concepts) as `ask` does: a BM25 query in Taiwan's word finds the
mainland's, and with the groups off ("none") it finds only its own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.embed.fake import HashEncoder
from pikelocal.text import concepts
from tests.support.text_kb import one_text_kb

TEXT = "第三章 投标须知\n\n投标人须提交投标保证金人民币伍万元整，以银行保函形式递交。\n"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return one_text_kb(tmp_path_factory.mktemp("search-concepts"), "须知.txt", TEXT, encoder=HashEncoder())


def bm25(kb: Path, query: str, groups: str) -> int:
    settings = api.load_settings(environ={}, overrides={"answer.concepts": groups})
    try:
        with api.open_kb(kb, settings, encoder=HashEncoder()) as knowledge_base:
            return len(knowledge_base.search(query, api.SearchRequest(mode="bm25", k=5)))
    finally:
        concepts.use_groups(None)  # the built-in groups again for the tests that follow


def test_taiwan_s_word_finds_the_mainland_s_with_the_groups_and_not_without(kb: Path) -> None:
    assert bm25(kb, "押標金", "") == 1  # 押標金 = 投标保证金
    assert bm25(kb, "押標金", "none") == 0
    assert bm25(kb, "投标保证金", "none") == 1  # its own words need no group
