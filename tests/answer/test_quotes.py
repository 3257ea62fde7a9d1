"""Quote, then answer: the reply parsed, each quote found in the sources (wrapped, OCR'd, tabular and converted-script
text), an invented quote dropped, and the answer kept only where its quote bears it."""

from __future__ import annotations

import pytest

from pikelocal.domain.answers import Source
from pikelocal.prompts.quote import Quote, QuotedReply, parse_quoted, quote_messages
from pikelocal.query.answer.quote_check import _measure_asked, check_reply
from pikelocal.query.verify.quotes import fold, locate

WRAPPED_CELL = "| 期別 | 提送期限 |\n| 第一期專案報告書 | 於 114 年 12 月 15\n日前提送至本會 |\n| 第二期 | 另定 |"
RULES_OCR = "(三)、廠商參與簡報相關成員不得超遇【 4 】人。\n(四)、簡報時間不得超過【 15 】分鐘。"
DEPOSIT = "第十条 投标保证金\n投标保证金为人民币伍万元（50,000元），应于投标截止时间前提交。"
PAGES = "服务建议书总页数不超过30页（含附件），正本1份、副本【8】份。"


def source(number: int, text: str, title: str = "招标文件") -> Source:
    return Source(number, 1, "rfp.pdf", title, (number,), 3, 3, 1, 9, (), text)


def test_a_reply_is_parsed_into_quotes_and_an_answer() -> None:
    reply = parse_quoted("原文：[2] “廠商參與簡報相關成員不得超過【 4 】人”\n答案：4人")
    assert reply == QuotedReply((Quote(2, "廠商參與簡報相關成員不得超過【 4 】人"),), "4人")
    assert parse_quoted("**Quote:** [1] The term is 3 years.\n**Answer:** 3 years").answer == "3 years"
    assert parse_quoted("原文：无\n答案：文档中没有说明").quotes == ()
    two = parse_quoted("原文：\n[1] 甲方负责设计。\n[3] 乙方负责施工。\n答案：甲方、乙方")
    assert [q.number for q in two.quotes] == [1, 3]
    assert parse_quoted("4人") == QuotedReply((), "4人")  # no labels: an answer without a quote


def test_the_prompt_asks_for_the_quote_first_in_the_questions_script() -> None:
    (system, user) = quote_messages("簡報時間不得超過幾分鐘？", "zh", "hant", [(1, "評選須知", RULES_OCR)])
    assert user.content.endswith("問題: 簡報時間不得超過幾分鐘？")
    assert user.content.index("“原文：”") < user.content.index("“答案：”") < user.content.index("[1] 出處: 評選須知")
    (_, english) = quote_messages("What is the term?", "en", "en", [(1, "Lease", "The term is 3 years.")])
    assert english.content.endswith("Question: What is the term?")


def test_folding_drops_spaces_breaks_and_punctuation_and_converts_the_script() -> None:
    assert fold("於 114 年 12 月 15\n日前").text == "于114年12月15日前"
    assert fold("ＡＢＣ，１２３").text == "abc123"
    folded = fold("a b")
    assert folded.offsets == (0, 2)


def test_a_quote_wrapped_over_two_lines_of_a_table_cell_is_found_whole() -> None:
    cell = source(1, WRAPPED_CELL)
    found = locate("於114年12月15日前提送至本會", [cell])
    assert found is not None and found.share == 1.0
    assert found.text == "於 114 年 12 月 15\n日前提送至本會"


def test_an_ocr_slip_is_found_by_the_fuzzy_match_and_an_invention_is_not() -> None:
    rules = source(1, RULES_OCR)
    found = locate("廠商參與簡報相關成員不得超過【4】人", [rules])
    assert found is not None and 0.8 <= found.share < 1.0
    assert found.text.startswith("廠商參與簡報") and found.text.endswith("人")
    assert locate("廠商得派10人以上參與簡報並提出口頭說明", [rules]) is None


def test_a_traditional_quote_finds_a_simplified_source_and_the_named_source_comes_first() -> None:
    deposit = source(2, DEPOSIT)
    other = source(1, "投标保证金为人民币伍万元。")
    found = locate("投標保證金為人民幣伍萬元", [other, deposit], prefer=2)
    assert found is not None and found.source.number == 2
    assert found.text == "投标保证金为人民币伍万元"


