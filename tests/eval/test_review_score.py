"""The review scorer (eval/review_score.py) on hand-built rows, its gold-file loader, and the two shipped gold fact
sheets (tests/data/review): the contract's quotes checked against its Markdown, the tender's against the PDF."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pikelocal.domain.errors import InputError
from pikelocal.domain.review import Located, ReviewQuote, ReviewRow, ReviewVerdict, ValueKind
from pikelocal.eval.review_score import GoldItem, fold, load_gold, score, unknown_items
from pikelocal.review.checklist import load_checklist
from pikelocal.text.values import normalise

DATA = Path(__file__).parents[1] / "data" / "review"
TENDER = Path("pdfs") / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"


def row(
    item: str,
    kind: ValueKind,
    answer: str,
    verdict: ReviewVerdict = "found",
    values: tuple[str, ...] | None = None,
    pages: tuple[int, ...] = (),
    lines: tuple[tuple[int, int], ...] = (),
) -> ReviewRow:
    """A stored row as the runner makes it: ``values`` are texts read with values.normalise (None: the answer's)."""
    texts = (answer,) if values is None else values
    read = tuple(v for t in texts if (v := normalise(t, kind)) is not None)
    quotes = tuple(ReviewQuote("…", Located(1, "doc.pdf", p, 1, 2)) for p in pages)
    quotes += tuple(ReviewQuote("…", Located(1, "doc.md", None, a, b)) for a, b in lines)
    return ReviewRow(
        checklist="tender-zh", item_id=item, label=item, section="", kind=kind, question="?", answer=answer,
        verdict=verdict, values=read if verdict != "not_stated" else (), quotes=quotes,
    )  # fmt: skip


def answer(a: str | list[str]) -> tuple[str, ...]:
    return (a,) if isinstance(a, str) else tuple(a)


def gold_item(
    item: str,
    value: str | list[str] | None,
    also: tuple[str | list[str], ...] = (),
    **where: Any,
) -> GoldItem:
    """A gold item as load_gold makes it: a value or key phrases (None: not stated), other accepted answers."""
    value_ = None if value is None else answer(value)
    return GoldItem(item=item, value=value_, also=tuple(answer(a) for a in also), **where)


GOLD = [
    gold_item("bid_validity", "90 days", page=13),
    gold_item("contract_term", "1095 days", page=11),
    gold_item("budget", None),
    gold_item("max_price", None),
    gold_item("project_name", ["团洲圩", "勘察设计"], page=10, pages=(4, 7)),
    gold_item("evaluators", "5", page=14),
    gold_item("price_weight", "26.25%", also=("25%",), page=48, conflict_values=("26.25%", "25%")),
    gold_item("bid_bond", "不提交", match="contains", also=("无需",), page=13),
    gold_item("joint_bid", "no", page=12),
    gold_item("bid_deadline", None, also=("2025-10",)),
    gold_item("copies", "4", page=15),
]
ROWS = [
    row("bid_validity", "duration", "投标有效期为自投标截止时间起90日。", pages=(13,)),
    row("contract_term", "duration", "服务期为730日历天。", pages=(11,)),
    row("budget", "amount", "文件未说明。", verdict="not_stated"),
    row("max_price", "amount", "最高限价为100万元。", pages=(12,)),
    row("project_name", "name", "湖北省黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计服务项目", pages=(7,)),
    row("evaluators", "count", "文件未说明。", verdict="not_stated"),
    row("price_weight", "percentage", "26.25", verdict="conflicting", values=("26.25", "25"), pages=(48,)),
    row("bid_bond", "amount", "本项目不提交投标保证金。", pages=(13,)),
    row("joint_bid", "yesno", "否，不接受联合体投标。", pages=(12,)),
    row("bid_deadline", "date", "2025年10月", pages=(14,)),
    row("site_visit", "date", "不组织。"),  # no gold for it: ignored
]


def test_counts_by_hand() -> None:
    s = score(ROWS, GOLD)
    # answerable: bid_validity, contract_term, project_name, evaluators, price_weight, bid_bond, joint_bid, copies
    # right: bid_validity, project_name, price_weight, bid_bond, joint_bid
    assert (s.answerable, s.answerable_right) == (8, 5)
    assert s.item_accuracy == pytest.approx(5 / 8)
    # not stated: budget (left not stated), max_price (invented), bid_deadline (the accepted partial 2025-10)
    assert (s.not_stated, s.not_stated_right) == (3, 2)
    assert s.not_stated_accuracy == pytest.approx(2 / 3)
    assert (s.conflicts, s.conflicts_found) == (1, 1)
    assert s.false_conflicts == ()
    assert score([*ROWS[:-1], row("budget", "amount", "5万元", verdict="conflicting")], GOLD).false_conflicts == (
        "budget",
    )
    assert s.answered_wrong == ("contract_term", "max_price")
    assert s.missed == ("evaluators",)
    assert s.no_row == ("copies",)
    outcomes = {i.item: i.outcome for i in s.items}
    assert outcomes == {
        "bid_validity": "right", "contract_term": "wrong", "budget": "not_stated", "max_price": "invented",
        "project_name": "right", "evaluators": "missed", "price_weight": "right", "bid_bond": "right",
        "joint_bid": "right", "bid_deadline": "right", "copies": "no_row",
    }  # fmt: skip
    assert [i.item for i in s.items] == [g.item for g in GOLD]  # the gold's order


def test_the_table_says_what_each_row_gave_and_whether_it_cited_the_gold_page() -> None:
    items = {i.item: i for i in score(ROWS, GOLD).items}
    assert items["bid_validity"].got == "90 days"
    assert items["contract_term"].got == "730 days"
    assert items["evaluators"].got == "not stated"
    assert items["bid_bond"].got == "本项目不提交投标保证金。"  # no value read: the answer itself
    assert items["project_name"].cited is True  # p. 7 is one of the gold's pages
    assert items["contract_term"].cited is True
    assert items["max_price"].cited is None  # a not-stated item has no page to cite
    assert items["price_weight"].conflict_caught is True
    assert items["bid_validity"].conflict_caught is None
    assert items["copies"].gold.shown() == "4" and items["budget"].gold.shown() == "not stated"
    assert items["project_name"].gold.shown() == "团洲圩 + 勘察设计"


def test_values_compare_by_meaning_not_by_text() -> None:
    gold = [
        gold_item("bid_validity", "14 days"),
        gold_item("budget", "350900 CNY"),
        gold_item("joint_bid", "no"),
    ]
    rows = [
        row("bid_validity", "duration", "两周"),  # 2 weeks = 14 days
        row("budget", "amount", "35万900元"),  # 元 names no currency: equals CNY
        row("joint_bid", "yesno", "是"),
    ]
    s = score(rows, gold)
    assert [i.outcome for i in s.items] == ["right", "right", "wrong"]


def test_a_conflict_is_caught_only_with_both_values_on_a_conflicting_row() -> None:
    gold = [gold_item("price_weight", "26.25%", also=("25%",), conflict_values=("26.25%", "25%"))]
    one_value = row("price_weight", "percentage", "26.25", verdict="conflicting", values=("26.25", "30"))
    found_only = row("price_weight", "percentage", "26.25", values=("26.25", "25"))
    for r in (one_value, found_only):
        s = score([r], gold)
        assert (s.conflicts, s.conflicts_found) == (1, 0)
        assert s.items[0].outcome == "right"  # the answer itself is still accepted
    assert score([], gold).conflicts_found == 0


def test_contains_ignores_spaces_case_and_full_width() -> None:
    gold = [gold_item("project_number", "HBHM-202510SL-007001"), gold_item("governing_law", "New South Wales")]
    rows = [
        row("project_number", "name", "招标编号：ＨＢＨＭ－202510sl－007001"),
        row("governing_law", "name", "the laws of new south  wales"),
    ]
    assert [i.outcome for i in score(rows, gold).items] == ["right", "right"]
    assert fold("Ｎew  South\nWales") == "newsouthwales"


def test_every_key_phrase_of_one_accepted_answer_is_needed() -> None:
    gold = [gold_item("dispute", ["协商", "仲裁"], also=(["协商", "诉讼"],))]
    assert score([row("dispute", "text", "先协商，协商不成向人民法院提起诉讼。")], gold).items[0].outcome == "right"
    assert score([row("dispute", "text", "向仲裁委员会申请仲裁。")], gold).items[0].outcome == "wrong"


def test_a_markdown_line_is_cited_when_a_quote_reaches_it() -> None:
    gold = [gold_item("renewal_term", "12 months", line=94)]
    near = row("renewal_term", "duration", "12 months", lines=((93, 93),))
    far = row("renewal_term", "duration", "12 months", lines=((120, 121),))
    assert score([near], gold).items[0].cited is True
    assert score([far], gold).items[0].cited is False


def test_no_gold_items_score_zero_without_dividing_by_zero() -> None:
    s = score(ROWS, [])
    assert (s.item_accuracy, s.not_stated_accuracy, s.conflicts_found) == (0.0, 0.0, 0)


# --- load_gold -----------------------------------------------------------------------------------------------


def write_lines(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps({"item": "bid_validity", "value": "90 days", "page": 13, "quote": "90 日内有效", "also": []})


def test_load_gold_reads_every_field(tmp_path: Path) -> None:
    record = {
        "item": "price_weight", "value": "26.25%", "page": 48, "pages": [49], "quote": "26.25 分", "also": ["25%"],
        "conflict": True, "conflict_values": ["26.25%", "25%"], "note": "points", "match": "value",
    }  # fmt: skip
    names = {"item": "project_name", "value": ["团洲圩", "勘察设计"], "also": [["团洲圩"]], "line": 3}
    gold = load_gold(write_lines(tmp_path, GOOD, "", json.dumps(record), json.dumps(names)))
    assert [g.item for g in gold] == ["bid_validity", "price_weight", "project_name"]
    assert gold[0].value == ("90 days",) and gold[0].page == 13 and gold[0].stated
    assert gold[1].conflict and gold[1].conflict_values == ("26.25%", "25%") and gold[1].pages == (49,)
    assert gold[1].accepted() == (("26.25%",), ("25%",))
    assert gold[2].value == ("团洲圩", "勘察设计") and gold[2].also == (("团洲圩",),) and gold[2].line == 3
    assert gold[2].mode("name") == "contains" and gold[0].mode("duration") == "value"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "a JSON object is expected"),
        ('{"value": "90 days"}', '"item" must be'),
        ('{"item": "budget"}', '"value" is missing'),
        ('{"item": "budget", "value": null, "valeu": 1}', "unknown field 'valeu'"),
        ('{"item": "budget", "value": null, "page": "13"}', '"page" must be a whole number'),
        ('{"item": "budget", "value": null, "page": 0}', '"page" must be a whole number'),
        ('{"item": "budget", "value": ""}', 'each "value" must be a non-empty string'),
        ('{"item": "budget", "value": "1 CNY", "also": "2 CNY"}', '"also" must be a list'),
        ('{"item": "budget", "value": "1 CNY", "match": "exact"}', '"match" must be "value" or "contains"'),
        ('{"item": "budget", "value": "1 CNY", "conflict": true}', '"conflict_values" with two or more'),
        ('{"item": "budget", "value": null, "conflict": true, "conflict_values": ["1", "2"]}', 'needs a "value"'),
        ('{"item": "budget", "value": "1", "conflict_values": ["1", "2"]}', 'without "conflict": true'),
        (GOOD, "already judged on line 1"),
    ],
)
def test_load_gold_names_the_file_and_line_of_a_bad_line(tmp_path: Path, bad: str, message: str) -> None:
    path = write_lines(tmp_path, GOOD, bad)
    with pytest.raises(InputError) as caught:
        load_gold(path)
    text = str(caught.value)
    assert text.startswith(f"{path}:2: ") and message in text
    assert "\n" not in text


