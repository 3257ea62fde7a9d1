"""Claim checking on hand-made sources: each verdict, table rows, "not stated" in the question's script, streaming."""

from __future__ import annotations

import pytest

from pikelocal.domain.answers import Source
from pikelocal.query.verify.check import ClaimStream
from pikelocal.query.verify.claims import facts_in, numbers_in, split_claims
from pikelocal.text.script import detect_script, in_script

RFP = (
    "一、本案採購預算金額為新臺幣35萬900元。\n"
    "二、廠商簡報時間不得超過15分鐘，詢答時間10分鐘。\n"
    "三、履約期限：決標次日起90日曆天內完成。"
)
SCORES = "評審項目 配分\n1 廠商履約能力 20\n2 執行計畫與預期成果 30\n3 價格合理性 20\n4 簡報及答詢 30\n"
JUDGMENT = (
    "The appellant was awarded damages of $1,442,404.50 at trial. The Court of Appeal allowed the appeal in part. "
    "The notice to complete gave the purchaser ten business days."
)


def source(number: int, text: str, title: str = "標案說明") -> Source:
    return Source(number, number, f"doc{number}.pdf", title, (number,), 3, 3, 1, 9, (), text)


def run(question: str, draft: str, sources: list[Source], *, step: int = 1) -> tuple[str, ClaimStream]:
    """Feed the draft ``step`` characters at a time, as a model streams it."""
    stream = ClaimStream(question, detect_script(question), sources)
    shown = "".join(stream.feed(draft[i : i + step]) for i in range(0, len(draft), step))
    return shown + stream.finish(), stream


def test_a_number_in_the_sentence_about_the_question_is_supported_and_cited_there() -> None:
    shown, stream = run("廠商簡報時間是多久？", "厂商简报时间不得超过15分钟 [2]。", [source(1, SCORES), source(2, RFP)])
    assert shown == "廠商簡報時間不得超過15分鐘 [2]。"  # traditional like the question, cited to its own source
    (claim,) = stream.claims
    assert claim.verdict == "supported" and claim.model_cited == (2,)
    assert claim.evidence is not None and claim.evidence.text == "二、廠商簡報時間不得超過15分鐘，詢答時間10分鐘。"


def test_a_number_bound_to_another_term_is_unsupported_and_the_answer_says_not_stated() -> None:
    # The case: no bid bond is set; the model reuses the budget and cites it.
    shown, stream = run("本案押標金金額是多少？", "本案押標金金額是新臺幣35萬900元 [1]。", [source(1, RFP)])
    assert shown == "文件中沒有說明這一點。"
    (claim,) = stream.claims
    assert claim.verdict == "unsupported" and claim.evidence is None
    assert "35萬900" in claim.reason or "35万900" in claim.reason


def test_a_table_row_binds_its_own_number_and_the_other_rows_number_contradicts() -> None:
    question = "評審項目「執行計畫與預期成果」佔多少權重？"
    right, stream = run(question, "執行計畫與預期成果佔30% [1]。", [source(1, SCORES)])
    assert right == "執行計畫與預期成果佔30% [1]。"
    assert stream.claims[0].evidence is not None and stream.claims[0].evidence.text == "2 執行計畫與預期成果 30"
    assert stream.claims[0].method == "table-row"
    wrong, stream = run(question, "執行計畫與預期成果佔20% [1]。", [source(1, SCORES)])
    assert wrong.startswith("文件中沒有說明")
    (claim,) = stream.claims
    assert claim.verdict == "contradicted"
    assert claim.evidence is not None and claim.evidence.text == "2 執行計畫與預期成果 30"


def test_a_claim_no_source_holds_is_dropped_and_the_supported_ones_stay() -> None:
    draft = "廠商簡報時間不得超過15分鐘 [1]。另外，廠商須繳交履約保證金50萬元 [1]。"
    shown, stream = run("廠商簡報時間是多久？", draft, [source(1, RFP)])
    assert shown == "廠商簡報時間不得超過15分鐘 [1]。"
    assert [c.verdict for c in stream.claims] == ["supported", "unsupported"]
    assert stream.claims[1].reason.endswith("is in no source")


def test_english_amounts_and_number_words_are_checked_by_value() -> None:
    sources = [source(1, JUDGMENT, "Elisha v Vision Australia")]
    shown, _ = run("What damages was the appellant awarded at trial?", "Damages of $1,442,404.50 [1].", sources)
    assert shown == "Damages of $1,442,404.50 [1]."
    shown, _ = run("How many business days did the notice to complete give?", "Ten business days.", sources)
    assert shown == "Ten business days [1]."  # the model cited nothing; the checked citation is added
    shown, stream = run("How many business days did the notice to complete give?", "Fourteen days [1].", sources)
    assert shown == "The documents do not state this."  # never the question with words cut out
    assert stream.claims[0].verdict == "contradicted"