def test_the_answer_is_kept_only_where_its_quote_bears_it() -> None:
    sources = [source(1, RULES_OCR), source(2, PAGES)]
    asked = "簡報時間不得超過幾分鐘？"
    quote = (Quote(1, "簡報時間不得超過【 15 】分鐘"),)
    ok = check_reply(QuotedReply(quote, "15分鐘"), asked, sources)
    assert [c.evidence.source for c in ok.checks if c.evidence] == [1]
    assert ok.checks[0].evidence is not None and "15" in ok.checks[0].evidence.text
    # the number is not in its quote: dropped, though 30 stands in another source
    wrong = check_reply(QuotedReply(quote, "30分鐘"), asked, sources)
    assert not wrong.checks and "does not stand in its quote" in wrong.reason
    invented = check_reply(QuotedReply((Quote(2, "簡報時間為20分鐘"),), "20分鐘"), asked, sources)
    assert not invented.checks and "invention" in invented.reason
    # no quote, or none that bears it: the answer is checked as a claim against every sentence (the second line)
    (unquoted,) = check_reply(QuotedReply((), "15分鐘"), asked, sources).checks
    assert unquoted.method == "claim" and unquoted.evidence is not None and "15" in unquoted.evidence.text
    assert check_reply(QuotedReply((), "25分鐘"), asked, sources).reason == "no quote"


def test_a_quote_that_restates_the_question_keeps_the_part_that_stands_in_the_source() -> None:
    rules = source(1, RULES_OCR)
    found = locate("本招標文件規定簡報時間不得超過【15】分鐘", [rules])
    assert found is not None and found.text == "簡報時間不得超過【 15 】分鐘"


def test_a_quote_about_something_else_does_not_carry_the_answer() -> None:
    sources = [source(1, RULES_OCR), source(2, PAGES)]
    reply = QuotedReply((Quote(2, "正本1份、副本【8】份"),), "8份")
    assert check_reply(reply, "服务建议书需要准备几份副本？", sources).checks
    assert not check_reply(reply, "投标保证金是多少？", sources).checks


def test_a_fact_cut_from_its_quote_is_found_in_the_sentence_the_quote_came_from() -> None:
    sources = [source(1, DEPOSIT)]
    reply = QuotedReply((Quote(1, "投标保证金为人民币伍万元"),), "伍万元")  # 50,000 by value
    (check,) = check_reply(reply, "投标保证金是多少？", sources).checks
    assert check.evidence is not None and check.evidence.text == "投标保证金为人民币伍万元"
    cut = QuotedReply((Quote(1, "应于投标截止时间前提交"),), "50,000元")  # the amount stands earlier in the sentence
    (check,) = check_reply(cut, "投标保证金是多少？", sources).checks
    assert check.evidence is not None and "50,000" in check.evidence.text


def test_yes_no_answers_need_a_quote_about_the_question() -> None:
    law = source(1, "第五百零九条 当事人应当按照约定全面履行自己的义务。")
    reply = QuotedReply((Quote(1, "当事人应当按照约定全面履行自己的义务"),), "是")
    assert check_reply(reply, "当事人是否应当按照约定全面履行义务？", [law]).checks
    assert not check_reply(reply, "投标保证金是否可以退还？", [law]).checks


def test_a_list_answer_is_kept_when_every_item_stands_in_a_quote() -> None:
    sources = [source(1, "投标人资格要求：具有水利行业甲级资质。"), source(2, "投标人资格要求：负责人须具有高级职称。")]
    quotes = (Quote(1, "具有水利行业甲级资质"), Quote(2, "负责人须具有高级职称"))
    kept = check_reply(QuotedReply(quotes, "水利行业甲级资质、高级职称"), "投标人资格要求有哪些？", sources)
    assert {c.evidence.source for c in kept.checks if c.evidence} == {1, 2}
    dropped = check_reply(QuotedReply(quotes, "水利行业甲级资质、注册资本1000万元"), "投标人资格要求有哪些？", sources)
    assert not dropped.checks


def test_an_answer_of_the_wrong_kind_is_not_kept() -> None:
    pay = source(1, "剩余尾款至项目评价结束后结清。\n第一百八十八条 向人民法院请求保护民事权利的诉讼时效期间为三年。")
    words = check_reply(QuotedReply((Quote(1, "剩余尾款至项目评价结束后结清"),), "项目评价结束后结清"),
                        "项目评价结束后多少日内结清剩余尾款？", [pay])  # fmt: skip
    assert not words.checks and "asks for a number" in words.reason
    article = QuotedReply((Quote(1, "向人民法院请求保护民事权利的诉讼时效期间为三年"),), "诉讼时效")
    assert "which article" in check_reply(article, "诉讼时效期间为三年的是第几条？", [pay]).reason


