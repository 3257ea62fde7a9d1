"""The atomize prompt and its parser: language choice, vague references, duplicates, the question cap, failures."""

from __future__ import annotations

import json

import pytest

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions
from pikelocal.ingest.pipeline import Ingestor, SourceText
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.atomize import atomize_prompt, parse_atoms, question_key, vague_reference
from pikelocal.prompts.base import ReplyError, run_prompt
from pikelocal.text.lang import detect_lang
from tests.support.enrich_corpus import INGEST, open_kb

ZH_CHUNK = "第三条 投标人应当在投标截止时间前缴纳投标保证金，金额不得超过采购预算的百分之二。"
EN_CHUNK = "Bidders shall lodge a tender bond of two percent of the estimate before the closing date."
FIELDS = {"max_q": 5, "title": "青松市招标办法", "section": "—", "context": "", "text": ZH_CHUNK}


def atoms(questions: list[object], lang: str, max_q: int = 5):  # type: ignore[no-untyped-def]
    return parse_atoms({"questions": questions}, lang, {**FIELDS, "max_q": max_q})  # type: ignore[arg-type]


# --- language -----------------------------------------------------------------------------------------------


def test_detect_lang_keeps_mixed_chinese_with_english_terms_chinese() -> None:
    assert detect_lang("本合同采用FIDIC条款，投标保证金以CNY计价，通过SWIFT汇款，DAB负责争议评审。") == "zh"
    assert detect_lang("依据 ISO 9001 质量管理体系 和 GB/T 19001 标准 进行 PDF 文件 审核") == "zh"
    assert detect_lang("The contract names the 甲方 and the 乙方 as parties to the tender agreement.") == "en"
    assert detect_lang("Tender bond of 2 percent.") == "en"
    assert detect_lang("") == "en"


def test_chinese_chunk_gets_the_chinese_prompt(tmp_path) -> None:  # type: ignore[no-untyped-def]
    seen: list[str] = []

    def reply(messages, params) -> str:  # type: ignore[no-untyped-def]
        seen.append(messages[0].content + "\n" + messages[1].content)
        return json.dumps({"questions": ["青松市招标办法规定的投标保证金上限是多少？"]}, ensure_ascii=False)

    llm = FakeLLM({"atomize": reply, "summarize_document": "{}"})
    with open_kb(tmp_path / "kb.kb") as store:
        Ingestor(store, HashEncoder(), INGEST).ingest_texts(
            [SourceText("zh", "青松市招标办法", ZH_CHUNK), SourceText("en", "Tender Bond Rule", EN_CHUNK)]
        )
        report = Enricher(store, HashEncoder(), llm, EnrichOptions.from_settings(Settings(), summaries=False)).run()
    zh_prompt, en_prompt = (p for p in seen if ZH_CHUNK in p), (p for p in seen if EN_CHUNK in p)
    zh_prompt, en_prompt = next(zh_prompt), next(en_prompt)
    assert "用中文提问" in zh_prompt and "不用“它”“该项目”“本合同”“上述”等指代" in zh_prompt
    assert "文档：青松市招标办法" in zh_prompt and "Rules:" not in zh_prompt
    assert "Ask in English" in en_prompt and "用中文提问" not in en_prompt
    # the Chinese reply suits the Chinese chunk; for the English chunk it is refused twice: a failure
    assert report.atomized == 1 and len(report.failures) == 1 and "not in English" in report.failures[0]


