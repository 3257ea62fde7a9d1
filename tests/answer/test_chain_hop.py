"""The product's chains answered hop by hop (query/answer/chain_hop.py) over the composed tender and bid documents
(tests/data/hop/), with a scripted model: the cited article is read from hop 1's quote and its figure from that
article, a deadline is counted by the system from the event's date, two documents' amounts are compared by the
system; every value is cited by the sentence it stands in. A chain that cannot start takes the ordinary path."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.answers import QueryTrace
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.quote import QUOTE_TAG
from pikelocal.query.answer.chain_hop import CHAIN_TAG
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.store.store import Store

DATA = Path(__file__).parents[1] / "data" / "hop"
ENC = HashEncoder()
OPTIONS = AskOptions.from_settings(Settings(), mode="naive", k=4, neighbours=0, compress_tokens=0, quote=True, hop=True)
NONE_EN = "Quote: none\nAnswer: The documents do not state this."
NONE_ZH = "原文：无\n答案：文件中没有说明这一点。"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("chain-hop") / "kb.sqlite"
    options = IngestOptions.from_settings(Settings(), late=False)
    with Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        assert not Ingestor(store, ENC, options).ingest_paths(sorted(DATA.glob("*.md"))).failed
    return path


def scripted(replies: Mapping[str, str]) -> FakeLLM:
    """A model answering each hop's question (the prompt's last line) with its scripted reply, and "not stated"
    to any other; the ordinary path's calls get "not stated" too."""

    def reply(messages: Sequence[Message], _params: GenParams) -> str:
        asked = re.findall(r"^(?:Question|问题|問題)[:：] ?(.+)$", messages[-1].content, flags=re.M)[-1]
        return replies.get(asked, NONE_ZH if re.search(r"[\u4e00-\u9fff]", asked) else NONE_EN)

    return FakeLLM({CHAIN_TAG: reply, QUOTE_TAG: reply})


def answer(kb: Path, question: str, llm: FakeLLM, options: AskOptions = OPTIONS) -> QueryTrace:
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        return ask(store, ENC, llm, question, options, save=False)


def cited(trace: QueryTrace) -> list[str]:
    return [c.evidence.text for c in trace.answer.claims if c.verdict == "supported" and c.evidence is not None]


def chain_calls(llm: FakeLLM) -> int:
    return sum(1 for c in llm.calls if c.tag == CHAIN_TAG)


def test_the_cited_article_is_read_from_the_clause_and_its_figure_from_the_article(kb: Path) -> None:
    question = "未中标人的投标保证金按第几条的规定退还？退还期限是多少？"
    llm = scripted({question: "原文：[1] 未中标人的投标保证金按本文件第23条规定的期限退还。\n答案：第23条"})
    trace = answer(kb, question, llm)
    text = trace.answer.text
    assert text.startswith("5日（第23条）"), text  # the model never said 5日: the article was read by the system
    quotes = cited(trace)
    assert any("第23条规定的期限" in q for q in quotes) and any("中标通知书发出后5日内" in q for q in quotes)
    assert chain_calls(llm) == 2


def test_an_english_clause_reference_leads_to_the_numbered_clause(kb: Path) -> None:
    question = "Which clause states the performance security, and what percentage is it?"
    llm = scripted(
        {
            question: "Quote: [1] The successful bidder shall lodge the performance security stated in Clause 18"
            " before mobilisation.\nAnswer: 5%"
        }
    )
    trace = answer(kb, question, llm)
    assert trace.answer.text.startswith("5% (clause 18)"), trace.answer.text
    assert any("5% of the contract price" in q for q in cited(trace))


def test_a_deadline_is_counted_by_the_system_from_the_events_date(kb: Path) -> None:
    question = "乙方最迟应于哪一天完成全部材料交货？"
    llm = scripted(
        {
            question: "原文：[1] 乙方应自合同签订之日起30日内完成全部材料交货。\n答案：30日内",
            "合同签订的日期是哪一天？": "原文：[1] 本合同于2025年3月1日签订。\n答案：2025年3月1日",
        }
    )
    trace = answer(kb, question, llm)
    assert trace.answer.text.startswith("2025年3月31日（合同签订之日2025年3月1日起30日）"), trace.answer.text
    quotes = cited(trace)
    assert any("合同签订之日起30日内" in q for q in quotes) and any("2025年3月1日签订" in q for q in quotes)


