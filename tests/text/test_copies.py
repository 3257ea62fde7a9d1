"""The bid's copies as tenders print them (text/copies.py): totals read by hand from each form."""

from __future__ import annotations

import pytest

from pikelocal.text.copies import copies_statements, counts_the_bid


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("投标文件正本1套，副本4套", 5),
        ("17.1 投标文件正本一份和副本肆份，在每一份投标文件上要明确注明“正本”或“副本”字样。", 5),
        ("3. 递交要求：正本1份、副本4份，密封包装。", 5),
        ("正本份数：壹份；副本；份数：贰份。", 3),  # a stop between 副本 and its count, as a Word form printed it
        ("4、纸质响应文件数量：一正二副（归档备用）。", 3),
        ("提供磋商响应文件一正贰副（纸质文件）并密封。", 3),
        ("投标截止时间前将一正两副纸质投标文件送达。", 3),
        ("3）磋商响应文件一式三份（纸质文件归档备用）并密封。", 3),
        ("1、服務建議書一式 10 份，依相關規定送達本署。", 10),
        ("五、 投標廠商應提出服務建議書1 式8 份，併同其他投標文件投標及評選，", 8),  # PDF spacing
        ("服務建議書乙式 6 份。", 6),  # 乙式: Taiwan's 一式
        ("17.2 投标文件数量\n（1）投标文件正本 1 份；\n（2）投标文件副本 6 份；", 7),  # a numbered list's two items
    ],
)
def test_a_bid_s_copies_in_all_as_printed(text: str, total: int) -> None:
    found = list(copies_statements(text))
    assert [s.total for s in found] == [total]
    assert counts_the_bid(found[0])


@pytest.mark.parametrize(
    "text",
    [
        "本合同一式四份，甲乙双方各执贰份。",  # a contract's counterparts
        "本协议一式两份，甲乙双方各执一份。",
        "签署合同设备验收证书一式二份，双方各持一份。",  # a certificate
        "（1）卖方出具的交货清单正本一份；（2）发票正本一份，副本二份；",  # a delivery list, an invoice
        "有不一致时，应以纸质文件为准。纸质文件一式八份，应当加盖单位章。",  # in all, naming no bid
        "供货方需一式两份报告给业主。",
    ],
)
def test_other_papers_copies_are_no_count_of_the_bid(text: str) -> None:
    assert not any(counts_the_bid(s) for s in copies_statements(text))


@pytest.mark.parametrize(
    "text",
    [
        "投标文件正本一份，副本份数见投标人须知前附表。",  # the copies' count is elsewhere
        "提供营业执照副本及年度报告复印件。",
        "第一正文，二副标题。",  # 一正 … 副 not as a count
        "投标文件一式份。",  # a form's blank
    ],
)
def test_no_count_where_none_is_printed(text: str) -> None:
    assert [s.total for s in copies_statements(text) if counts_the_bid(s)] == []


def test_each_statement_in_the_order_it_stands_with_its_clause() -> None:
    text = "10 投标文件数量\n正本份数：壹份；副本；份数：贰份。\n投标截止时间前将一正两副纸质投标文件送达。"
    found = list(copies_statements(text))
    assert [(s.total, s.originals) for s in found] == [(3, 1), (3, 1)]
    assert found[0].start < found[1].start
    assert found[1].clause == "投标截止时间前将一正两副纸质投标文件送达"


def test_a_table_row_is_its_own_clause_and_a_bracketed_note_names_no_other_paper() -> None:
    # the Beijing Bank tender's 前附表 (one row a line): the row before is another field's; the note that copies may
    # be photocopies of the original is about these copies, not another paper's
    text = (
        "| 3.6.1 | 是否允许递交备选投标方案 | ☑不允许 □允许 |\n"
        "| 3.7.4 | 投标文件份数及其他要求 | 纸质文件：正本：1份；副本份数：6份"
        "（副本可采用正本盖章签字后的复印件）。 |\n"
    )
    (found,) = copies_statements(text)
    assert found.total == 7 and found.clause.startswith("| 3.7.4 |") and counts_the_bid(found)
    licence = next(copies_statements("营业执照（正本一份，副本一份）。"))
    assert not counts_the_bid(licence)  # a note's bracket removed, the licence is still named