def test_english_questions_for_a_chinese_chunk_are_refused_and_the_retry_says_why() -> None:
    with pytest.raises(ReplyError, match="not in Chinese"):
        atoms(["What is the tender bond cap of the Qingsong rules?"], "zh")
    kept = atoms(["What is the tender bond cap?", "青松市招标办法规定的投标保证金上限是多少？"], "zh")
    assert kept.questions == ("青松市招标办法规定的投标保证金上限是多少？",)
    assert kept.dropped == (("What is the tender bond cap?", "not in Chinese"),)

    replies = iter(
        [
            json.dumps({"questions": ["What is the tender bond cap of the Qingsong rules?"]}),
            json.dumps({"questions": ["青松市招标办法规定的投标保证金上限是多少？"]}, ensure_ascii=False),
        ]
    )
    llm = FakeLLM({"atomize": lambda m, p: next(replies)})
    result = run_prompt(llm, atomize_prompt(5), "zh", FIELDS)
    assert result.ok and result.value is not None and len(result.completions) == 2
    retry = llm.calls[1].messages
    assert [m.role for m in retry] == ["system", "user", "assistant", "user"]
    assert "not in Chinese" in retry[3].content and retry[3].content.startswith("上面的回复无法使用")


def test_an_unparseable_reply_is_a_failed_result_not_an_exception() -> None:
    # json.loads raises a plain ValueError (no .msg/.pos) for an integer past Python's digit limit; that used to
    # escape run_prompt as AttributeError instead of being retried and reported.
    replies = iter(['{"questions": [' + "1" * 5000 + "]}", '{"questions": ["青松市'])
    llm = FakeLLM({"atomize": lambda m, p: next(replies)})
    result = run_prompt(llm, atomize_prompt(5), "zh", FIELDS)
    assert not result.ok and result.value is None and len(result.completions) == 2
    assert "invalid JSON" in llm.calls[1].messages[3].content and "digits" in llm.calls[1].messages[3].content
    assert result.error is not None
    assert result.error.startswith("invalid JSON: Unterminated string") and "cut off" in result.error


def test_a_deeply_nested_reply_is_retried_not_raised() -> None:
    # json.loads raises RecursionError for "[[[[…" deeper than the recursion limit (a looping model); that used to
    # escape run_prompt instead of being retried and reported.
    replies = iter(["[" * 100_000, '{"a": ' * 50_000])
    llm = FakeLLM({"atomize": lambda m, p: next(replies)})
    result = run_prompt(llm, atomize_prompt(5), "zh", FIELDS)
    assert not result.ok and result.value is None and len(result.completions) == 2
    assert "invalid JSON: nested too deeply" in llm.calls[1].messages[3].content
    assert result.error == "invalid JSON: nested too deeply"


def test_the_prompt_asks_for_questions_only_and_puts_the_chunk_last() -> None:
    prompt = atomize_prompt(3)
    assert prompt.name == "atomize" and list(prompt.schema["properties"]) == ["questions"]
    assert prompt.schema["properties"]["questions"]["maxItems"] == 3
    # instructions, then the document (the same for all its chunks), then the chunk: the KV cache keeps the first two
    fields = {**FIELDS, "context": "摘要：青松市的招标规则。\n"}
    user = prompt.messages("zh", fields)[1].content
    assert user.index("要求") < user.index("文档：青松市招标办法") < user.index("摘要：") < user.index("位置：")
    assert user.endswith(ZH_CHUNK)
    other = prompt.messages("zh", {**fields, "section": "第四条", "text": "另一段文字。"})[1].content
    common = 0
    while user[common] == other[common]:
        common += 1
    assert user[:common].endswith("位置：")


# --- vague references ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "它的投标保证金是多少？",
        "该项目的预算是多少？",
        "本合同的有效期是多久？",
        "上述条款适用于哪些单位？",
        "这些供应商需要缴纳什么费用？",
    ],
)
def test_vague_chinese_questions_are_dropped(question: str) -> None:
    assert vague_reference(question, "zh") is not None
    kept = atoms([question, "青松市招标办法规定的投标保证金上限是多少？"], "zh")
    assert question not in kept.questions and kept.dropped[0][1].startswith("vague reference")


