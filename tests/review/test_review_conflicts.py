"""Statements of an item's value found in the text without the LLM: the first value after a hint term in its
sentence, whatever the case of an English term, a table row a sentence of its own, and only values that differ
from the answer's reported."""

from __future__ import annotations

from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.review import ChecklistItem, Located
from pikelocal.review.checklist import load_checklist
from pikelocal.review.conflicts import Corpus, disagreeing, statements
from pikelocal.text.values import normalise


def corpus(*texts: str) -> Corpus:
    chunks = {
        n: [ChunkRecord(n * 10, n, 0, text, 0, len(text), None, None, None, None, (), "", None)]
        for n, text in enumerate(texts, start=1)
    }
    return Corpus({n: f"doc {n}" for n in chunks}, chunks, {n: [] for n in chunks})


def item(kind: str, *hints: str) -> ChecklistItem:
    return ChecklistItem("x", "x", kind, {"en": "?"}, hints)  # type: ignore[arg-type]


def test_an_english_term_matches_in_any_case_and_its_first_value_is_taken() -> None:
    found = statements(
        corpus("Warranty period: 24 months from delivery.", "The warranty period is 36 months, see clause 9."),
        item("duration", "warranty period"),
    )
    assert [(s.value.normal, s.where.doc_id) for s in found] == [("24 months", 1), ("36 months", 2)]


def test_a_table_row_is_a_sentence_of_its_own() -> None:
    table = "| term | value |\n|---|---|\n| Renewal term | 12 months |\n| Notice period | 90 days |\n"
    found = statements(corpus(table), item("duration", "renewal term"))
    assert [s.value.normal for s in found] == ["12 months"]
    assert [s.sentence for s in found] == ["| Renewal term | 12 months |"]


def test_a_comma_or_an_and_turns_the_sentence_to_another_subject() -> None:
    text = "投标保证金应于2025年10月25日前提交，金额为5万元。"
    assert statements(corpus(text), item("amount", "投标保证金")) == []
    assert [s.value.normal for s in statements(corpus(text), item("date", "投标保证金"))] == ["2025-10-25"]
    validity = item("duration", "投标有效期")
    assert statements(corpus("双方应在投标有效期内并在自中标通知书发出之日起30 天内订立合同。"), validity) == []
    assert [s.value.normal for s in statements(corpus("3.3.1 投标有效期 自投标截止时间起 90 日内有效"), validity)] == [
        "90 days"
    ]
    warranty = "If a Defect appears during the Warranty Period, the Supplier must repair it within 10 working days."
    assert statements(corpus(warranty), item("duration", "warranty period")) == []


def test_an_example_states_nothing() -> None:
    deadline = item("date", "投标截止日")
    text = "如投标截止日在6月30日以后，则上一年度数据是指上个年度数据，"
    text += "例如投标截止日为2014年7月1日，上一年度数据是2013年度的数据。"
    assert statements(corpus(text), deadline) == []
    text = "The bid closes at noon; for example, if the closing date is 3 May 2027, bids are opened the next day."
    assert statements(corpus(text), item("date", "closing date")) == []
    assert [s.value.normal for s in statements(corpus("投标截止日为2026年12月20日。"), deadline)] == ["2026-12-20"]


def test_a_date_is_read_past_a_duration_before_it() -> None:
    text = "This Agreement continues for an initial term of 36 months ending on 28 February 2030."
    assert [s.value.normal for s in statements(corpus(text), item("date", "initial term"))] == ["2030-02-28"]
    assert [s.value.normal for s in statements(corpus(text), item("duration", "initial term"))] == ["36 months"]


def weight(label: str, *hints: str) -> ChecklistItem:
    return ChecklistItem("w", label, "percentage", {"hans": "？"}, hints)


def test_points_state_a_weight_and_are_preferred_to_percentages_for_it() -> None:
    text = "评审时给予价格分5%的扣除。\n2.2.1 分值构成 (总分101.25分)\n"
    text += "（1）投标报价： 26.25 分；\n（1） 投标报价 （0～25分）\n"
    found = statements(corpus(text), weight("价格分权重", "价格分", "投标报价"))
    assert [s.value.normal for s in found] == ["26.25 points", "25 points"]


