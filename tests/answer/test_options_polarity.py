"""Multiple choice and true/false decided on the sources: each option scored against the sources'
sentences (``query/answer/options_check.py``), a statement read term by term with its polarity
(``query/answer/polarity.py``), and both through quote-then-answer with a scripted model
(``query/answer/quoted.py``)."""

from __future__ import annotations

from pikelocal.domain.answers import Source
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.quote import Quote, QuotedReply
from pikelocal.query.answer.decide import decide
from pikelocal.query.answer.options_check import Choices, choose, parse_choices, score_options
from pikelocal.query.answer.polarity import Passages, read_statement, statement_of, terms
from pikelocal.query.answer.quote_check import check_reply
from pikelocal.query.answer.quoted import quoted_answer
from pikelocal.text.question_kind import question_kind

FEES = (
    "Penalty doctrine – Honour fee – Dishonour fee – Late payment fee – Non-payment fee – Over limit fee. "
    "19 The Federal Court litigation concerns fees identified as honour, dishonour, and non-payment fees charged by "
    "the ANZ, and fees identified as over limit and late payment fees. 21 The primary judge found that the late "
    "payment fee was payable upon breach of contract and therefore was capable of characterisation as a penalty. "
    "The ANZ has not sought to appeal against that finding. 22 However, in respect of the honour, dishonour, "
    "non-payment and over limit fees the primary judge held that these were not charged by the ANZ upon breach of "
    "contract by the customer."
)
REGISTRY = (
    "16 The litigation was instituted and has been conducted in the Victorian District Registry of the Federal Court."
)
VICTORIAN = (
    "The litigation was instituted and has been conducted in the Victorian District Registry of the Federal Court."
)
MEETING = (
    "18 On 27 May 2015, a meeting was held between Ms Hauser, Ms Eagle, Mr Van Dyk and Mr Gow-Hills. Ms Eagle "
    "recommended that Ms Trch's account of the events be preferred over Mr Elisha's account. That recommendation "
    "was accepted. [Ms Hauser] thought [Mr Elisha] presented himself very arrogantly and showed no remorse."
)
ORDERS = (
    "7 Where the Court finds a contract to have been unjust, it may do any one or more of the following: (a) it may "
    "decide to refuse to enforce any or all of the provisions of the contract, (b) it may make an order declaring "
    "the contract void, in whole or in part, (c) it may make an order varying, in whole or in part, any provision of "
    "the contract. 5 Act binds Crown This Act binds the Crown not only in right of New South Wales but also the "
    "Crown in all its other capacities."
)
TF = "Begin the answer with True or False."
MCQ = "Begin the answer with the letter(s) of the correct option(s), e.g. B or A, C."


def source(number: int, text: str, title: str = "Andrews v ANZ") -> Source:
    return Source(number, number, f"doc{number}.pdf", title, (number,), 1, 1, 1, 9, (), text)


def case(statement: str) -> str:
    return f"In the case of Andrews v Australia and New Zealand Banking Group Limited [2012] HCA 30, {statement}"


# --- polarity ----------------------------------------------------------------------------------------------------


def test_a_negation_negates_the_words_after_it_up_to_the_clause_but_not_names_nor_not_only() -> None:
    negated = {t.key for t in terms("these were not charged by the ANZ upon breach, nor was it an event") if t.negated}
    assert {"charge", "breach"} <= negated and "anz" not in negated and "event" in negated
    assert not any(t.negated for t in terms("This Act binds the Crown not only in right of New South Wales"))
    assert not any(t.negated for t in terms("Construct had not paid Mr McCourt") if t.key == "mccour")
    assert any(t.negated and t.key == "remors" for t in terms("showed no remorse"))