def test_a_bare_short_number_needs_its_quote() -> None:
    form = source(1, "第三节 合同附件格式\n合同协议书一式 份，联合体成员和招标人各执一份。")
    blank = QuotedReply((Quote(1, "合同协议书一式 份"),), "3")
    assert not check_reply(blank, "合同协议书一式几份？", [form]).checks  # "第三节" holds a 3, not the copies
    assert check_reply(QuotedReply((), "3份"), "合同协议书一式几份？", [source(1, "合同协议书一式3份。")]).checks


def test_a_bare_number_without_a_quote_stands_before_the_questions_measure_word() -> None:
    rules = source(1, "(三)、廠商參與簡報相關成員不得超過【 4 】人。\n(四)、簡報時間不得超過【 15 】分鐘。")
    (kept,) = check_reply(QuotedReply((), "4"), "廠商參與簡報的人員最多幾人？", [rules]).checks
    assert kept.method == "claim" and kept.evidence is not None and "【 4 】人" in kept.evidence.text
    assert not check_reply(QuotedReply((), "15"), "廠商參與簡報的人員最多幾人？", [rules]).checks  # 15 分鐘, not 人
    form = source(1, "第三节 合同附件格式\n合同协议书一式 份，联合体成员和招标人各执一份。")
    assert not check_reply(QuotedReply((), "3"), "合同协议书一式几份？", [form]).checks


def test_a_yes_no_answer_without_a_quote_must_agree_with_the_negation_of_the_sentence_about_it() -> None:
    rules = source(1, "(五)、簡報時不得播放影片，亦不得變更服務建議書內容。\n(六)、廠商得攜帶筆記型電腦。")
    question = "簡報時可以播放影片嗎？"
    (kept,) = check_reply(QuotedReply((), "否"), question, [rules], kind="yesno").checks
    assert kept.method == "polarity" and kept.evidence is not None and "不得播放影片" in kept.evidence.text
    assert not check_reply(QuotedReply((), "是"), question, [rules], kind="yesno").checks


def test_a_when_question_may_be_answered_by_an_event() -> None:
    text = "1 Name of Act\n2 Commencement\nThis Act shall commence on the date of assent to this Act."
    act = source(1, text, "Contracts Review Act 1980 (NSW)")
    reply = QuotedReply(
        (Quote(1, "This Act shall commence on the date of assent to this Act."),), "on the date of assent"
    )
    assert check_reply(reply, "When does the Contracts Review Act commence?", [act]).checks


def test_a_bare_number_is_found_in_the_row_holding_what_the_question_quotes() -> None:
    rows = "評分項目 配分\n廠商履約能力與相關經驗 20\n執行計畫與預期成果 30\n人力配置與督導機制 20"
    table = source(1, "三、評分項目及配分如下：\n" + rows)
    reply = QuotedReply((Quote(1, "評分項目及配分如下："),), "30")  # the model quoted the table's title line
    (kept,) = check_reply(reply, "評分項目「執行計畫與預期成果」的配分是多少？", [table]).checks
    assert kept.evidence is not None and kept.evidence.text == "執行計畫與預期成果 30"
    assert not check_reply(reply, "評分項目的配分是多少？", [table]).checks  # nothing quoted: 30 could be any row's


def test_a_date_with_its_roc_year_converted_wrongly_is_read_as_its_quote_prints_it() -> None:
    text = "四、截止投標\n（三） 截止期限為民國 115年1月27日上午9時40分。\n（四） 開標時間為民國 115年1月27日上午10時。"
    sources = [source(1, text)]
    quote = (Quote(1, "截止期限為民國 115年1月27日上午9時40分"),)
    # 115 + 1900 = 2015: the reader's conversion, not the document's; shown as printed (115 + 1911 = 2026)
    kept = check_reply(QuotedReply(quote, "2015年1月27日9:40"), "截止投標時間是何時？", sources)
    assert kept.checks and kept.answer == "115年1月27日9:40"
    # the right conversion is kept too, written with the ROC year so that its digits stand in the quote
    right = check_reply(QuotedReply(quote, "2026年1月27日"), "截止投標時間是何時？", sources)
    assert right.checks and right.answer == "115年1月27日"
    # another day is not a conversion: still withdrawn
    assert not check_reply(QuotedReply(quote, "2015年1月28日"), "截止投標時間是何時？", sources).checks


