"""The key-figures sheet: every amount, date, duration and percentage of a document with its
sentence, page, lines and nearest heading, made without a model. Pages and chunks are built by hand here, and the
expected rows (sentences, line numbers, headings) are read off those texts by hand; the last test ingests the
bundled sample tender and checks rows counted by hand in the file."""

from __future__ import annotations

from pathlib import Path

import pikelocal
from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.review import KeyFigure, Located
from pikelocal.review.figures import group_by_heading, key_figures
from pikelocal.text.sentences import sentence_spans

DOC = 7
TITLE = "道路改造工程招标文件"

PAGE_1 = [
    "城东片区道路改造工程招标文件",
    "第一章 招标公告",
    "第一条 项目概况",
    "本工程计划工期为240日历天，质量要求为合格。联系电话：0571-88888888。",
    "第二条 投标保证金",
    "投标人应在投标截止时间前提交投标保证金，金额为人民币伍万元整，并",  # wrapped: the sentence runs on
    "于合同签订后5日内退还。",
    "第 1 页",
]
PAGE_2 = [
    "第三条 履约保证金",
    "履约保证金为中标合同金额的10%，详见第5.2.1条。",
    "投标截止时间为民国114 年 12 月 15",  # the date wraps over the line end
    "日下午5时。",
    "2025年度工作计划另行通知。",
]


def page(page_no: int, lines: list[str], char_start: int = 0, doc_id: int = DOC) -> PageRecord:
    text = "".join(line + "\n" for line in lines)
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    return PageRecord(doc_id, page_no, text, tuple(offsets), char_start)


def chunk(ord_: int, start: int, end: int, path: tuple[str, ...], page_no: int | None) -> ChunkRecord:
    return ChunkRecord(
        id=100 + ord_, doc_id=DOC, ord=ord_, text="", char_start=start, char_end=end, page_start=page_no,
        page_end=page_no, line_start=None, line_end=None, section_path=path, header="", summary=None,
    )  # fmt: skip


def tender() -> tuple[list[PageRecord], list[ChunkRecord]]:
    first = page(1, PAGE_1)
    second = page(2, PAGE_2, char_start=len(first.text))
    end = second.char_start + len(second.text)
    # The splitter names an article by its number, and a chunk by the path where it starts: chunk 0 holds
    # 第一条 and 第二条 both.
    chunks = [
        chunk(0, 0, second.char_start, ("第一章 招标公告", "第一条"), 1),
        chunk(1, second.char_start, end, ("第一章 招标公告", "第三条"), 2),
    ]
    return [first, second], chunks


def row(figure: KeyFigure) -> tuple[str, str, str, int | None, int | None, int | None, str]:
    w = figure.where
    return figure.value.kind, figure.value.normal, figure.sentence, w.page, w.line_start, w.line_end, figure.heading


def test_key_figures_of_a_tender() -> None:
    pages, chunks = tender()
    bond = "投标人应在投标截止时间前提交投标保证金，金额为人民币伍万元整，并于合同签订后5日内退还。"
    assert [row(f) for f in key_figures(TITLE, DOC, pages, chunks)] == [
        ("duration", "240 days", "本工程计划工期为240日历天，质量要求为合格。", 1, 4, 4, "第一条 项目概况"),
        ("amount", "50000 CNY", bond, 1, 6, 7, "第二条 投标保证金"),
        ("duration", "5 days", bond, 1, 6, 7, "第二条 投标保证金"),
        ("percentage", "10%", "履约保证金为中标合同金额的10%，详见第5.2.1条。", 2, 2, 2, "第三条 履约保证金"),
        ("date", "2025-12-15", "投标截止时间为民国114 年 12 月 15 日下午5时。", 2, 3, 4, "第三条 履约保证金"),
    ]  # no phone number, clause number, page number or year alone


def test_figures_carry_where_they_stand() -> None:
    pages, chunks = tender()
    first = key_figures(TITLE, DOC, pages, chunks)[0]
    assert first.where == Located(DOC, TITLE, 1, 4, 4)
    assert first.value.text == "240日历天"


def test_group_by_heading_in_document_order() -> None:
    pages, chunks = tender()
    groups = group_by_heading(key_figures(TITLE, DOC, pages, chunks))
    assert [(heading, [f.value.normal for f in figures]) for heading, figures in groups] == [
        ("第一条 项目概况", ["240 days"]),
        ("第二条 投标保证金", ["50000 CNY", "5 days"]),
        ("第三条 履约保证金", ["10%", "2025-12-15"]),
    ]