def test_chinese_negations_and_the_exception_of_chu_wai() -> None:
    forbidden = {t.key: t.negated for t in terms("簡報時不得播放影片")}  # keys in simplified characters
    assert forbidden["播放"] and forbidden["影片"] and not forbidden["简报"]
    assert "不得" not in forbidden and "得播" not in forbidden and "时播" not in forbidden  # no pair across 不得
    assert not any(t.negated for t in terms("簡報時可以播放影片"))
    excepted = {t.key: t.negated for t in terms("除联合体外，投标人均可参加")}
    assert excepted["联合"] and not excepted["投标"]


def test_the_statement_is_read_without_its_scope_and_the_benchmark_tail() -> None:
    assert statement_of(case("the ANZ appealed. True or False?")) == "the ANZ appealed."
    assert (
        statement_of("According to the Contracts Review Act 1980, the Act binds the Crown.")
        == "the Act binds the Crown."
    )
    assert statement_of("投标保证金是否可以采用银行保函形式？") == "投标保证金可以采用银行保函形式"


def test_a_statement_said_with_the_opposite_polarity_is_contradicted() -> None:
    passages = Passages.of([source(1, FEES)])
    appealed = read_statement(
        statement_of(
            case(
                "the ANZ appealed against the primary judge's finding that the late "
                "payment fee was payable upon breach of contract."
            )
        ),
        passages,
    )
    assert appealed.verdict == "contradicts" and "appeal" in appealed.against
    charged = read_statement(
        "the honour, dishonour, non-payment and over limit fees were charged by the ANZ upon "
        "breach of contract by the customer",
        passages,
    )
    assert charged.verdict == "contradicts" and charged.passage is not None and "not charged" in charged.passage.text
    remorse = read_statement("Ms Hauser believed that Mr Elisha showed remorse.", Passages.of([source(1, MEETING)]))
    assert remorse.verdict == "contradicts" and remorse.against == ("remors",)
    crown = read_statement(
        "the Act does not bind the Crown in right of New South Wales", Passages.of([source(1, ORDERS)])
    )
    assert crown.verdict == "contradicts"


def test_another_name_in_the_same_slot_contradicts_and_the_same_sentence_agrees() -> None:
    passages = Passages.of([source(1, REGISTRY)])
    nsw = read_statement(
        "the litigation was instituted and has been conducted in the New South Wales District "
        "Registry of the Federal Court.",
        passages,
    )
    assert nsw.verdict == "contradicts" and nsw.against == ("new", "south", "wale")
    victorian = read_statement(
        "the litigation was instituted and has been conducted in the Victorian District Registry of the Federal Court.",
        passages,
    )
    assert victorian.verdict == "agrees"
    unrelated = read_statement("the lease was terminated for non-payment of rent in 2019", passages)
    assert unrelated.verdict == "unknown"


# --- options -----------------------------------------------------------------------------------------------------


def test_options_are_read_off_the_question_with_their_aggregates() -> None:
    question = (
        '"What is the claim for declaratory relief?" A) The provisions are void. B) The fees must be repaid. '
        "C) Both (A) and (B) are part of the claim. D) All of the above."
    )
    choices = parse_choices(question)
    assert choices is not None and choices.stem == "What is the claim for declaratory relief?"
    assert [o.letter for o in choices.options] == ["A", "B", "C", "D"]
    assert choices.options[2].covers == {"A", "B"} and choices.options[3].covers == {"A", "B", "C"}
    zh = parse_choices("下列哪一项属于无效合同？A．以合法形式掩盖非法目的 B．显失公平 C．重大误解")
    assert zh is not None and [o.text for o in zh.options][0] == "以合法形式掩盖非法目的"
    assert parse_choices("What did the court order in (A) the first case?") is None
    blank = parse_choices("下列说法正确的是（ ）A．合同有效 B．合同无效")
    assert blank is not None and blank.stem == "下列说法正确的是（ ）" and len(blank.options) == 2
    cited = parse_choices("Which is true of (A) and (B) in s 5? A) both apply B) neither applies")
    assert cited is not None and [o.text for o in cited.options] == ["both apply", "neither applies"]