def test_points_do_not_state_an_item_that_is_no_weight() -> None:
    text = "按下列标准累计评分（最高得 14分）。违约金累计不超过合同总价的10%。"
    found = statements(corpus(text), weight("违约金上限", "累计", "不超过"))
    assert [s.value.normal for s in found] == ["10%"]


def test_counts_of_different_things_do_not_disagree() -> None:
    found = statements(
        corpus("评标委员会构成： 5 人。", "评标委员会成员的综合评分中去掉一个最高分。", "评标委员会由7人组成。"),
        item("count", "评标委员会"),
    )
    answer = normalise("5人", "count")
    assert answer is not None
    assert [s.value.normal for s in disagreeing(answer, found)] == ["7"]


def test_only_values_that_differ_from_the_answer_are_reported_once_each() -> None:
    found = statements(
        corpus("投标保证金为人民币5万元。", "投标保证金：50,000元。", "投标保证金为8万元。", "投标保证金8万元整。"),
        item("amount", "投标保证金"),
    )
    answer = normalise("5万元", "amount")
    assert answer is not None
    assert [s.value.number for s in disagreeing(answer, found)] == [80_000]


def test_an_english_term_is_matched_as_whole_words_only() -> None:
    text = "| 5 | Renewal | Successive renewal terms of 12 months; notice of non-renewal at least 90 days |"
    assert [s.value.normal for s in statements(corpus(text), item("duration", "renewal"))] == ["12 months"]


def asked(kind: str, label: str, question: str, *hints: str) -> ChecklistItem:
    return ChecklistItem("x", label, kind, {"hant": question}, hints)  # type: ignore[arg-type]


def test_a_count_in_another_measure_is_not_the_item_s() -> None:
    # the page limit asks 幾頁: the copies (份) of the same 服務建議書 are another fact, not a page limit in conflict
    page_limit = asked("count", "頁數上限", "服務建議書的頁數上限是幾頁？", "頁數", "服務建議書", "不得超過")
    text = "服務建議書一式8份，正本1份。服務建議書以30頁為限，不得超過30頁。"
    assert {s.value.normal for s in statements(corpus(text), page_limit)} == {"30"}


def test_a_passing_line_is_no_weight() -> None:
    # the 80-point passing line follows the technical score's term, but the concept nearest the value is 及格
    tech = asked("percentage", "技術配分", "技術部分在評分中所佔的權重是多少？", "技術", "配分")
    text = "技術評分總分達80分以上者為及格。技術配分為30分。"
    assert [s.value.normal for s in statements(corpus(text), tech)] == ["30 points"]


def test_a_period_counted_from_an_event_is_still_the_item_s() -> None:
    validity = asked("duration", "投標有效期", "投標有效期為多久？", "投標有效期")
    text = "投標有效期：自投標截止日起90日。"
    assert [s.value.normal for s in statements(corpus(text), validity)] == ["90 days"]


def test_an_amount_printed_with_spaces_is_one_statement() -> None:
    budget = asked("amount", "採購預算", "本案的採購預算金額是多少？", "預算", "預算金額")
    text = "本案採購預算金額為新臺幣 35 萬 900 元（含稅）。"
    assert [s.value.normal for s in statements(corpus(text), budget)] == ["350900 TWD"]