def test_an_english_deadline_counts_weeks(kb: Path) -> None:
    question = "By what date must the Contractor provide proof of insurance?"
    llm = scripted(
        {
            question: "Quote: [1] The Contractor shall provide proof of insurance within 3 weeks after the signing"
            " of the contract.\nAnswer: within 3 weeks"
        }
    )  # hop 2 gets "not stated": the date is read by the system from a sentence about the signing
    trace = answer(kb, question, llm)
    assert trace.answer.text.startswith("23 June 2025 (3 weeks from signing of the contract, 2 June 2025)"), (
        trace.answer.text
    )


def test_two_documents_amounts_are_compared_by_the_system(kb: Path) -> None:
    question = "招标文件与投标文件中的投标保证金是否一致？"
    llm = scripted({"投标保证金是多少？": "原文：无\n答案：5万元"})  # each hop: a figure no quote holds
    trace = answer(kb, question, llm)
    assert trace.answer.text.startswith("一致：招标文件人民币伍万元整"), trace.answer.text
    assert "投标文件人民币50,000元" in trace.answer.text
    paths = {c.evidence.path for c in trace.answer.claims if c.evidence is not None}
    assert {Path(p).name for p in paths} == {"招标文件_城区道路养护.md", "投标文件_宏远建设.md"}


def test_two_documents_that_differ_say_so(kb: Path) -> None:
    trace = answer(kb, "Is the completion period in the bid the same as in the tender?", scripted({}))
    assert trace.answer.text.startswith("No: the bid states 100 days, the tender 120 days"), trace.answer.text


def test_a_chain_that_cannot_start_takes_the_ordinary_path(kb: Path) -> None:
    # no sentence of the KB cites an article about a warranty: hop 1 gives up, the ordinary answer is given
    question = "Which clause sets the warranty, and how many months does it last?"
    llm = scripted({})
    trace = answer(kb, question, llm)
    assert chain_calls(llm) == 1 and any(c.tag != CHAIN_TAG for c in llm.calls)
    assert trace.answer.unsupported


def test_without_the_switch_no_chain_is_taken(kb: Path) -> None:
    llm = scripted({})
    off = AskOptions.from_settings(
        Settings(), mode="naive", k=4, neighbours=0, compress_tokens=0, quote=True, hop=False
    )
    answer(kb, "招标文件与投标文件中的投标保证金是否一致？", llm, off)
    assert chain_calls(llm) == 0


def test_a_traditional_question_is_answered_in_traditional_characters(kb: Path) -> None:
    question = "未中標人的押標金按第幾條的規定退還？退還期限是多少？"
    llm = scripted({question: "原文：[1] 未中标人的投标保证金按本文件第23条规定的期限退还。\n答案：第23條"})
    text = answer(kb, question, llm).answer.text
    assert text.startswith("5日（第23條）"), text


def test_a_quote_of_the_events_date_leads_to_the_clause_counting_from_it(kb: Path) -> None:
    # the model quotes the day the works passed (the event), not the clause that counts the payment from it
    question = "甲方最迟应于哪一天支付合同价款？"
    llm = scripted({question: "原文：[1] 本项目验收合格日期为2025年7月1日。\n答案：2025年7月1日"})
    trace = answer(kb, question, llm)
    assert trace.answer.text.startswith("2025年9月1日（验收合格之日2025年7月1日起2个月）"), trace.answer.text
    assert any("验收合格之日起2个月内支付合同价款" in q for q in cited(trace))


def test_a_deadline_no_clause_counts_costs_no_chain_call(tmp_path: Path) -> None:
    # the day is stated; no clause of the KB counts a period from an event: no chain call, the ordinary path answers
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notice.md").write_text(
        "# Notice\n\nBids must be submitted by 10:00 on 3 March 2025 at the front desk.\n", encoding="utf-8"
    )
    path = tmp_path / "kb.sqlite"
    with Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        assert (
            not Ingestor(store, ENC, IngestOptions.from_settings(Settings(), late=False)).ingest_paths([folder]).failed
        )
    question = "By what date must the bids be submitted?"
    llm = scripted(
        {
            question: "Quote: [1] Bids must be submitted by 10:00 on 3 March 2025 at the front desk."
            "\nAnswer: 3 March 2025"
        }
    )
    trace = answer(path, question, llm)
    assert chain_calls(llm) == 0 and len(llm.calls) == 1
    assert trace.answer.text.startswith("3 March 2025"), trace.answer.text