def test_load_gold_refuses_an_empty_or_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no gold items"):
        load_gold(write_lines(tmp_path, "", ""))
    with pytest.raises(InputError, match="cannot read"):
        load_gold(tmp_path / "absent.jsonl")


# --- the shipped gold fact sheets ------------------------------------------------------------------------------


def test_tender_gold_covers_enough_items_of_the_checklist() -> None:
    gold = load_gold(DATA / "tender-zh-gold.jsonl")
    assert unknown_items(gold, [i.id for i in load_checklist("tender-zh").items]) == []
    assert len(gold) >= 25
    assert sum(not g.stated for g in gold) >= 5
    assert all(g.page is not None and g.quote for g in gold if g.stated)
    assert any(g.conflict for g in gold)


def test_contract_gold_covers_enough_items_and_its_quotes_stand_on_their_lines() -> None:
    gold = load_gold(DATA / "contract-en-gold.jsonl")
    assert unknown_items(gold, [i.id for i in load_checklist("contract-en").items]) == []
    assert len(gold) >= 20 and sum(not g.stated for g in gold) >= 5 and sum(g.conflict for g in gold) >= 1
    text = (DATA / "supply-agreement-long.md").read_text(encoding="utf-8")
    assert len(text.split()) >= 3000
    lines = text.split("\n")
    for g in gold:
        if not g.stated:
            continue
        assert g.line is not None and g.quote, g.item
        window = " ".join(" ".join(lines[g.line - 1 : g.line + 5]).split())
        assert " ".join(g.quote.split()) in window, g.item
    for g in (g for g in gold if g.conflict):
        for value in g.conflict_values:  # each conflicting value is written in the contract
            assert any((v := normalise(s, "date" if "-" in value else "duration")) and v.normal == value
                       for s in re.split(r"(?<=[.|])\s", text)), value  # fmt: skip