def test_a_term_inside_a_word_of_another_concept_states_nothing_of_the_item() -> None:
    # the contract's term asks 期限: 付款期限 is the payment's deadline; 履約期限 is the term itself
    term = asked("duration", "契約期間", "本契約的期間為多久？", "契約期間", "期限")
    text = "但涉及向補助機關申請核撥補助款者，付款期限為30工作天。\n履約期限為365日。"
    assert [s.value.normal for s in statements(corpus(text), term)] == ["365 days"]
    # the bid bond's 保证金 inside 履约保证金 is the performance bond's
    # a bid's validity asks 有效期: 协议有效期 is the agreement's term (协议 is a contract), not the bid's validity
    validity = asked("duration", "投标有效期", "投标有效期是多长时间？", "投标有效期", "有效期")
    text = "投标有效期：90天。期限届满未书面通知的，即视为延长协议有效期为一年。"
    assert [s.value.normal for s in statements(corpus(text), validity)] == ["90 days"]
    bond = asked("amount", "投标保证金", "投标保证金是多少？", "投标保证金", "保证金")
    text = "履约保证金为人民币10万元。投标人应提交保证金人民币5万元。"
    assert [s.value.normal for s in statements(corpus(text), bond)] == ["50000 CNY"]


def test_a_citation_s_whole_lines_are_read_back_and_a_missing_one_reads_nothing() -> None:
    # page 2 starts at offset 20 of the document; its lines start at 0, 12 and 30 within the page
    page_two = "並於接到廠商請款單據後\n15工作天內付款，但涉及補助款者\n付款期限為30工作天。\n"
    text = "第一頁的內容。\n" + " " * (20 - len("第一頁的內容。\n")) + page_two
    chunk = ChunkRecord(1, 1, 0, text, 0, len(text), None, None, None, None, (), "", None)
    lines = (0, page_two.index("15"), page_two.index("付款期限"))
    held = Corpus({1: "doc"}, {1: [chunk]}, {1: [(1, 0, (0,)), (2, 20, lines)]})
    assert held.lines_text(Located(1, "doc", 2, 2, 2)) == "15工作天內付款，但涉及補助款者\n"
    assert held.lines_text(Located(1, "doc", 2, 1, 2)).startswith("並於接到廠商請款單據後\n15工作天")
    # a line the page does not have, a page the document does not have, a document without pages: nothing
    assert held.lines_text(Located(1, "doc", 2, 9, 9)) == ""
    assert held.lines_text(Located(1, "doc", 7, 1, 1)) == ""
    assert corpus("付款期限為30工作天").lines_text(Located(1, "doc 1", None, 1, 1)) == ""


def test_a_proviso_states_an_exception_not_a_conflicting_value() -> None:
    text = "付款期限为收到发票后15个工作日。但涉及财政资金拨付的，付款期限为30个工作日。"
    assert [s.value.normal for s in statements(corpus(text), item("duration", "付款期限"))] == ["15 working days"]
    text = "（3）但申請補助款者，付款期限為30工作天。"
    assert statements(corpus(text), item("duration", "付款期限")) == []
    text = "The payment period is 30 days from the invoice. Provided that, where the Buyer disputes an amount, the "
    text += "payment period is 60 days. However, the payment period for retention is 90 days."
    assert [s.value.normal for s in statements(corpus(text), item("duration", "payment period"))] == ["30 days"]


def test_a_term_that_is_a_number_s_unit_names_no_subject() -> None:
    # 分鐘 after 14 is the unit of the presentation's time; the 7 minutes after it are the answers' time
    length = next(i for i in load_checklist("tender-zh").items if i.id == "presentation_length")
    text = "6 家以上，簡報及答詢時間各縮短為（14）分鐘及（7）分鐘為原則。"
    assert [s.value.normal for s in statements(corpus(text), length)] == ["14 minutes"]
    # as the PDF wraps it: a short line ends a sentence, so the last line's terms are its units alone
    text = "受評廠商家數未達 6 家時，簡報時間為（20）分鐘，答詢\n時間以（10）分鐘為原則；6 家以上，簡報及答詢時間以\n"
    text += "各縮短為（14）分鐘及（7）分鐘為原則。"
    assert [s.value.normal for s in statements(corpus(text), length)] == ["20 minutes"]


