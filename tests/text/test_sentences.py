"""Sentences over a page (text/sentences.py): a value's sentence, narrowed to its clause when too long."""

from __future__ import annotations

from pikelocal.text.sentences import SENTENCE_LIMIT, sentence_around, sentence_spans


def around(text: str, value: str) -> str:
    spans = sentence_spans(text)
    start = text.index(value)
    s0, s1 = sentence_around(text, spans, [a for a, _b in spans], start, start + len(value))
    return text[s0:s1]


def test_a_long_sentence_is_narrowed_to_the_values_clause() -> None:
    filler = "the parties agree, " * 14
    text = f"{filler}the fee may rise by the index over the previous twelve months, {filler}."
    assert len(text) > SENTENCE_LIMIT
    assert around(text, "twelve months") == "the fee may rise by the index over the previous twelve months"


def test_a_clause_mark_inside_brackets_does_not_start_the_clause() -> None:
    filler = "the parties agree, " * 14
    text = f"{filler}the increase in the Consumer Price Index (All Groups, Sydney) over the previous twelve months."
    assert around(text, "twelve months").startswith("the increase in the Consumer Price Index (All Groups, Sydney)")


def test_a_wide_list_item_runs_on_to_the_next_line() -> None:
    line = "（3）联合体各方不得再以自己名义单独或参加其他联合体在同"  # as wide as wrapped prose
    text = f"{line}\n一标段中投标。\n（4）短项。"
    assert [text[a:b] for a, b in sentence_spans(text)] == [f"{line}\n一标段中投标。", "（4）短项。"]