def test_a_bare_count_stands_before_a_measure_word_of_the_same_thing() -> None:
    committee = "评标委员会构成： 5 人，其中招标人代表 0 人，专家 5 人；"
    sources = [source(1, "评标委员会由招标人代表和专家组成。"), source(2, committee)]
    quote = (Quote(1, "评标委员会由招标人代表和专家组成"),)  # the sentence without the number
    # 多少名 is answered by 「5 人」: 名 and 人 both count people
    (check,) = check_reply(QuotedReply(quote, "5"), "评标委员会由多少名成员组成？", sources).checks
    assert check.evidence is not None and check.evidence.source == 2
    # a number that stands before no measure word of people is still not kept
    assert not check_reply(QuotedReply(quote, "3"), "评标委员会由多少名成员组成？", sources).checks


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        ("评标委员会由多少名成员组成？", "名"),
        ("服務建議書需要幾份？", "份"),
        # an English question about a Chinese document counts in the document's measure words
        ("How many printed copies of the technical proposal are requested?", "份"),
        ("What is the minimum passing score in the evaluation?", "分"),
        ("How many members sit on the evaluation committee?", "人"),
        ("When is the deadline for bids?", ""),
    ],
)
def test_the_measure_a_question_counts_in(question: str, measure: str) -> None:
    assert _measure_asked(question) == measure


@pytest.mark.parametrize(
    ("quote", "text", "expected"),
    [
        (
            "投标保证金的金额：投标报价的 1.5-2",
            "投标保证金的金额：投标报价的 1.5-2%。\n",
            "投标保证金的金额：投标报价的 1.5-2%",
        ),
        ("履约保证金为合同总价的 10", "履约保证金为合同总价的 10 ％，", "履约保证金为合同总价的 10 ％"),
        ("逾期违约金每日 1", "逾期违约金每日 1‰，", "逾期违约金每日 1‰"),
        ("1,442,404.50 in damages", "the award was $1,442,404.50 in damages.", "$1,442,404.50 in damages"),
        ("共5份", "正本共5份，副本", "共5份"),  # no sign beside the number: the quote's own span
    ],
)
def test_a_quote_keeps_the_sign_of_the_number_at_its_ends(quote: str, text: str, expected: str) -> None:
    found = locate(quote, [source(1, text)])
    assert found is not None and found.text == expected


def test_a_date_wrapped_in_a_form_s_short_lines_is_found_though_a_comma_stands_in_brackets_before_it() -> None:
    # 肥西's notice (PDF text, short lines read as a table): the right date, quoted from another sentence, is found
    # in the wrapped clause; the comma inside 「（投标截止时间，下同）」 does not end that clause
    notice = (
        "4.3 招标文件价格：每套人民币 0 元。\n5. 投标文件的递交\n"
        "投标文件递交的截止时间（投标截止时间，下同）为2025 年 12\n"
        "月 05 日 10 时 00 分，投标人应在投标截止时间前通过安徽合肥公共\n"
        "资源交易中心电子交易系统【新版】\n6. 资格审查方式\n本项目采用资格后审方式进行资格审查。\n"
    )
    reply = QuotedReply((Quote(1, "投标截止时间以电子交易系统显示的时间为准"),), "2025年12月05日10时00分")
    verdict = check_reply(reply, "投标截止时间是什么时候？", [source(1, notice)])
    assert len(verdict.checks) == 1
    evidence = verdict.checks[0].evidence
    assert evidence is not None and evidence.text.startswith("投标文件递交的截止时间（投标截止时间，下同）为2025 年 12")
    wrong = QuotedReply((Quote(1, "投标截止时间以电子交易系统显示的时间为准"),), "2025年12月06日10时00分")
    assert not check_reply(wrong, "投标截止时间是什么时候？", [source(1, notice)]).checks  # another day: not kept


def test_a_yes_quoted_from_a_clause_keeping_trade_secrets_is_about_confidentiality() -> None:
    # 苏州工业园区's contract wraps its clause over two lines; 商业秘密 is what the duty of confidence keeps
    text = "第四条 三方承诺在履行合同时不进行有损各方形象、声誉等的行为，保守在履\n行本合同过程中获知的对方商业秘密。\n"
    contract = Source(1, 1, "contract.pdf", "合同", (1,), 1, 1, 1, 9, (), text + "第五条 付款\n")
    reply = QuotedReply(
        (
            Quote(1, "三方承诺在履行合同时不进行有损各方形象、声誉等的行为，保守在履"),
            Quote(1, "行本合同过程中获知的对方商业秘密。"),
        ),
        "是",
    )
    verdict = check_reply(reply, "中标人是否负有保密义务？", [contract], kind="yesno")
    assert [c.verdict for c in verdict.checks] == ["supported"]
    # the same clause keeping the other side's reputation only is no duty of confidence
    fame = Source(1, 1, "contract.pdf", "合同", (1,), 1, 1, 1, 9, (), text.replace("商业秘密", "声誉"))
    assert not check_reply(reply, "中标人是否负有保密义务？", [fame], kind="yesno").checks