def test_a_citation_is_read_under_its_section_and_after_the_line_it_continues() -> None:
    # a table row whose cell wrapped: its label 「投标有效期」 stands on the line above the quoted one
    page = "四、符合性审查\n9 投标有效期 是否符合招标文件前附\n表要求（开标后 90 天）。\n10 其他要求：无\n"
    lines = (0, page.index("9 "), page.index("表要求"), page.index("10 "))
    chunk = ChunkRecord(
        1, 1, 0, page, 0, len(page), None, None, None, None, ("第二章 须知", "四、符合性审查"), "", None
    )
    held = Corpus({1: "doc"}, {1: [chunk]}, {1: [(1, 0, lines)]})
    assert held.context_text(Located(1, "doc", 1, 3, 3)) == (
        "第二章 须知 › 四、符合性审查\n9 投标有效期 是否符合招标文件前附\n表要求（开标后 90 天）。\n"
    )
    # a line that starts a field of its own (a number, a label and its colon) is read without the line above
    assert held.context_text(Located(1, "doc", 1, 4, 4)) == "第二章 须知 › 四、符合性审查\n10 其他要求：无\n"
    assert held.context_text(Located(1, "doc", 1, 9, 9)) == ""


def test_the_contract_s_counterparts_are_no_count_of_bid_copies() -> None:
    # 「本合同一式肆份」 counts the signed contract's counterparts: no statement of the bid's copies, while the
    # contract checklist's item on counterparts keeps it; the bid's copies are stated as their total (正本 and 副本
    # counted apart are one statement of 5, not of 1 and of 4)
    text = "投标文件正本1份，副本肆份。\n\n1.本合同一式肆份，甲方执叁份，乙方执壹份，具有同等法律效力。"
    copies = next(i for i in load_checklist("tender-zh").items if i.id == "copies")
    counterparts = next(i for i in load_checklist("contract-zh").items if i.id == "counterparts")
    assert [s.value.normal for s in statements(corpus(text), copies)] == ["5"]
    assert "4" in [s.value.normal for s in statements(corpus(text), counterparts)]
    # the shared tender's design papers, 「纸质文件一式八份」, are no count of the bid's
    assert statements(corpus("纸质文件一式八份，应当加盖单位章和项目负责人注册执业印章；"), copies) == []


def test_a_value_counted_from_the_period_s_end_is_not_its_length() -> None:
    # 阳西's bid guarantee form: the guarantee outlives the bid validity by 30 days; the validity itself is 90 days
    validity = asked("duration", "投標有效期", "投標有效期為多久？", "投标有效期", "投標有效期")
    text = "投标有效期 从提交投标文件的截止之日起 90 日历天。本保函自出具之日起至该投标有效期满后 30天内持续有效。"
    assert [s.value.normal for s in statements(corpus(text), validity)] == ["90 days"]
    warranty = asked("duration", "保固期", "保固期為多久？", "保固期")
    assert statements(corpus("保固期屆滿後30日內無息退還保固保證金。"), warranty) == []
    # 北京大学's bond letter: 「直到投标文件有效期后 30 天内有效」, after the period's name with no 满
    after = "16.1 投标有效期 90日历天（从开标日起计算）。保证金直到投标有效期后 30 天内有效。"
    assert [s.value.normal for s in statements(corpus(after), validity)] == ["90 days"]
    # a time longer than another (臺北捷運's guarantee: 「較…保固期長 90 日」) is no statement of either
    assert statements(corpus("其有效期應較契約規定之保固期長 90 日。"), warranty) == []


def test_the_committee_s_chair_is_no_count_of_its_members_and_people_count_in_any_measure_word() -> None:
    # 厦门国际银行: 「设主任评委1名」 after 评标委员会 counts the chair; 「5人」 answers a question asked in 名
    evaluators = next(i for i in load_checklist("tender-zh").items if i.id == "evaluators")
    text = "评标委员会由招标人代表和评审专家共5人组成。评标委员会设主任评委1名，负责主持整个评标工作。"
    text += "評選委員會置召集人1名。"
    assert [s.value.normal for s in statements(corpus(text), evaluators)] == ["5"]