def test_tender_gold_quotes_stand_on_their_pages_of_the_parsed_pdf(shared_data: Path) -> None:
    from pikelocal.ingest.read.parse import parse_document

    pdf = shared_data / TENDER
    if not pdf.is_file():
        pytest.skip(f"{pdf} is absent")
    pages = {p.page_no: re.sub(r"\s+", "", p.text) for p in parse_document(pdf).pages}
    for g in load_gold(DATA / "tender-zh-gold.jsonl"):
        if g.quote and g.page is not None:
            assert re.sub(r"\s+", "", g.quote) in pages[g.page], g.item


@pytest.mark.parametrize(
    ("name", "stated", "not_stated", "n_pages"),
    [
        ("cn-tender-huayang-switchgear", 43, 9, 99),  # a goods tender by 公开招标
        ("cn-tender-luodian-canteen", 34, 18, 45),  # a services procurement by 竞争性磋商
        ("tw-req-hualien-bus", 21, 31, 31),  # a Taiwanese requirements specification (需求說明書), IT build
        ("cn-tender-yulin-safety", 42, 10, 76),  # a services procurement by 竞争性磋商, safety/environment experts
        ("cn-tender-hanshan-pumps", 40, 12, 66),  # booster pump sets supplied and installed, by 公开招标, e-bidding
        ("cn-tender-huangpu-customs", 36, 16, 65),  # a .docx: on-site auxiliary services for a customs office, 公开招标
        ("cn-tender-yinchuan-signage", 34, 18, 2),  # a store's LOGO letters made and installed, a company's own .docx
        ("cn-tender-baoshan-property", 36, 16, 79),  # a .docx: property management of police compounds, 公开招标
        ("cn-tender-gdtax-catering", 40, 12, 111),  # food for a tax bureau's canteen, 公开招标, a discount-rate bid
        ("cn-tender-luojing-services", 38, 14, 50),  # a .docx: patrol staff (特保) for an industrial park, 竞争性磋商
        ("cn-tender-songjiang-cleaning", 40, 12, 14),  # a .docx: cleaning trains in a railway depot, 公开招标
        ("cn-tender-jiaohang-dishwashing", 37, 15, 66),  # a .docx: a bank canteen's dishwashing, 竞争性谈判
        ("cn-tender-taiping-dispatch", 36, 16, 49),  # a .docx: dispatched staff for a hospital, a company's 邀请招标
        ("cn-tender-xiamenbank-staffing", 37, 15, 64),  # a .docx: a bank branch's outsourced retail staff, 公开招标
        ("cn-tender-jinyi-inspection", 27, 25, 30),  # a .docx: inspecting monitoring equipment, the tender's body only
        (
            "cn-tender-wenling-xinchuang",
            36,
            16,
            91,
        ),  # domestic IT hardware and software for a bureau, Zhejiang, 公开招标
        ("cn-tender-yangxi-tax-services", 40, 12, 103),  # a tax bureau's auxiliary and support services, 公开招标
        ("cn-tender-sichuan-iptv-metadata", 34, 18, 24),  # a .docx: IPTV metadata upkeep, a media company's 竞争性磋商
        ("cn-tender-bob-pentest", 42, 10, 55),  # a .docx: a bank's penetration testing, 公开招标 through an agent
        ("cn-tender-cmbc-codescan", 38, 14, 65),  # source-code security testing for a bank, 公开征询 (an inquiry)
        (
            "cn-tender-military-software",
            40,
            12,
            112,
        ),  # software services for an academy, 竞争性谈判, a military template
        ("cn-tender-cmcc-anhui-security", 33, 19, 32),  # a telecom's security assessments, 公开询比 (its own procedure)
        ("cn-tender-ctjs-cloud-assessment", 34, 18, 102),  # a .docx: a telecom's cloud security assessment, 公开询比
        ("cn-tender-pku-periodicals", 38, 14, 70),  # a university library's foreign periodicals, 公开招标 by an agent
        ("tw-tender-taipeimetro-valves", 18, 34, 1),  # a .txt of an .odt: 臺北捷運's 投標須知 form, ticked options
        ("cn-tender-feixi-road", 41, 11, 213),  # a township's municipal road works, 公开招标, a provincial template
        ("cn-tender-chengdu-travel", 36, 16, 26),  # a .docx: a hospital's trips abroad supported, 竞争性磋商, no price
        ("cn-tender-postlife-verification", 27, 25, 25),  # a .docx: an insurer's phone-number checks, its own 磋商
        ("cn-tender-qiantan-purifier", 18, 34, 1),  # a .txt of a .doc: a works contractor's purifiers, 邀请招标
        # cn-tender-ksrcb-secops, cn-tender-yillion-sectest, cn-tender-csrcb-crowdtest, cn-tender-sip-knowledge and
        # cn-tender-dgut-classroom:
        # their documents forbid copying or disclosure, so they are not kept here (SOURCES.md); their gold sheets
        # are checked below
    ],
)
def test_a_held_out_gold_judges_every_item_and_its_quotes_stand_on_their_pages(
    name: str, stated: int, not_stated: int, n_pages: int
) -> None:
    """A held-out tender document (SOURCES.md): every tender-zh item judged once, each stated fact with its page and
    quote, every null with a note, and each quote found on its page as pikelocal reads the PDF, the Word file or the
    text converted from an OpenDocument file (one page; whitespace ignored; a Wingdings box as the ☑ or □ it is
    read as)."""
    from pikelocal.ingest.read.parse import parse_document

    gold = load_gold(DATA / f"{name}-gold.jsonl")
    items = [i.id for i in load_checklist("tender-zh").items]
    assert sorted(g.item for g in gold) == sorted(items)
    assert all(g.page is not None and g.quote for g in gold if g.stated)
    assert all(g.note for g in gold if not g.stated)
    assert (sum(g.stated for g in gold), sum(not g.stated for g in gold)) == (stated, not_stated)
    (path,) = [DATA / f"{name}{ext}" for ext in (".pdf", ".docx", ".txt") if (DATA / f"{name}{ext}").is_file()]
    pages = {p.page_no: re.sub(r"\s+", "", p.text) for p in parse_document(path).pages}
    assert len(pages) == n_pages
    for g in gold:
        if g.quote and g.page is not None:
            assert re.sub(r"\s+", "", g.quote) in pages[g.page], g.item


