"""Contextual compression: the sources' sentences nearest the question, within a budget, located as before."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.answers import Source
from pikelocal.query.context.compress import compress_sources, rebuild, select_units, unit_spans
from pikelocal.query.context.expand import Budget, assemble, estimate_tokens
from pikelocal.query.context.locate import store_locator
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build, chunk_with


def source(text: str, number: int = 1) -> Source:
    return Source(number, 1, "a.md", "A", (1,), None, None, 1, 1, (), text)


def test_select_keeps_each_sources_best_then_the_best_that_fit() -> None:
    scores = [[0.9, 0.1, 0.5], [0.2, 0.3]]
    costs = [[10, 10, 10], [10, 10]]
    # units alone (window 0): bests s0u0 and s1u1 (20 tokens); then s0u2 fits (30); s1u0 would make 40 > 35
    assert select_units([[], []], scores, costs, 35, window=0) == [{0, 2}, {1}]
    # a budget below the bests still keeps one unit of every source
    assert select_units([[], []], scores, costs, 5, window=0) == [{0}, {1}]
    # a cheap unit further down still fits after a dear one did not
    assert select_units([[]], [[0.9, 0.8, 0.1]], [[10, 30, 5]], 20, window=0) == [{0, 2}]
    # with a window of 1 a kept unit brings its neighbours: s0u0 with u1 (20), s1u1 with u0 (20): 40 > 35 already
    assert select_units([[], []], scores, costs, 35, window=1) == [{0, 1}, {0, 1}]
    # and a later pick pays only for the neighbours not kept yet: s0u2 costs 10 more at a budget of 50
    assert select_units([[], []], scores, costs, 50, window=1) == [{0, 1, 2}, {0, 1}]
    five = [[0.1, 0.2, 0.9, 0.3, 0.1]]
    assert select_units([[]], five, [[10] * 5], 30) == [{1, 2, 3}]  # the default window is one unit


def test_rebuild_joins_kept_pieces_and_maps_offsets_back() -> None:
    text = "Alpha one. Beta two. Gamma three.\nDelta four. Epsilon five."
    src = source(text)
    spans = unit_spans(src)
    assert [text[a:b] for a, b in spans] == ["Alpha one.", "Beta two.", "Gamma three.", "Delta four.", "Epsilon five."]
    out = rebuild(src, [spans[0], spans[1], spans[3]])
    assert out.text == "Alpha one. Beta two.\n…\nDelta four. …"
    for word in ("Alpha", "Beta", "Delta"):
        assert out.whole_offset(out.text.index(word)) == text.index(word)
    inline = rebuild(src, [spans[1], spans[2]])
    assert inline.text == "… Beta two. Gamma three. …"
    assert inline.whole_offset(inline.text.index("Gamma")) == text.index("Gamma")
    assert src.whole_offset(7) == 7  # a whole source maps to itself


def test_a_markdown_row_keeps_its_tables_header() -> None:
    text = (
        "Scores are set out below.\n"
        "| item | points |\n| --- | --- |\n| design | 35 |\n| price | 30 |\n| staff | 10 |\n"
        "The panel may adjust them."
    )
    src = source(text)
    row = next((a, b) for a, b in unit_spans(src) if text[a:b].startswith("| price"))
    from pikelocal.query.context.compress import _table_header

    header = _table_header(text, row)
    assert header is not None and text[header[0] : header[1]] == "| item | points |"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("compress"), questions=False)


@pytest.fixture
def store(kb: Path) -> Iterator[Store]:
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s


def test_compression_keeps_the_sentence_asked_about_within_the_budget(store: Store) -> None:
    s5 = chunk_with(store, "Step 5 of the pump")
    (whole,) = assemble(store, [s5.id], Budget(tokens=2000, neighbours=2, context="neighbours"))
    assert len(unit_spans(whole)) == 5  # sections 3 to 7, one sentence each
    question = "Which valve and which bolt set does step 5 check and tighten?"
    budget = estimate_tokens(whole.text) * 7 // 10  # room for 3 of the 5 sections: step 5 with its neighbours
    (short,) = compress_sources([whole], ENC, [question], budget)
    assert "Step 5 of the pump" in short.text and "Step 4 of" in short.text and "Step 6 of" in short.text
    assert "Step 3 of" not in short.text and "Step 7 of" not in short.text
    assert estimate_tokens(short.text) <= budget + 4  # the " … " marks
    assert (short.number, short.chunk_ids, short.line_start, short.line_end) == (
        whole.number,
        whole.chunk_ids,
        whole.line_start,
        whole.line_end,
    )
    # a claim found in the kept text is placed on the same page and lines as in the whole source
    locate = store_locator(store)
    phrase = "record pressure reading 5"
    at, at_whole = short.text.index(phrase), whole.text.index(phrase)
    assert locate(short, at, at + len(phrase)) == locate(whole, at_whole, at_whole + len(phrase))
    assert locate(short, at, at + len(phrase))[2] == s5.line_start + 2  # type: ignore[index]


def test_compression_leaves_sources_that_fit_and_keeps_every_source(store: Store) -> None:
    s2, bid = chunk_with(store, "Step 2 of the pump"), chunk_with(store, "五万元")
    sources = assemble(store, [s2.id, bid.id], Budget(tokens=2000, neighbours=1, context="neighbours"))
    total = sum(estimate_tokens(s.text) for s in sources)
    assert compress_sources(sources, ENC, ["step 2"], total) == sources
    squeezed = compress_sources(sources, ENC, ["step 2"], 10)
    assert [s.number for s in squeezed] == [s.number for s in sources]
    assert all(s.text.strip(" …\n") for s in squeezed)
    assert "Step 2 of the pump" in squeezed[0].text
    assert squeezed[1] == sources[1] or squeezed[1].pieces  # one unit only: kept whole, else marked compressed


def test_a_compressed_source_survives_the_trace_round_trip() -> None:
    from pikelocal.domain.answers import _source

    src = rebuild(source("Alpha one. Beta two. Gamma three."), [(11, 20)])
    data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in src.__dict__.items()}
    data["pieces"] = [list(p) for p in src.pieces]
    assert _source(data) == src
    assert _source({k: v for k, v in data.items() if k != "pieces"}) == replace(src, pieces=())


def test_naive_ask_sends_the_compressed_sources_and_cites_the_right_lines(kb: Path) -> None:
    from pikelocal.llm.base import GenParams, Message
    from pikelocal.llm.fake import FakeLLM
    from pikelocal.query.answer.modes import AskOptions, ask
    from tests.support.answer_scripts import cite_source_with

    prompts: list[str] = []
    cite = cite_source_with("flood, fire", "Flood, fire, war and strikes count")

    def answer(messages: list[Message], params: GenParams) -> object:
        prompts.append(messages[-1].content)
        return cite(messages, params)  # type: ignore[operator]

    question = "Do floods, fire, war and strikes count?"
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        base = AskOptions.from_settings(Settings(), mode="naive", k=1, context="neighbours", neighbours=1, quote=False)
        plain = ask(store, ENC, FakeLLM({"answer": answer}), question, base, save=False)  # type: ignore[dict-item]
        short = ask(store, ENC, FakeLLM({"answer": answer}), question, replace(base, compress_tokens=30), save=False)  # type: ignore[dict-item]
    assert len(prompts) == 2 and len(prompts[1]) < len(prompts[0])
    # the flood sentence is kept with the sentences on either side; the one before them (page 1) is left out
    assert "made in writing" in prompts[0] and "made in writing" not in prompts[1]
    assert "flood, fire, war and strikes" in prompts[1] and "notify the other party" in prompts[1]
    (whole_claim,), (short_claim,) = plain.answer.claims, short.answer.claims
    assert short_claim.verdict == whole_claim.verdict == "supported"
    assert short_claim.evidence is not None and whole_claim.evidence is not None
    # the claim's evidence is placed on page 2, lines 1-3: the kept piece (the flood sentence, line 2, with its
    # neighbours), mapped back to the document. The claim check's units run English prose to the last full stop,
    # so the evidence is the whole piece; from the whole source it is wider still, p. 1 line 3 to p. 2 line 3.
    assert short_claim.evidence.location() == "contract.pdf, p. 2, lines 1–3"
    assert whole_claim.evidence.location() == "contract.pdf, p. 1, line 3 – p. 2, line 3"


def test_decompose_appends_sources_whole_within_the_budget_then_compresses_each(kb: Path) -> None:
    from pikelocal.llm.fake import FakeLLM
    from pikelocal.query.answer.decompose import DecomposeOptions
    from pikelocal.query.answer.modes import AskOptions, ask

    def run(compress_tokens: int) -> tuple[list[str], list[Source]]:
        proposals = iter(['{"sub_questions": ["Which events include flood, fire, war and strikes?"]}'])
        prompts: list[str] = []

        def answer(messages: object, _params: object) -> str:
            prompts.append(messages[-1].content)  # type: ignore[index]
            return "The documents do not state it."

        script = {
            "propose_subquestions": lambda _m, _p: next(proposals, '{"sub_questions": []}'),
            "select_atom": '{"pick": 1}',
            "answer": answer,
        }
        options = AskOptions.from_settings(
            Settings(),
            mode="decompose",
            k=2,
            decompose=DecomposeOptions.from_settings(Settings(), threshold=0.4, rounds=2),
            context="neighbours",
            neighbours=2,
            compress_tokens=compress_tokens,
            check=False,
        )
        with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
            trace = ask(store, ENC, FakeLLM(script), "Do floods, fire, war and strikes count?", options, save=False)  # type: ignore[arg-type]
        return prompts, list(trace.answer.sources)

    (whole_prompt,), whole = run(0)
    # sources of about 155 tokens fit a budget of 600: appended whole, the prompt as without compression
    (roomy_prompt,), roomy = run(600)
    assert roomy_prompt == whole_prompt and roomy == whole
    # past a budget of 80 every batch is cut as it is appended
    (short_prompt,), short = run(80)
    assert len(short_prompt) < len(whole_prompt)
    assert all(not s.pieces for s in whole) and any(s.pieces for s in short)
    assert sum(estimate_tokens(s.text) for s in short) < sum(estimate_tokens(s.text) for s in whole)
    assert "Such events include flood, fire, war and strikes" in short_prompt


# p. 80 of the tender PDF as extracted: one sentence wrapped over three printed lines, then a form's fields
TENDER_P80 = (
    "堤内防汛抢险应急通道、撤离道路建设、防汛哨屋等。\n"
    "1.4.履约期限： 1095 日历天，计划开工日期 2025 年10 月25 日，其中：合同签订后30 日历\n"
    "天内提交可行性研究报告，可行性研究报告通过批复后 60 日历天内提交初步设计报告，招标设计\n"
    "和 施工图设计满足工程进度需要， 全部服务期从合同签订时开始，至工程通过竣工验收结束。\n"
)
FORM = (
    "担保人名称 ： （盖单位章）\n法定代表人或其委托代理人： （签字）\n地 址：\n邮政编码：\n电 话：\n"
    "年 月 日\n76\n第五章 要求。"
)


def test_a_chinese_sentence_wrapped_over_printed_lines_is_one_unit() -> None:
    """Its lines are short in characters, end unpunctuated and hold numbers, as a form's do; they are full printed
    lines, so the 1,095 days stay in one unit with the service period (全部服务期) they are the length of."""
    src = source(TENDER_P80)
    units = [TENDER_P80[a:b] for a, b in unit_spans(src)]
    assert len(units) == 2, units
    assert units[1].startswith("1.4.履约期限") and units[1].endswith("至工程通过竣工验收结束。")


def test_a_forms_fields_stay_one_unit_each() -> None:
    units = [FORM[a:b] for a, b in unit_spans(source(FORM))]
    assert units[:3] == ["担保人名称 ： （盖单位章）", "法定代表人或其委托代理人： （签字）", "地 址："], units
    assert len(units) == 8


def test_a_form_s_unticked_options_never_reach_the_model() -> None:
    # 「□允許」 and the unticked line are blanked before the units are scored, the text's length and lines kept, so
    # the model reads 「■不允許 … 共同投標」 and the citation still points at the chunk's own lines
    form = "十三、本採購■不允許□允許 共同投標。\n□(一)公開招標。\n■(二)公開取得書面報價。\n"
    whole = source(form)
    (kept,) = compress_sources([whole], ENC, ["是否允許共同投標"], 1000)
    assert len(kept.text) == len(form) and kept.text.count("\n") == form.count("\n")
    assert "允許 共同投標" not in kept.text and "■不允許" in kept.text and "共同投標" in kept.text
    assert "公開招標" not in kept.text and "■(二)公開取得書面報價" in kept.text
    plain = source("投标人须知\n本项目不接受联合体投标。\n")
    assert compress_sources([plain], ENC, ["联合体"], 1000) == [plain]  # no tick shown: untouched