def test_the_models_own_not_stated_is_kept_in_the_questions_script() -> None:
    shown, stream = run("本案押標金金額是多少？", "文档中没有说明押标金金额。", [source(1, RFP)])
    assert shown == "文件中沒有說明押標金金額。"
    assert stream.claims[0].verdict == "not_stated"


def test_filler_waits_for_a_supported_claim_and_goes_with_none() -> None:
    shown, _ = run("履約期限是多久？", "根據資料：\n履約期限為決標次日起90日曆天 [1]。", [source(1, RFP)])
    assert shown == "根據資料：\n履約期限為決標次日起90日曆天 [1]。"
    shown, _ = run("押標金是多少？", "根據資料：\n押標金為10萬元。", [source(1, RFP)])
    assert shown == "文件中沒有說明這一點。"


def test_a_list_keeps_its_lines_and_loses_the_unsupported_item() -> None:
    draft = "1. 簡報時間不得超過15分鐘 [1]。\n2. 押標金為5萬元 [1]。\n3. 詢答時間為10分鐘 [1]。"
    shown, _ = run("廠商簡報與詢答時間、押標金各為何？", draft, [source(1, RFP)], step=5)
    assert shown == "1. 簡報時間不得超過15分鐘 [1]。\n3. 詢答時間為10分鐘 [1]。"


@pytest.mark.parametrize("step", [1, 3, 7, 1000])
def test_streaming_in_any_pieces_gives_the_same_checked_answer(step: int) -> None:
    draft = "廠商簡報時間不得超過15分鐘[1]。詢答時間為10分鐘【1】。押標金為5萬元[1]。"
    shown, _ = run("廠商簡報與詢答時間各多久？", draft, [source(1, RFP)], step=step)
    assert shown == "廠商簡報時間不得超過15分鐘 [1]。詢答時間為10分鐘 [1]。"


def test_quotations_from_the_source_keep_their_characters() -> None:
    sources = [source(1, "第五条 投标有效期为90日历天。")]
    shown, _ = run("投標有效期是多久？", "依「投标有效期为90日历天」，有效期為90日曆天 [1]。", sources)
    assert shown == "依「投标有效期为90日历天」，有效期為90日曆天 [1]。"
    assert in_script(shown, "hant", keep=[sources[0].text]) and not in_script(shown, "hant")


def test_numbers_are_read_by_value_in_every_notation() -> None:
    assert numbers_in("新臺幣35萬900元") >= {"350900", "35", "900"}
    assert "188" in numbers_in("第一百八十八条") and "30" in numbers_in("三十日内") and "20" in numbers_in("百分之二十")
    assert "1442404.5" in numbers_in("$1,442,404.50") and "10" in numbers_in("ten business days")
    assert "1" not in numbers_in("统一规定，一般情况")  # 一 in a word is not a number
    assert [f.kind for f in facts_in("占30%，金额20万元，期限90天，第188条")] == [
        "amount",
        "percent",
        "duration",
        "article",
    ]


def test_a_clause_number_holds_no_figure_of_its_sentence() -> None:
    # the held-out switchgear tender, p. 19: its "3" was shown as a page limit of 3 pages
    assert numbers_in("3.6.3投标人提供两个或两个以上投标报价") == {"2"}
    assert numbers_in("10.2.1 投标有效期为90天") == {"90"}
    assert "25" in numbers_in("2025.10.25") and "15" in numbers_in("114.12.15")  # a dotted date is no clause
    shown, _stream = run(
        "服务建议书的页数上限是多少页？", "3 [1]", [source(1, "3.6.3投标人提供两个或两个以上投标报价，但同时提")]
    )
    assert shown == "文档中没有说明这一点。"


def test_claims_split_at_sentence_ends_and_keep_the_marker_after_the_stop() -> None:
    claims = split_claims("甲为15分钟。[1]乙为10分钟 [2]。\nThe fee is $5 [3]. Done")
    assert [c.cited for c in claims] == [(1,), (2,), (3,), ()]


def test_a_full_stop_after_a_title_or_an_initial_ends_no_claim() -> None:
    """2Wiki-50, trace 57: split at "Dr.", "The Testament Of Dr." was checked as a claim of its own, found
    unsupported and dropped, and the answer lost its title."""
    title = "The Testament Of Dr. Mabuse was released earlier, on April 20, 1960, compared to Fast Five."
    assert [c.text for c in split_claims(title, clauses=False)] == [title]
    assert [c.text.strip() for c in split_claims("George W. Bush was born in 1946. He was president.")] == [
        "George W. Bush was born in 1946.",
        "He was president.",
    ]
    assert len(split_claims("Pay e.g. by cheque. Mr. Li signs.")) == 2
    assert len(split_claims("The fee is 5. It ends.")) == 2  # a number before the stop still ends the claim