@pytest.mark.parametrize(
    ("name", "stated", "not_stated", "n_pages"),
    [
        ("tw-tender-taiwanwater-chatbot", 19, 33, 54),  # 台灣自來水's RFP for an AI customer-service system
        ("cn-tender-vanguard-staffing", 32, 20, 79),  # 华润万家's own open tender for store staff
        ("cn-tender-tsinghua-campus", 40, 12, 78),  # 清华深圳's smart-campus software, 公开招标 by an agent
    ],
)
def test_a_held_out_gold_paged_as_its_dump_labels_judges_every_item_and_its_quotes_stand(
    name: str, stated: int, not_stated: int, n_pages: int
) -> None:
    """The three sheets of 2026-11-30 (fourth) cite the pages their helpers' dumps labelled each passage with, the page
    a chunk of text starts on, so a quote may stand up to two pages after its page as pikelocal reads the PDF; every
    item judged once, each stated fact with a page and quote, every null with a note."""
    from pikelocal.ingest.read.parse import parse_document

    gold = load_gold(DATA / f"{name}-gold.jsonl")
    assert [g.item for g in gold] == [i.id for i in load_checklist("tender-zh").items]
    assert all(g.page is not None and g.quote for g in gold if g.stated)
    assert all(g.note for g in gold if not g.stated)
    assert (sum(g.stated for g in gold), sum(not g.stated for g in gold)) == (stated, not_stated)
    pages = {p.page_no: re.sub(r"\s+", "", p.text) for p in parse_document(DATA / f"{name}.pdf").pages}
    assert len(pages) == n_pages
    for g in gold:
        if g.quote and g.page is not None:
            near = "".join(pages.get(g.page + k, "") for k in range(3))
            assert re.sub(r"\s+", "", g.quote) in near, g.item