@pytest.mark.parametrize(
    "question",
    [
        "What does it cost to lodge a bid?",
        "When does this agreement end?",
        "Who signs the contract?",
        "Do they pay?",
        "What is the name of the subject?",  # the 1.5B model's filler when told to name the subject
    ],
)
def test_vague_english_questions_are_dropped(question: str) -> None:
    assert vague_reference(question, "en") is not None
    kept = atoms([question, "What bond does the Qingsong tender rule require?"], "en")
    assert kept.questions == ("What bond does the Qingsong tender rule require?",)
    assert len(kept.dropped) == 1 and kept.dropped[0][1].startswith("vague reference")


@pytest.mark.parametrize(
    "question",
    [
        "投标人应该在什么时间前缴纳青松市的投标保证金？",  # 应该 is a verb, not 该 + noun
        "青松市招标办法中评审专家应当回避的情形有哪些？",
    ],
)
def test_chinese_questions_that_name_their_subject_are_kept(question: str) -> None:
    assert vague_reference(question, "zh") is None
    assert atoms([question], "zh").questions == (question,)


@pytest.mark.parametrize(
    "question",
    [
        "《香港特别行政区基本法》第二十三条规定了什么？",  # 基本法 is a name: its 本法 is no bare reference
        "日本公司法对董事任期有何规定？",  # 日本公司法: Japan's Companies Act, not 本公司
    ],
)
def test_chinese_names_containing_ben_are_not_vague(question: str) -> None:
    assert vague_reference(question, "zh") is None
    assert atoms([question], "zh").questions == (question,)


@pytest.mark.parametrize("question", ["What is its closing date?", "Where must bidders send their bonds?"])
def test_english_possessive_pronouns_are_vague(question: str) -> None:
    # 它的 is refused in Chinese; its English counterpart must be too
    assert vague_reference(question, "en") is not None


# --- duplicates, the cap, unusable replies ------------------------------------------------------------------


def test_duplicates_by_case_width_and_punctuation_are_dropped() -> None:
    first = "What bond does the Qingsong tender rule require?"
    variants = [
        "what BOND does the qingsong tender rule require",
        "ＷＨＡＴ　bond does the Qingsong tender-rule require？",
        "  What bond does the Qingsong tender rule require?!  ",
    ]
    assert {question_key(v) for v in variants} == {question_key(first)}
    kept = atoms([first, *variants, "Who chooses the Qingsong evaluation panel?"], "en")
    assert kept.questions == (first, "Who chooses the Qingsong evaluation panel?")
    assert [why for _, why in kept.dropped] == ["duplicate"] * 3

    zh = atoms(["青松市投标保证金上限是多少？", "青松市投标保证金上限是多少?", "青松市 投标保证金 上限是多少"], "zh")
    assert zh.questions == ("青松市投标保证金上限是多少？",) and len(zh.dropped) == 2


def test_questions_beyond_max_q_are_cut_in_order() -> None:
    questions = [f"What does clause {n} of the Qingsong tender rule require?" for n in range(1, 8)]
    assert atoms(questions, "en", max_q=3).questions == tuple(questions[:3])
    assert atoms(questions, "en", max_q=5).questions == tuple(questions[:5])


@pytest.mark.parametrize(
    "data",
    [
        {"questions": []},
        {"questions": ["", None, 42, "ab"]},
        {"questions": ["它是什么？", "What is the Qingsong bond?"]},  # vague, then the wrong language
        {"questions": "青松市投标保证金上限是多少？"},  # not a list
        ["青松市投标保证金上限是多少？"],
        {"summary": "只有摘要"},
    ],
)
def test_a_reply_without_a_usable_question_is_a_reply_error(data: object) -> None:
    with pytest.raises(ReplyError):
        parse_atoms(data, "zh", FIELDS)


def test_long_questions_are_trimmed() -> None:
    long = "青松市招标办法" + "关于投标保证金" * 30 + "的规定是什么？"
    parsed = parse_atoms({"questions": [long]}, "zh", FIELDS)
    assert len(parsed.questions[0]) == 120 and parsed.questions[0] == long[:120]