def test_the_option_not_discussed_is_the_one_no_sentence_states() -> None:
    question = case(
        "which of the following fees was NOT discussed? A) Dishonour fee B) Late payment fee "
        "C) Over limit fee D) Transaction fee"
    )
    choices = parse_choices(question)
    assert choices is not None and choices.negative
    scores = score_options(choices, [source(1, FEES)])
    assert [s.stated for s in scores] == [True, True, True, False]
    assert choose(choices, scores, frozenset("B")).letters == ("D",)


def test_the_option_that_the_relation_asked_about_holds_is_chosen_against_the_model() -> None:
    question = case(
        "who recommended that Ms Trch's account be preferred over Mr Elisha's account? "
        "A) Mr Gow-Hills B) Mr Van Dyk C) Ms Eagle D) Ms Hauser"
    )
    choices = parse_choices(question)
    assert choices is not None
    choice = choose(choices, score_options(choices, [source(1, MEETING)]), frozenset("A"))
    assert choice.letters == ("C",) and choice.method == "best supported"
    assert choice.evidence and "Eagle recommended" in choice.evidence[0].text


def test_all_of_the_above_when_every_option_it_stands_for_is_stated() -> None:
    question = (
        "According to the Contracts Review Act 1980, what may the Court do if it finds a contract unjust? "
        "A) refuse to enforce any or all of the provisions of the contract "
        "B) make an order declaring the contract void, in whole or in part "
        "C) make an order varying, in whole or in part, any provision of the contract D) All of the above"
    )
    choices = parse_choices(question)
    assert choices is not None
    choice = choose(choices, score_options(choices, [source(1, ORDERS)]), frozenset("ABC"))
    assert choice.letters == ("D",) and choice.method == "aggregate"


def test_a_statement_question_takes_every_stated_option_and_a_reversed_one_is_not_stated() -> None:
    text = (
        "The Court of Appeal said that the modern rule against penalties is a rule of law, not equity. It said that "
        "the limits of the doctrine of penalties arise from the consequences of breach of contract."
    )
    question = case(
        "which of the following statements were made by the Court of Appeal? "
        "A) The modern rule against penalties is a rule of law, not equity. "
        "B) The limits of the doctrine of penalties arise from the consequences of breach of contract. "
        "C) The doctrine of penalties is a rule of equity, not law."
    )
    choices = parse_choices(question)
    assert choices is not None
    scores = score_options(choices, [source(1, text)])
    assert [s.stated for s in scores] == [True, True, False]
    assert choose(choices, scores, frozenset("B")).letters == ("A", "B")
    # not a question about statements: one option, never several
    found = Choices("what did the Court of Appeal find?", choices.options)
    assert len(choose(found, scores, frozenset("B")).letters) == 1


def test_close_scores_leave_the_model_its_choice() -> None:
    question = case("who attended the meeting? A) Ms Hauser B) Ms Eagle C) Mr Van Dyk")
    choices = parse_choices(question)
    assert choices is not None
    choice = choose(choices, score_options(choices, [source(1, MEETING)]), frozenset("C"))
    assert choice.letters == ("C",) and choice.method == "model"


# --- through quote-then-answer, with a scripted model ----------------------------------------------------------------


def ask(question: str, reply: str, sources: list[Source], instruction: str, *, check: bool) -> tuple[str, list[str]]:
    llm = FakeLLM({"answer-quote": reply})
    answer = quoted_answer(
        llm, question, "en", "en", sources, lambda _d: None, max_tokens=64, instruction=instruction, check=check
    )
    return answer.text, [c.method for c in answer.claims]


def test_the_models_true_on_a_contradicted_statement_becomes_false_with_its_evidence() -> None:
    question = case("the ANZ appealed against the primary judge's finding on the late payment fee. True or False?")
    assert question_kind(question, TF) == "yesno"
    reply = (
        "Quote: The primary judge found that the late payment fee was payable upon breach of contract.\nAnswer: True"
    )
    text, methods = ask(question, reply, [source(1, FEES)], TF, check=True)
    assert text == "False [1]" and methods == ["polarity: contradicts"]
    unchecked, _ = ask(question, reply, [source(1, FEES)], TF, check=False)
    assert unchecked.startswith("False")