def test_scripts_are_told_apart() -> None:
    assert detect_script("本案押標金金額是多少？") == "hant"
    assert detect_script("本案押标金金额是多少？") == "hans"
    assert detect_script("What is the bid bond?") == "en"


FORM = (
    "9.5 行政监督部门\n行政监督部门：黄梅县水利和湖泊局\n地 址：黄梅县人民大道 682 号\n电 话：0713-3339668\n"
    "传 真：/\n押标金：5万元\n预算金额：35万元\n"
)


def test_a_form_row_is_bound_by_the_label_lines_above_it_but_not_through_another_amount() -> None:
    shown, stream = run("行政监督部门黄梅县水利和湖泊局的电话是多少？", "电话是0713-3339668。", [source(1, FORM)])
    assert shown == "电话是0713-3339668 [1]。"  # "行政监督部门：…" two lines up names the record; the address's
    assert stream.claims[0].evidence is not None  # number is of another kind and does not cut it off
    assert stream.claims[0].evidence.text == "电 话：0713-3339668"
    shown, stream = run("押标金是多少？", "押标金是35万元。", [source(1, FORM)])
    assert shown == "文档中没有说明这一点。"  # the line above holds another amount: it is another field
    assert stream.claims[0].verdict in ("unsupported", "contradicted")


def test_a_value_the_form_leaves_blank_is_not_an_answer() -> None:
    form = source(1, "1.本标段合同估算价为 / 万元，仅用于招投标过程中投标报价计算。")
    shown, stream = run("本标段合同估算价是多少？", "本标段的合同估算价为 / 万元。", [form])
    assert shown == "文档中没有说明这一点。"
    assert stream.claims[0].verdict == "unsupported" and "blank" in stream.claims[0].reason
    assert facts_in("估算价为 / 万元") == []  # a bare 万 before 元 is a unit, not the number 0


def test_two_facts_of_one_sentence_are_checked_each_against_its_own_source_sentence() -> None:
    tender = source(1, "投标保证金：人民币伍万元整。中标人应提交履约保证金，金额为中标合同金额的10%。")
    draft = "投标保证金 [1] 为人民币伍万元整（¥50,000），履约保证金 [1] 为中标合同金额的10%。"
    shown, stream = run("投标保证金和履约保证金分别是多少？", draft, [tender], step=4)
    assert shown == "投标保证金为人民币伍万元整（¥50,000） [1]，履约保证金为中标合同金额的10% [1]。"
    assert [c.verdict for c in stream.claims] == ["supported", "supported"]
    assert numbers_in("壹拾贰万叁仟元") == {"123000"}  # financial numerals, as tenders write amounts


SCORING = (
    "2.2.1 分值构成（总分100分）\n"
    "（1）投标报价： 10 分；\n"
    "（2）勘察设计方案： 35 分；\n"
    "（3）信誉与业绩： 30 分；\n"
    "（4）项目管理机构： 25 分；\n"
)


def test_a_scoring_row_supports_its_share_when_the_title_holds_the_rows_words() -> None:
    # The tender's title (…勘察设计招标文件) holds 勘察/察设/设计, so those terms do not count; the question's
    # other terms must not include bigrams across 在 and 占 (案在, 在总, 中占), or the row holds too few of them.
    title = "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件"
    question = "勘察设计方案在总分中占多少分？"
    right, stream = run(question, "勘察设计方案在总分中占35分 [1]。", [source(1, SCORING, title)])
    assert right == "勘察设计方案在总分中占35分 [1]。"
    assert stream.claims[0].evidence is not None and stream.claims[0].evidence.text == "（2）勘察设计方案： 35 分；"
    wrong, stream = run(question, "勘察设计方案在总分中占30分 [1]。", [source(1, SCORING, title)])
    assert wrong.startswith("文档中没有说明")  # 30 is the 信誉与业绩 row's
    assert stream.claims[0].verdict in ("unsupported", "contradicted")


def test_a_date_printed_with_leading_zeros_holds_the_same_numbers_as_the_answer_s() -> None:
    # 民生银行's notice prints 「2026 年 07 月 30 日」; the model answers 「2026年7月30日」: 7 is 07
    notice = "二、征询文件的获取：（1）获取时间：2026 年 07 月 30 日至 2026 年 08 月 06 日，每天 08:30 至 17:00 时。"
    shown, stream = run("征询文件的获取时间是什么时候？", "2026年7月30日至2026年8月6日 [1]。", [source(1, notice)])
    assert [c.verdict for c in stream.claims] == ["supported"], shown
    assert numbers_in("2026 年 07 月 06 日") == {"2026", "7", "6"} and numbers_in("0.50") == {"0.5"}