def test_a_term_in_a_note_of_what_a_sum_includes_owns_no_value_after_it() -> None:
    # 含山's payment terms: 预付款 stands in the note 「（含预付款）」; the 97 % after it is a stage payment's
    advance = next(i for i in load_checklist("tender-zh").items if i.id == "advance_payment")
    text = "采购人向中标人支付合同金额的40%作为预付款，"
    text += "安装完成验收合格后付至合同价款的85%（含预付款）、项目审计后付至审核价的 97%。"
    assert [s.value.normal for s in statements(corpus(text), advance)] == []
    # a bracket that glosses the term before it is no note: 「商务部分（投标报价）为70分」 states the price's weight
    price = next(i for i in load_checklist("tender-zh").items if i.id == "price_weight")
    text = "第九条 评标采用百分制，其中商务部分（投标报价）为70分、技术部分为30分。"
    assert [s.value.normal for s in statements(corpus(text), price)] == ["70 points"]


def test_a_condition_s_bound_a_deduction_and_another_concept_s_deadline_state_nothing_of_the_item() -> None:
    items = {i.id: i for i in load_checklist("tender-zh").items}
    # 玉林: 「采购预算金额在1000万元以上」 says when a larger committee is needed
    text = "评标委员会成员人数应当为7人以上单数，采购预算金额在1000万元以上；采购预算为171867.3元。"
    assert [s.value.normal for s in statements(corpus(text), items["budget"])] == ["171867.3 元"]
    # 阳西: 「价格分别给予 1%的价格扣除」 is a deduction, not the price's weight
    text = "对节能产品或环境标志产品的价格分别给予 1%的价格扣除。价格分为15分。"
    assert [s.value.normal for s in statements(corpus(text), items["price_weight"])] == ["15 points"]
    # 厦门国际银行: the clarification's 截止时间 is not the bids'; 「递交投标文件的截止时间」 is
    text = "对招标文件提出澄清问题的截止时间：2026年5月12日17:00时。递交投标文件的截止时间：2026年5月25日9:30时。"
    assert [s.value.normal for s in statements(corpus(text), items["bid_deadline"])] == ["2026-05-25"]


def test_a_contract_signed_each_year_states_both_terms_and_is_set_against_neither() -> None:
    # 阳西, 交行: 「合同每年一签，合同期限均为 1 年」 beside a service of 24 months
    term = next(i for i in load_checklist("tender-zh").items if i.id == "contract_term")
    text = "服务期限：24个月。辅助及后勤服务合同每年一签，合同期限均为 1 年。"
    assert [s.value.normal for s in statements(corpus(text), term)] == ["24 months"]


def test_a_cap_is_stated_only_as_a_ceiling_of_the_damages() -> None:
    # the cap on damages (bound = "max"): 「累计不超过合同总价的10%」, not 银川's daily rate nor 华阳's humidity
    cap = next(i for i in load_checklist("tender-zh").items if i.id == "damages_cap")
    text = "每逾期1天，按合同总价0.5%支付违约金。相对湿度：日平均值不超过95%。逾期违约金累计不超过合同总价的10%。"
    assert [s.value.normal for s in statements(corpus(text), cap)] == ["10%"]


def test_a_weight_is_no_bound_and_a_supposed_case_states_nothing() -> None:
    items = {i.id: i for i in load_checklist("tender-zh").items}
    # 交行: a rule on prices, 「不得超过投标报价的 10%」, is no weight of the price
    text = "缺漏项部分报价不得超过投标报价的 10%。价格分为30分。"
    assert [s.value.normal for s in statements(corpus(text), items["price_weight"])] == ["30 points"]
    # the shared tender: 「如投标截止日为2025年10月1日，则近3年是指…」 explains a rule with a supposed date
    text = "2.近3 年是指从投标截止日往前推算的3 年，如投标截止日为2025 年10 月1 日，则近3 年是指2022 年10 月1 日起。"
    assert statements(corpus(text), items["bid_deadline"]) == []