def test_a_supported_true_stands_and_a_false_from_a_model_that_found_nothing_is_overruled() -> None:
    question = case(
        "the litigation was conducted in the Victorian District Registry of the Federal Court. True or False?"
    )
    text, methods = ask(question, f"Quote: {VICTORIAN}\nAnswer: True", [source(1, REGISTRY)], TF, check=False)
    assert text.startswith("True") and "polarity: contradicts" not in methods
    stated = case(
        "the litigation was instituted and has been conducted in the Victorian District Registry of the "
        "Federal Court. True or False?"
    )
    found_nothing = "Quote: The documents do not state this.\nAnswer: False"
    text, methods = ask(stated, found_nothing, [source(1, REGISTRY)], TF, check=False)
    assert text.startswith("True") and methods == ["polarity: agrees"]
    # a "false" with a quote of its own is the model's reading, not overruled
    quoted_false = f"Quote: {VICTORIAN}\nAnswer: False"
    assert ask(stated, quoted_false, [source(1, REGISTRY)], TF, check=False)[0].startswith("False")


def test_a_chinese_yes_on_a_forbidden_act_becomes_no() -> None:
    text = "(五)、簡報時不得播放影片，亦不得變更服務建議書內容。\n(六)、廠商得攜帶筆記型電腦。"
    rules = Source(1, 1, "rules.pdf", "評選須知", (1,), 1, 1, 1, 9, (), text)
    reply = QuotedReply((Quote(1, "簡報時不得播放影片"),), "是")
    decision = decide(reply, "簡報時可以播放影片嗎？", [rules], "yesno")
    assert decision.answer == "否" and decision.method == "polarity: contradicts"
    (kept,) = check_reply(reply, "簡報時可以播放影片嗎？", [rules], kind="yesno").checks
    assert kept.evidence is not None and "不得播放影片" in kept.evidence.text


def test_a_negation_describing_a_noun_does_not_turn_a_yes() -> None:
    # 成都's contract: the exception for information got from a third party with no duty of confidence
    text = (
        "4.保密要求：对采购人行程信息及服务内容保密。\n或者收到信息的一方从对该等信息不负有保密义务的第三方获得的信息。"
    )
    contract = Source(1, 1, "contract.docx", "合同", (1,), 1, 1, 1, 9, (), text)
    assert not any(t.negated for t in terms("从对该等信息不负有保密义务的第三方获得的信息"))
    reply = QuotedReply((Quote(1, "对采购人行程信息及服务内容保密"),), "是")
    assert decide(reply, "中标人是否负有保密义务？", [contract], "yesno").answer == "是"
    # the clause's own negation still turns it
    denied = Source(1, 1, "contract.docx", "合同", (1,), 1, 1, 1, 9, (), "中标人不负有保密义务。")
    reply = QuotedReply((Quote(1, "中标人不负有保密义务"),), "是")
    assert decide(reply, "中标人是否负有保密义务？", [denied], "yesno").answer == "否"


def test_a_choice_is_decided_by_the_system_and_shown_in_the_trace() -> None:
    question = case(
        '"which of the following fees was NOT discussed?" A) Dishonour fee B) Late payment fee '
        "C) Over limit fee D) Transaction fee"
    )
    assert question_kind(question, MCQ) == "choice"
    text, methods = ask(
        question, "Quote: The late payment fee was payable.\nAnswer: B", [source(1, FEES)], MCQ, check=False
    )
    assert text == "D" and methods == ["options: not stated"]
    who = case("who recommended that Ms Trch's account be preferred? A) Mr Gow-Hills B) Mr Van Dyk C) Ms Eagle")
    text, methods = ask(who, "Quote: Ms Eagle recommended it.\nAnswer: A", [source(1, MEETING)], MCQ, check=True)
    assert text == "C [1]" and methods == ["options: best supported"]