@pytest.mark.parametrize(
    ("name", "stated", "not_stated"),
    [
        ("cn-tender-ksrcb-secops", 32, 20),  # a bank's security operations, its own 招标书 (the 声明 forbids copying)
        ("cn-tender-yillion-sectest", 28, 24),  # a bank's pre-launch security tests (第二十六条 forbids disclosure)
        ("cn-tender-csrcb-crowdtest", 29, 23),  # a bank's crowdsourced security tests (its 申明 forbids copying)
        ("cn-tender-sip-knowledge", 23, 29),  # software for an industrial park's IT centre (marked 注意保密)
        ("cn-tender-dgut-classroom", 35, 17),  # a university's classrooms renovated, 竞争性磋商 (its 8.4 limits use)
        ("cn-tender-military-cleaning", 34, 18),  # an army unit's cleaners, 公开招标 (its pledge bars copying)
        ("cn-tender-sseinfo-evoting", 31, 21),  # a stock exchange subsidiary's carrier services, 磋商 (二.2 bars it)
    ],
)
def test_a_held_out_gold_of_a_document_not_kept_here_judges_every_item(name: str, stated: int, not_stated: int) -> None:
    """A held-out sheet whose document is not in the repository (SOURCES.md says where to fetch it): every tender-zh
    item judged once, each stated fact with its page and quote, every null with a note."""
    gold = load_gold(DATA / f"{name}-gold.jsonl")
    assert [g.item for g in gold] == [i.id for i in load_checklist("tender-zh").items]
    assert all(g.page is not None and g.quote for g in gold if g.stated)
    assert all(g.note for g in gold if not g.stated)
    assert (sum(g.stated for g in gold), sum(not g.stated for g in gold)) == (stated, not_stated)