def test_a_committee_of_one_is_another_count_and_a_date_a_period_away_is_not_the_item_s() -> None:
    # 北京银行: 「由评标委员会讨论确定一名候选人」 counts a candidate; 新北: 「委員互推一人」 the one who draws lots
    evaluators = next(i for i in load_checklist("tender-zh").items if i.id == "evaluators")
    text = "投标报价、技术部分得分都相同的，由评标委员会讨论确定一名候选人排列在前。评标委员会由5人组成。"
    assert [s.value.normal for s in statements(corpus(text), evaluators)] == ["5"]
    assert statements(corpus("由評選委員會委員互推一人抽籤。"), evaluators) == []
    # 民生银行: the bid deadline's sentence of a record three years back names a date three years before it
    deadline = next(i for i in load_checklist("tender-zh").items if i.id == "bid_deadline")
    text = "（1）响应文件递交截止时间：2026 年 08 月 11 日 9 时 30 分。"
    text += "6.响应方在本项目响应文件递交截止时间 3 年内（2023 年 8 月 1 日后 3 年内）在经营活动中没有重大违法记录。"
    assert [s.value.normal for s in statements(corpus(text), deadline)] == ["2026-08-11"]


def test_a_figure_wrapped_before_its_unit_is_read_whole() -> None:
    # 清华深圳's 商务要求: 「玖拾柒」 ends a short line and 「万元整」 starts the next; read alone it was 97 元
    text = "1 ★报价要求\n1.1.本项目财政预算控制总金额及最高限价为人民币玖拾柒\n"
    text += "万元整（¥970,000.00），超出预算的投标无效。\n"
    found = statements(corpus(text), item("amount", "最高限价"))
    assert [s.value.normal for s in found] == ["970000 CNY"]


def test_a_floor_on_a_criterion_s_marks_is_no_weight() -> None:
    # 华润万家's 评标办法: each criterion's lowest mark is no less than 60 % of its full marks, not the part's weight
    text = (
        "2.3.1.3.4除 2.3.1.3.3 条规定情况外，原则上技术评分表中每一项评标因素的最 \n"
        "高分不能低于该项满分的 90％，最低分不能低于该项满分的 60%。除特殊说明以\n"
    )
    technical = next(i for i in load_checklist("tender-zh").items if i.id == "technical_weight")
    assert statements(corpus(text), technical) == []


def test_a_delay_or_a_case_reached_states_no_term() -> None:
    # 东莞理工学院's contract: the works' delays, and the case where a delay passes a limit, are no term of 63 days
    text = (
        "合同履行期限为 63 天。\n"
        "7、因成交供应商原因导致施工工期延误，每延误工期1天采购人有权要求成交供应商承担合同金额的1%作为违约金。\n"
        "如因甲方原因导致工期延误超过3个月的，乙方有权暂停施工，待甲方通知后恢复施工。\n"
        "因乙方原因导致工期延误的，延误超过甲乙双方约定工期3天以上（包括3天）的，甲方有权要求乙方支付违约金；\n"
    )
    found = statements(corpus(text), item("duration", "合同履行期限", "工期"))
    assert [s.value.normal for s in found] == ["63 days"]


def test_a_criterion_s_points_in_the_part_s_row_are_no_weight_of_the_part() -> None:
    table = "| 分值构成 | 商务部分10.0分 技术部分60.0分 报价得分30.0分 | |\n"
    table += "| 技术部分 | 技术响应情况 (36.0分)，（等次） |\n"
    found = statements(corpus(table), weight("技术分权重", "技术部分"))
    assert [s.value.normal for s in found] == ["60 points"]


def test_a_validity_whose_sentence_is_about_the_contract_is_not_the_bids() -> None:
    # 中邮人寿's contract (11.2) beside its 磋商有效期: the contract's two years are no validity of the bids
    validity = asked("duration", "投标有效期", "投标有效期是多长时间？", "投标有效期", "有效期")
    text = "磋商有效期：180个日历日。\n11.2 本合同自双方签字盖章之日起生效，有效期为2年。\n"
    assert [s.value.normal for s in statements(corpus(text), validity)] == ["180 days"]
    # a sentence naming the bids keeps its validity, whatever it says of the contract too
    both = "合同签订前，投标有效期为90天。"
    assert [s.value.normal for s in statements(corpus(both), validity)] == ["90 days"]
