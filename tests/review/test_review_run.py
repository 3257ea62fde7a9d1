"""A checklist run on a real KB with a scripted model: conflicts between two documents reported with both quotes, a
not-stated item, resuming without asking twice, asking again when the KB changed, and the reviewer's marks."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.domain.errors import Cancelled
from pikelocal.domain.events import Event, StageAdvanced
from pikelocal.domain.review import Located, ReviewQuote
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.fake import FakeLLM
from pikelocal.review.runner import _other_kind
from pikelocal.store.store import Store
from pikelocal.text.values import normalise
from tests.support.review_kb import CHECKLIST, RFP, RULES, quote_first, reviewed


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


@pytest.fixture
def kb(tmp_path: Path, settings: Settings) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rfp.md").write_text(RFP, encoding="utf-8")
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    path = tmp_path / "t.kb"
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
    checklist = tmp_path / "mini.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    return path, checklist


def run(path: Path, settings: Settings, checklist: Path, llm: FakeLLM, sink: object = None) -> api.ReviewReport:
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:
        request = api.ReviewRequest(str(checklist))
        return knowledge_base.review(request, sink) if sink else knowledge_base.review(request)  # type: ignore[arg-type]


def test_two_documents_that_disagree_are_reported_with_both_quotes(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    report = run(path, settings, checklist, FakeLLM({"answer-quote": quote_first}))
    rows = {r.item_id: r for r in report.rows}
    assert report.asked == 3 and report.script == "hans"
    deadline, bond, performance = rows["deadline"], rows["bond"], rows["performance"]
    assert deadline.verdict == "conflicting"
    assert [v.normal for v in deadline.values] == ["2025-10-25", "2025-10-28"]
    assert {q.where.title for q in deadline.quotes} == {"招标公告", "评标办法"}
    assert any("2025年10月28日" in q.text for q in deadline.quotes)
    assert bond.verdict == "conflicting"
    assert sorted(v.number for v in bond.values) == [50_000, 80_000]
    assert any("8万元" in q.text for q in bond.quotes) and any("5万元" in q.text for q in bond.quotes)
    assert performance.verdict == "not_stated" and performance.values == () and performance.quotes == ()


def test_a_rerun_asks_nothing_and_a_changed_kb_asks_again(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    llm = FakeLLM({"answer-quote": quote_first})
    run(path, settings, checklist, llm)
    calls = len(llm.calls)
    again = run(path, settings, checklist, llm)
    assert again.asked == 0 and again.kept == 3 and len(llm.calls) == calls
    assert [r.item_id for r in again.rows] == ["deadline", "bond", "performance"]
    extra = path.parent / "more"
    extra.mkdir()
    (extra / "note.md").write_text("# 补充通知\n\n履约保证金为合同金额的10%。\n", encoding="utf-8")
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        knowledge_base.add([extra])
    changed = run(path, settings, checklist, llm)
    assert changed.asked == 3 and len(llm.calls) > calls


def test_an_edited_item_is_asked_again_and_the_others_are_kept(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    llm = FakeLLM({"answer-quote": quote_first})
    run(path, settings, checklist, llm)
    edited = checklist.read_text(encoding="utf-8").replace("履约保证金是多少？", "履约保证金的金额是多少？")
    checklist.write_text(edited, encoding="utf-8")
    again = run(path, settings, checklist, llm)
    assert again.asked == 1 and again.kept == 2
    assert {r.item_id: r.question for r in again.rows}["performance"] == "履约保证金的金额是多少？"


def test_when_the_model_finds_nothing_statements_that_disagree_make_the_row_a_conflict(
    kb: tuple[Path, Path], settings: Settings
) -> None:
    path, checklist = kb
    report = run(path, settings, checklist, FakeLLM({"answer-quote": lambda _m, _p: "原文：无\n答案：文档中没有说明"}))
    rows = {r.item_id: r for r in report.rows}
    deadline, performance = rows["deadline"], rows["performance"]
    assert deadline.verdict == "conflicting" and deadline.extra.get("read") == "statements"
    assert sorted(v.normal for v in deadline.values) == ["2025-10-25", "2025-10-28"]
    assert {q.where.title for q in deadline.quotes} == {"招标公告", "评标办法"}
    assert "2025年10月25日" in deadline.answer and "2025年10月28日" in deadline.answer
    assert performance.verdict == "not_stated"  # no statement at all: the model's word stands


def test_a_cancelled_run_keeps_the_finished_items_and_resumes_with_the_rest(
    kb: tuple[Path, Path], settings: Settings
) -> None:
    path, checklist = kb
    llm = FakeLLM({"answer-quote": quote_first})

    def stop_after_first(event: Event) -> None:
        if isinstance(event, StageAdvanced) and event.done == 1:
            raise Cancelled("cancelled")

    with pytest.raises(Cancelled):
        run(path, settings, checklist, llm, stop_after_first)
    assert len(llm.calls_for("answer-quote")) == 1
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        _, stored = knowledge_base.review_rows(str(checklist))
    assert [r.item_id for r in stored] == ["deadline"]
    resumed = run(path, settings, checklist, llm)
    assert resumed.asked == 2 and resumed.kept == 1 and len(llm.calls_for("answer-quote")) == 3


def test_marks_and_notes_are_kept_with_their_history(kb: tuple[Path, Path], settings: Settings) -> None:
    path, checklist = kb
    run(path, settings, checklist, FakeLLM({"answer-quote": quote_first}))
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        first = knowledge_base.review_mark(str(checklist), "bond", "to_check", "两份文件金额不一致")
        second = knowledge_base.review_mark(str(checklist), "bond", "accepted", "以招标公告为准")
        _, rows = knowledge_base.review_rows(str(checklist))
        with pytest.raises(api.InputError, match="no answered item 'nope'"):
            knowledge_base.review_mark(str(checklist), "nope", "accepted")
        with pytest.raises(api.InputError, match="mark 'maybe'"):
            knowledge_base.review_mark(str(checklist), "bond", "maybe")
    assert first.mark == "to_check" and second.mark == "accepted"
    bond = next(r for r in rows if r.item_id == "bond")
    assert (bond.mark, bond.note) == ("accepted", "以招标公告为准") and bond.marked_at
    assert next(r for r in rows if r.item_id == "deadline").mark == ""


def test_a_ticked_box_answers_its_item_without_the_model(tmp_path: Path, settings: Settings) -> None:
    docs = tmp_path / "form"
    docs.mkdir()
    (docs / "rfp.md").write_text("# 投标人须知前附表\n\n1.11 分包 ☑不允许 □允许，分包要求： /\n", encoding="utf-8")
    path = tmp_path / "form.kb"
    checklist = tmp_path / "form.toml"
    checklist.write_text(
        'name = "form"\n[[items]]\nid = "sub"\nlabel = "分包"\nkind = "yesno"\nquestion.hans = "是否允许分包？"\n'
        'hints = ["分包"]\n',
        encoding="utf-8",
    )
    llm = FakeLLM({})  # any call would fail: no tag is scripted
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:
        knowledge_base.add([docs])
        (row,) = knowledge_base.review(api.ReviewRequest(str(checklist))).rows
    assert llm.calls == [] and (row.verdict, row.answer, [v.normal for v in row.values]) == ("found", "不允许", ["no"])
    assert row.quotes[0].text.startswith("1.11 分包 ☑不允许") and row.quotes[0].where.title == "投标人须知前附表"


WORKER = Path(__file__).resolve().parent / "review_worker.py"


def _answered(path: Path) -> int:
    with Store.open_existing(path) as store:
        return len(store.reviews.results("mini"))


def test_a_run_killed_outright_resumes_without_asking_a_finished_item_again(
    kb: tuple[Path, Path], settings: Settings
) -> None:
    path, checklist = kb
    worker = subprocess.Popen([sys.executable, str(WORKER), str(path), str(checklist)])
    try:
        deadline = time.monotonic() + 60
        while _answered(path) < 1 and time.monotonic() < deadline and worker.poll() is None:
            time.sleep(0.05)
        worker.send_signal(signal.SIGKILL)
    finally:
        worker.wait(timeout=30)
    stored = _answered(path)
    assert worker.returncode == -signal.SIGKILL and 1 <= stored < 3
    llm = FakeLLM({"answer-quote": quote_first})
    resumed = run(path, settings, checklist, llm)
    assert (resumed.asked, resumed.kept) == (3 - stored, stored)
    assert len(llm.calls_for("answer-quote")) == resumed.asked  # one call per item not stored, none for the rest
    assert [r.item_id for r in resumed.rows] == ["deadline", "bond", "performance"]


def test_a_date_the_form_left_blank_is_not_stated(tmp_path: Path, settings: Settings) -> None:
    reply = "原文：4.2.1 投标截止时间 2025 年 10 月 日 时 分\n答案：2025年10月日"
    text = "# 投标须知前附表\n\n4.2.1 投标截止时间 2025 年 10 月 日 时 分\n"
    deadline = reviewed(tmp_path, settings, text, reply)["deadline"]
    assert deadline.verdict == "not_stated" and deadline.values == ()
    assert deadline.answer == "2025年10月日"  # the model's words are kept for the reviewer to see


def test_a_bare_number_copied_from_its_quote_is_read_as_the_quote_prints_it(tmp_path: Path, settings: Settings) -> None:
    reply = "原文：三、押標金金額為新臺幣10萬元整。\n答案：10"  # the digits without 萬 and the currency
    bond = reviewed(tmp_path, settings, "# 投標須知\n\n三、押標金金額為新臺幣10萬元整。\n", reply)["bond"]
    assert bond.verdict == "found"  # not a conflict between "10" and the document's 10萬元
    assert [(v.number, v.unit) for v in bond.values] == [(100_000, "TWD")]


@pytest.mark.parametrize(
    ("text", "reply", "verdict", "read"),
    [
        # the days beside the bond, not its amount: printed as a duration, the row states no amount
        ("得標廠商應於決標日之次日起「30 日」內繳納履約保證金。\n",
         "原文：得標廠商應於決標日之次日起「30 日」內繳納履約保證金。\n答案：30", "not_stated", None),
        # with the amount stated too, the system reads it from its one statement and the model is not asked
        ("得標廠商應於決標日之次日起「30 日」內繳納履約保證金。\n\n履約保證金額度為新臺幣 65 萬元。\n",
         "原文：得標廠商應於決標日之次日起「30 日」內繳納履約保證金。\n答案：30", "found", "agreed statements"),
    ],
)  # fmt: skip
def test_a_bare_number_printed_as_another_kind_answers_no_amount(
    tmp_path: Path, settings: Settings, text: str, reply: str, verdict: str, read: str | None
) -> None:
    bond = reviewed(tmp_path, settings, "# 投標須知\n\n" + text, reply)["performance"]
    assert (bond.verdict, bond.extra.get("read")) == (verdict, read)
    assert [v.normal for v in bond.values] == ([] if verdict == "not_stated" else ["650000 TWD"])


@pytest.mark.parametrize(
    "reply",
    [
        "原文：投标保证金的金额为投标报价的 1.5-2%\n答案：1.5%-2%",
        "原文：投标保证金的金额为投标报价的 1.5-2\n答案：1.5%-2%",  # the model's quote dropped the %
    ],
)
def test_an_amount_stated_as_a_share_of_a_base_is_an_answer(tmp_path: Path, settings: Settings, reply: str) -> None:
    # a sentence, not a field (a field's share is read without the model: test_field_lines)
    text = "# 投标人须知前附表\n\n投标保证金的金额为投标报价的 1.5-2%。\n\n"
    text += "其他投标保证金事项：人民币5万元以上的，应从基本账户转出。\n"
    bond = reviewed(tmp_path, settings, text, reply)["bond"]
    assert bond.verdict == "found"  # a share and a sum are not compared: no conflict with the 5万元
    assert bond.answer.startswith("1.5%-2%") and [v.normal for v in bond.values] == ["1.5%"]
    assert [q.text for q in bond.quotes] == ["投标保证金的金额为投标报价的 1.5-2%"]


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        # a referral holds no date: the row states none
        ("原文：4.2.1 投标截止时间 见投标人须知前附表。\n答案：投标截止时间见投标人须知前附表", "not_stated"),
        # a no is an answer: there is none
        ("原文：4.2.2 投标截止时间不另行规定。\n答案：不另行规定", "found"),
    ],
)
def test_a_figure_item_answered_without_a_figure_is_not_stated_unless_the_answer_is_a_no(
    tmp_path: Path, settings: Settings, reply: str, verdict: str
) -> None:
    form = "# 投标须知\n\n4.2.1 投标截止时间 见投标人须知前附表。\n\n4.2.2 投标截止时间不另行规定。\n"
    deadline = reviewed(tmp_path, settings, form, reply)["deadline"]
    assert deadline.verdict == verdict and deadline.values == ()


NAME_CHECKLIST = """name = "names"
[[items]]
id = "purchaser"
label = "采购人"
kind = "name"
question.hans = "本项目的采购人是谁？"
hints = ["采购人", "招标人"]
"""


@pytest.mark.parametrize(("answer", "verdict"), [("招标人", "not_stated"), ("黄梅县水利局", "found")])
def test_a_name_answered_by_a_role_names_nobody(tmp_path: Path, settings: Settings, answer: str, verdict: str) -> None:
    reply = f"原文：一、本项目招标人为黄梅县水利局。\n答案：{answer}"
    rows = reviewed(tmp_path, settings, "# 招标公告\n\n一、本项目招标人为黄梅县水利局。\n", reply, NAME_CHECKLIST)
    assert rows["purchaser"].verdict == verdict


VALIDITY_CHECKLIST = """name = "validity"
[[items]]
id = "bid_validity"
label = "投標有效期"
kind = "duration"
question.hant = "投標文件的有效期為多久？"
hints = ["投標有效期", "投标有效期"]
"""


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        # a list number taken for the period: the heading names no validity, nor is it near the item by meaning
        ("原文：15、服務建議書撰寫規定\n答案：15天", "not_stated"),
        # the sentence that names the item: left to the answer's own checks (found, or to check by the encoder)
        ("原文：投標有效期，為90天\n答案：90天", "kept"),
    ],
)
def test_a_quote_about_none_of_the_item_s_concepts_answers_nothing(
    tmp_path: Path, settings: Settings, reply: str, verdict: str
) -> None:
    text = "# 需求說明書\n\n15、服務建議書撰寫規定\n\n投標有效期，為90天\n"  # the comma: no statement to read
    row = reviewed(tmp_path, settings, text, reply, VALIDITY_CHECKLIST)["bid_validity"]
    assert row.verdict == verdict if verdict == "not_stated" else row.verdict in ("found", "to_check")
    assert row.extra.get("draft") == reply.rsplit("：", 1)[1]  # the model's words kept either way


@pytest.mark.parametrize(
    ("answer", "kind", "quote", "other"),
    [
        # 温岭: 「前3 年内」 (a look-back in years) answering the committee's size as "3名"
        ("3名", "count", "应当回避：1.参加采购活动前3 年内与供应商存在劳动关系；", True),
        # 金艺: a fee table's 「100万元」 answering the advance payment's share as "100%"
        ("100%", "percentage", "| P≤100万元的部分 | 1.5% |", True),
        # the answer's unit as the quote prints the number: kept
        ("5人", "count", "评标委员会由5人组成", False),
        ("30%", "percentage", "价格分30分", False),
        ("15天", "duration", "于验收合格后15个工作日内付款", False),
        ("5万元", "amount", "投标保证金：人民币5万元", False),
    ],
)  # fmt: skip
def test_an_answer_s_number_with_a_unit_printed_as_another_kind_is_no_answer(
    answer: str, kind: str, quote: str, other: bool
) -> None:
    value = normalise(answer, kind)  # type: ignore[arg-type]
    assert _other_kind(value, [ReviewQuote(quote, Located(1, "doc", 1, 1, 1), value)]) is other


IP_CHECKLIST = """name = "ip"
[[items]]
id = "intellectual_property"
label = "知识产权"
kind = "text"
question.hans = "知识产权归谁所有？"
hints = ["知识产权", "著作权"]
"""
# 肥西's contract data sheet: the template's field was never filled in
UNFILLED_FORM = (
    "# 专用合同条款\n\n1.11 知识产权\n\n关于发包人提供的文件的著作权的归属：          。\n\n"
    "关于承包人为实施工程所编制文件的著作权的归属：承包人。\n"
)


@pytest.mark.parametrize(
    ("quote", "answer", "verdict"),
    [
        ("关于发包人提供的文件的著作权的归属：          。", "发包人", "not_stated"),  # a word of the label
        ("关于承包人为实施工程所编制文件的著作权的归属：承包人。", "承包人", "found"),  # the field's value
    ],
)
def test_an_answer_drawn_from_a_field_never_filled_in_states_nothing(
    tmp_path: Path, settings: Settings, quote: str, answer: str, verdict: str
) -> None:
    rows = reviewed(tmp_path, settings, UNFILLED_FORM, f"原文：{quote}\n答案：{answer}", IP_CHECKLIST)
    assert rows["intellectual_property"].verdict == verdict