# --- build/bench/bench_review.py on stored rows (no model) -------------------------------------------------------


def test_bench_script_scores_stored_rows_and_writes_its_section_and_record(tmp_path: Path) -> None:
    from pikelocal.embed.fake import HashEncoder
    from pikelocal.review.stored import row_json
    from pikelocal.store.store import Store
    from tests.support.build_scripts import load_build_script

    kb = tmp_path / "tender.kb"
    encoder = HashEncoder()
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim) as store:
        state = "contents:llama_cpp/default/naive/0/1:hans:all"  # as review/runner.state_of writes it
        for r in ROWS:
            store.reviews.save_result("tender-zh", r.item_id, state, row_json(replace(r, kb_state=state)))
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "\n".join(
            json.dumps({"item": g.item, "value": list(g.value) if g.value else None, "also": [list(a) for a in g.also],
                        "page": g.page, "pages": list(g.pages), "match": g.match,
                        "quote": f"quote of {g.item} | with a pipe",
                        **({"conflict": True, "conflict_values": list(g.conflict_values)} if g.conflict else {})},
                       ensure_ascii=False)
            for g in GOLD
        ),
        encoding="utf-8",
    )  # fmt: skip
    out, results = tmp_path / "BENCHMARKS.md", tmp_path / "results.json"
    out.write_text("# Benchmarks\n\nkept\n", encoding="utf-8")
    bench = load_build_script("bench/bench_review")
    argv = ["--kb", str(kb), "--checklist", "tender-zh", "--gold", str(gold), "--section", "review_test"]
    argv += ["--dataset", "zh_tender", "--wall-s", "600", "--out", str(out), "--json", str(results)]
    assert bench.main(argv) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\nkept\n")
    assert "<!-- review_test:begin -->" in text and "<!-- review_test:end -->" in text
    assert "**5/8** (62.5%)" in text and "**2/3**" in text and "**1/1**" in text and "**600 s**" in text
    assert "llama_cpp/default/naive/0/1" in text
    assert "| bid_validity (投标有效期 / 投標有效期) | 90 days | p. 13 | 90 days | found | right | yes |" in text
    assert "quote of budget \\| with a pipe" in text
    assert "| copies (份数 / 份數) | 4 | p. 15 | – | – | no_row | – |" in text
    records = json.loads(results.read_text(encoding="utf-8"))
    assert len(records) == 1
    record = records[0]
    assert (record["benchmark"], record["dataset"], record["mode"], record["n"]) == ("review", "zh_tender", "naive", 11)
    assert record["metrics"] == {
        "item_accuracy": 0.625, "not_stated_accuracy": 0.6667, "conflicts_found": 1.0, "false_conflicts": 0.0,
        "wall_s": 600.0,
        # these stored rows keep no draft and none is to check
        "to_check": 0.0, "to_check_right": 0.0, "right_drafts_removed": 0.0, "inventions_kept": 0.0,
        "wrong_drafts_kept": 0.0,
    }  # fmt: skip
    assert bench.main(argv) == 0  # a second run replaces the section and the record
    assert out.read_text(encoding="utf-8").count("<!-- review_test:begin -->") == 1
    assert len(json.loads(results.read_text(encoding="utf-8"))) == 1