def test_heading_from_the_chunk_where_no_line_shows_it() -> None:
    lines = ["保证金为人民币5万元。", "退还期限为合同签订后30天。"]
    only = page(1, lines)
    chunks = [chunk(0, 0, 12, ("第四章 合同条款", "保证金"), 1), chunk(1, 12, len(only.text), ("退还",), 1)]
    assert [(f.value.normal, f.heading) for f in key_figures(TITLE, DOC, [only], chunks)] == [
        ("50000 CNY", "保证金"),
        ("30 days", "退还"),
    ]


def test_unpaged_document_has_no_page() -> None:
    only = page(1, ["# 合同", "", "合同价款为新臺幣35萬900元。"])
    chunks = [chunk(0, 0, len(only.text), ("合同",), None)]
    [figure] = key_figures("合同", DOC, [only], chunks)
    assert figure.where == Located(DOC, "合同", None, 3, 3)
    assert (figure.value.normal, figure.heading) == ("350900 TWD", "合同")


def test_english_sentences() -> None:
    lines = [
        "## 4. Payment",
        "The Buyer shall pay A$5,000 to Dr. Smith within 14 days. Retention is 5 per cent.",
        "1. Interest accrues from 1 July 2025.",
    ]
    only = page(1, lines)
    assert [(f.value.normal, f.sentence, f.heading) for f in key_figures("Contract", DOC, [only], [])] == [
        ("5000 AUD", "The Buyer shall pay A$5,000 to Dr. Smith within 14 days.", "4. Payment"),
        ("14 days", "The Buyer shall pay A$5,000 to Dr. Smith within 14 days.", "4. Payment"),
        ("5%", "Retention is 5 per cent.", "4. Payment"),
        ("2025-07-01", "1. Interest accrues from 1 July 2025.", "4. Payment"),
    ]


def test_long_sentence_is_cut_to_its_clause() -> None:
    filler = "，".join(["本项内容不涉及任何金额要求"] * 12)
    only = page(1, [f"{filler}，保证金为5万元，{filler}。"])
    [figure] = key_figures(TITLE, DOC, [only], [])
    assert figure.sentence == "保证金为5万元"


def test_sentence_spans() -> None:
    text = "第一句。第二句；\nNo. 5 applies. Next one!\n短行\n下一行"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "第一句。", "第二句；", "No. 5 applies.", "Next one!", "短行", "下一行",
    ]  # fmt: skip


def test_sample_tender(tmp_path: Path) -> None:
    from pikelocal.config import Settings
    from pikelocal.embed.fake import HashEncoder
    from pikelocal.ingest.pipeline import IngestOptions, Ingestor
    from pikelocal.store.store import Store

    sample = Path(pikelocal.__file__).parent / "samples" / "道路改造工程招标文件（示例）.md"
    encoder = HashEncoder()
    with Store.open(tmp_path / "kb.kb", encoder_id=encoder.model_id, dim=encoder.dim) as store:
        Ingestor(store, encoder, IngestOptions.from_settings(Settings())).ingest_paths([sample])
        [doc] = store.docs.documents()
        pages = [p for n in store.docs.page_numbers(doc.id) if (p := store.docs.page(doc.id, n)) is not None]
        chunks = store.chunks.chunks_of(doc.id)
    figures = key_figures(doc.title or "", doc.id, pages, chunks)
    rows = {(f.value.kind, f.value.normal): (f.where.line_start, f.heading) for f in figures}
    # Lines counted by hand in the file: 9 (工期), 19 (保证金), 25 (履约保证金), 29 (截止时间).
    assert rows[("duration", "240 days")] == (9, "第一条 项目概况")
    assert rows[("date", "2026-12-15")] == (19, "第十条 投标保证金")
    assert rows[("amount", "50000 CNY")] == (19, "第十条 投标保证金")
    assert rows[("percentage", "10%")] == (25, "第十一条 履约保证金")
    assert rows[("date", "2026-12-20")] == (29, "第十二条 投标截止时间")
    # Line 35 scores in points: 总分100分，其中：投标报价40分，施工组织设计30分，项目管理机构15分，业绩与信誉15分.
    assert [f.value.normal for f in figures if f.where.line_start == 35] == [
        "100 points", "40 points", "30 points", "15 points", "15 points",
    ]  # fmt: skip
    assert len(figures) == 14  # 240天 5年 日期 伍万元 ¥50,000 5日 10% 28日 日期, and the five weights
