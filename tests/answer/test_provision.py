"""A question asking what an article says is answered with the article from the sources, by the system: no model
call, the text from its heading to the next article's, cited at its own lines; another law's article of the same
number is not taken for it; any other question about the article goes to the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.answers import Source
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.query.answer.provision import article_span, asked_article
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, OPTIONS

SOLE = """# 中华人民共和国个人独资企业法

第十八条 投资人以其家庭共有财产作为个人出资的，应当依法以家庭共有财产对企业债务承担无限责任。

第十九条 个人独资企业投资人可以自行管理企业事务，也可以委托或者聘用其他具有民事行为能力的人负责企业的事务管理。

投资人委托或者聘用他人管理个人独资企业事务，应当与受托人或者被聘用的人签订书面合同。

## 第四章 个人独资企业的事务管理

第二十条 投资人委托或者聘用的管理个人独资企业事务的人员不得有下列行为：利用职务上的便利，索取或者收受贿赂。
"""
PARTNERSHIP = """# 中华人民共和国合伙企业法

第十九条 合伙企业存续期间，合伙人的出资和所有以合伙企业名义取得的收益和依法取得的其他财产，均为合伙企业的财产。
"""
INSURANCE = "# 中华人民共和国保险法\n\n第二十四条 保险人作出核定后，对不属于保险责任的，应当发出拒绝赔偿通知书。\n"
SOCIAL_INSURANCE = "# 中华人民共和国社会保险法\n\n第二十四条 国家建立和完善新型农村合作医疗制度。\n"
ASK = AskOptions.from_settings(
    Settings(), mode="naive", k=4, context="neighbours", neighbours=0, compress_tokens=0, quote=True
)


@pytest.mark.parametrize(
    ("question", "article"),
    [
        ("民法商法个人独资企业法第十九条的内容是什么？", "19"),
        ("個人獨資企業法第19條規定了什麼？", "19"),
        ("What does section 54 of the Insurance Contracts Act 1984 say?", "54"),
        ("个人独资企业法第十九条规定的合同应当采用什么形式？", None),  # a fact in the article: the model's
        ("第十九条和第二十条的内容是什么？", None),  # two articles
        ("个人独资企业投资人的责任是什么？", None),  # no article
    ],
)
def test_which_questions_ask_for_an_articles_words(question: str, article: str | None) -> None:
    ref = asked_article(question)
    assert (ref.article if ref else None) == article


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("laws")
    (root / "docs").mkdir()
    (root / "docs" / "个人独资企业法(1999-08-30).md").write_text(SOLE, encoding="utf-8")
    (root / "docs" / "合伙企业法(2006-08-27).md").write_text(PARTNERSHIP, encoding="utf-8")
    (root / "docs" / "保险法(2009-02-28).md").write_text(INSURANCE, encoding="utf-8")
    (root / "docs" / "社会保险法(2010-10-28).md").write_text(SOCIAL_INSURANCE, encoding="utf-8")
    path = root / "kb.sqlite"
    with Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        assert not Ingestor(store, ENC, OPTIONS).ingest_paths([root / "docs"]).failed
    return path


def test_the_article_is_the_answer_without_a_model_call(kb: Path) -> None:
    llm = FakeLLM({"answer-quote": "原文：第十九条\n答案：不知道"})
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        trace = ask(store, ENC, llm, "民法商法个人独资企业法第十九条的内容是什么？", ASK, lambda e: None, save=False)
    assert llm.calls_for("answer-quote") == [] and trace.calls == ()
    text = trace.answer.text
    assert text.startswith("第十九条 个人独资企业投资人可以自行管理企业事务") and "签订书面合同。" in text
    assert "第二十条" not in text and "第四章" not in text and "合伙" not in text and not trace.answer.unsupported
    (check,) = trace.answer.claims
    assert check.method == "article" and check.evidence is not None
    cited = next(s for s in trace.answer.sources if s.number == check.evidence.source)
    assert cited.path.endswith("个人独资企业法(1999-08-30).md")
    assert (check.evidence.line_start, check.evidence.line_end) == (5, 7)  # the article's own lines


def test_another_laws_article_of_that_number_goes_to_the_model(kb: Path) -> None:
    llm = FakeLLM({"answer-quote": "原文：合伙企业存续期间，合伙人的出资均为合伙企业的财产。\n答案：合伙企业的财产"})
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        trace = ask(store, ENC, llm, "信托法第十九条的内容是什么？", ASK, lambda e: None, save=False)
    assert len(llm.calls_for("answer-quote")) == 1  # the KB holds no 信托法: the model reads, as for any question
    assert "第十九条 合伙企业存续期间" not in trace.answer.text


def test_the_law_is_the_one_the_kb_resolves_not_a_shorter_name_inside_it(kb: Path) -> None:
    """社会保险法 ends in 保险法, another law: the article is read from the document the KB resolves the cited name
    to, the most specific name first (the sources alone would take either)."""
    llm = FakeLLM({"answer-quote": "原文：无\n答案：不知道"})
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        trace = ask(store, ENC, llm, "社会法社会保险法第二十四条的内容是什么？", ASK, lambda e: None, save=False)
    sources = {s.path.rsplit("/", 1)[-1] for s in trace.answer.sources}
    assert {"保险法(2009-02-28).md", "社会保险法(2010-10-28).md"} <= sources  # both were read
    assert trace.answer.text.startswith("第二十四条 国家建立和完善新型农村合作医疗制度。"), trace.answer.text


def test_the_kbs_resolution_of_the_name_decides_between_sources() -> None:
    def source(number: int, doc_id: int, name: str, text: str) -> Source:
        return Source(number, doc_id, f"/laws/{name}.md", None, (number,), 1, 1, 1, 3, (), text)

    sources = [
        source(1, 10, "保险法(2009-02-28)", INSURANCE),
        source(2, 20, "社会保险法(2010-10-28)", SOCIAL_INSURANCE),
    ]
    ref = asked_article("社会法社会保险法第二十四条的内容是什么？")
    assert ref is not None
    by_name = article_span(ref, sources, english=False)
    assert by_name is not None and by_name.source.number == 1  # 保险法 is a tail of the cited name: names alone err
    resolved = article_span(ref, sources, english=False, law_docs=(20,))
    assert resolved is not None and resolved.source.number == 2 and "农村合作医疗" in resolved.text