def test_bench_script_runs_a_checklist_and_the_scorer_sees_both_conflicts(tmp_path: Path) -> None:
    """``--run``'s path on the review tests' two disagreeing documents (tests/support/review_kb.py) with their scripted
    model: every item right, both conflicts caught."""
    from pikelocal import api
    from pikelocal.config import load_settings
    from pikelocal.embed.fake import HashEncoder
    from pikelocal.llm.fake import FakeLLM
    from tests.support.build_scripts import load_build_script
    from tests.support.review_kb import CHECKLIST, RFP, RULES, quote_first

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rfp.md").write_text(RFP, encoding="utf-8")
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    settings = load_settings(environ={})
    kb = tmp_path / "t.kb"
    with api.open_kb(kb, settings, encoder=HashEncoder()) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
    checklist = tmp_path / "mini.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    gold = write_lines(
        tmp_path,
        '{"item": "deadline", "value": "2025-10-25", "also": ["2025-10-28"], "page": null, "line": 5,'
        ' "conflict": true, "conflict_values": ["2025-10-25", "2025-10-28"]}',
        '{"item": "bond", "value": "50000 CNY", "also": ["80000 CNY"], "conflict": true,'
        ' "conflict_values": ["50000 CNY", "80000 CNY"]}',
        '{"item": "performance", "value": null}',
    )
    run_review = load_build_script("bench/bench_review").run_review
    llm = FakeLLM({"answer-quote": quote_first})
    rows, wall_s, asked = run_review(kb, settings, str(checklist), encoder=HashEncoder(), llm=llm)
    assert asked == 3 and wall_s > 0
    s = score(rows, load_gold(gold))
    assert (s.item_accuracy, s.not_stated_accuracy, s.conflicts_found) == (1.0, 1.0, 2)
    again = run_review(kb, settings, str(checklist), encoder=HashEncoder(), llm=llm)
    assert again[2] == 0 and [r.item_id for r in again[0]] == ["deadline", "bond", "performance"]


def test_a_to_check_row_counts_apart_and_the_drafts_give_the_checks_two_error_rates() -> None:
    gold = [
        gold_item("bid_validity", "90 days", page=13),
        gold_item("contract_term", "1095 days", page=11),
        gold_item("budget", None),
        gold_item("max_price", None),
        gold_item("evaluators", "5", page=14),
    ]
    rows = [
        # right draft withdrawn by the checks: "not stated" shown
        replace(row("bid_validity", "duration", "文件未说明。", verdict="not_stated"), extra={"draft": "90日"}),
        # right draft shown for the reviewer to check: right, but not found
        replace(row("contract_term", "duration", "1095日", verdict="to_check"), extra={"draft": "1095日"}),
        # an invention the checks stopped, and one they kept
        replace(row("budget", "amount", "文件未说明。", verdict="not_stated"), extra={"draft": "35万元"}),
        replace(row("max_price", "amount", "最高限价为100万元。"), extra={"draft": "最高限价为100万元。"}),
        # a draft that said "not stated": no draft to count
        replace(row("evaluators", "count", "文件未说明。", verdict="not_stated"), extra={"draft": "文件未说明。"}),
    ]
    result = score(rows, gold)
    outcomes = {s.item: s.outcome for s in result.items}
    assert outcomes["contract_term"] == "to_check_right" and outcomes["bid_validity"] == "missed"
    assert (result.to_check, result.to_check_right) == (1, 1)
    assert result.answerable_right == 0  # a to-check row is not found
    assert result.right_drafts == 2 and result.right_drafts_removed == ("bid_validity", "contract_term")
    assert result.inventions_drafted == 2 and result.inventions_kept == ("max_price",)
    assert result.wrong_drafts == 0 and result.wrong_drafts_kept == ()  # every stated item's draft was right


def test_the_sources_sent_tell_a_reader_failure_from_a_retrieval_miss() -> None:
    gold = [
        gold_item("bid_validity", "90 days", page=13, quote="3.3.1 投标有效期 自投标截止时间起 90 日内有效"),
        gold_item("evaluators", "5", page=14, quote="评标委员会构成： 5 人，其中招标人代表 0 人，专家 5 人；"),
        gold_item("price_weight", "10%", page=65, quote="| 六、價格 | 標價組成內容合理性 | 10 分 |"),
        gold_item("copies", "3", page=2, quote="正本一份，副本三份"),
        gold_item("budget", None),
    ]
    rows = [
        row("bid_validity", "duration", "60日"),  # misread, with the sentence in front of it
        replace(row("evaluators", "count", "文件未说明。", verdict="not_stated"), extra={"draft": "7"}),
        row("price_weight", "percentage", "20%"),
        row("copies", "count", "3"),  # right: neither
        row("budget", "amount", "文件未说明。", verdict="not_stated"),
    ]
    sent = {
        # wrapped over two lines and spaced differently: still the sentence
        "bid_validity": ["3.3 投标有效期\n3.3.1 投标有效期 自投标截止时\n间起 90 日内有效。"],
        "evaluators": ["评标办法前附表\n评标委员会构成：5人，其中招标人代表0人，专家5人；"],
        # another table row of the same table: not the gold row
        "price_weight": ["| 五、簡報 | 簡報及答詢 | 20 分 |"],
        "copies": ["正本一份，副本三份"],
        "budget": ["预算见附件"],
    }
    result = score(rows, gold, sent)
    by = {s.item: s.gold_sent for s in result.items}
    assert by == {"bid_validity": True, "evaluators": True, "price_weight": False, "copies": True, "budget": None}
    assert result.reader_failures == ("bid_validity", "evaluators")
    assert result.retrieval_misses == ("price_weight",)
    # a right draft the checks removed is the checks' error, not the reader's
    rows[1] = replace(rows[1], extra={"draft": "5"})
    assert score(rows, gold, sent).reader_failures == ("bid_validity",)
    # without the sources nothing is said either way
    assert score(rows, gold).reader_failures == () and not score(rows, gold).looked_up
