"""A checklist file made to hurt fails in one line naming the file, the line and (in an item) the item: nesting that
made tomllib recurse, a dotted key whose cost is the square of its length, more items than any checklist has, and
texts long enough to overflow the model's context minutes later. A file within the bounds reads as before, its
errors on the right lines even where a multi-line string holds an ``[[items]]`` line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain import ChecklistError
from pikelocal.embed.fake import HashEncoder
from pikelocal.review.checklist import MAX_CHARS, MAX_HINTS, load_checklist
from pikelocal.review.checklist_file import MAX_BYTES, MAX_DEPTH, MAX_ITEMS
from tests.support.cli import assert_one_line_error, run_cli

ITEM = '[[items]]\nid = "{id}"\nlabel = "L"\nkind = "amount"\nquestion.en = "Q?"\n'  # five lines


def error_of(tmp_path: Path, text: str) -> str:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ChecklistError) as caught:
        load_checklist(path)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400, message[:400]
    assert message.startswith(f"{path}:"), message
    return message.removeprefix(f"{path}:")


HOSTILE = [
    # (what, text, line, words)
    ("nested arrays", "a = " + "[" * 300_000, 1, [f"arrays and tables nested deeper than {MAX_DEPTH} levels"]),
    ("nested inline tables", "\n\nx = " + "{a = " * 200_000, 3, ["nested deeper than"]),
    ("a key of many dotted parts", "a" + ".a" * 300_000 + " = 1\n", 1, [f"a dotted key deeper than {MAX_DEPTH}"]),
    ("a header of many dotted parts", "\n[a" + ".a" * 300_000 + "]\n", 2, ["a dotted key deeper than"]),
    ("items past the limit", ITEM.format(id="a") * (MAX_ITEMS + 5), MAX_ITEMS * 5 + 1,
     [f"more than {MAX_ITEMS:,} items"]),
]  # fmt: skip


@pytest.mark.parametrize(("what", "text", "line", "words"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_hostile_file_is_one_line(tmp_path: Path, what: str, text: str, line: int, words: list[str]) -> None:
    assert len(text.encode()) <= MAX_BYTES  # within the size limit: the scan is what stops it
    message = error_of(tmp_path, text)
    assert message.startswith(f"{line}: "), message
    for word in words:
        assert word in message, message


LONG = [
    # (what, the item's extra lines, the word in the message)
    ("question", 'question.hans = "{}"\n', "question.hans is 400,000 characters long"),
    ("section", 'section = "{}"\n', "section is 400,000 characters long"),
    ("hint", 'hints = ["ok", "{}"]\n', "a hint is 400,000 characters long"),
]


@pytest.mark.parametrize(("what", "line", "words"), LONG, ids=[case[0] for case in LONG])
def test_a_long_text_names_the_file_line_and_item(tmp_path: Path, what: str, line: str, words: str) -> None:
    text = ITEM.format(id="a") + "\n" + ITEM.format(id="budget") + line.format("x" * 400_000)
    message = error_of(tmp_path, text)
    assert message.startswith('7: item "budget": ' + words), message


def test_each_text_has_its_limit(tmp_path: Path) -> None:
    top = 'description = "{}"\n' + ITEM.format(id="a")
    assert error_of(tmp_path, top.format("d" * (MAX_CHARS["description"] + 1))).startswith("1: description is 2,001")
    hints = ITEM.format(id="a") + "hints = [" + ", ".join(f'"h{n}"' for n in range(MAX_HINTS + 1)) + "]\n"
    assert error_of(tmp_path, hints).startswith(f'1: item "a": hints holds {MAX_HINTS + 1} terms')
    long_id = ITEM.format(id="i" * (MAX_CHARS["id"] + 1))
    assert error_of(tmp_path, long_id).startswith("1: item 1: id is 65 characters long")
    label = ITEM.format(id="a").replace('label = "L"', f'label = "{"l" * (MAX_CHARS["label"] + 1)}"')
    assert error_of(tmp_path, label).startswith('1: item "a": label is 201 characters long')


def test_texts_at_their_limits_are_read(tmp_path: Path) -> None:
    item = ITEM.format(id="a").replace('question.en = "Q?"', f'question.en = "{"q" * MAX_CHARS["question"]}"')
    item += "hints = [" + ", ".join(f'"{n:0{MAX_CHARS["hint"]}d}"' for n in range(MAX_HINTS)) + "]\n"
    path = tmp_path / "c.toml"
    path.write_text(item + "".join(ITEM.format(id=f"i{n}") for n in range(MAX_ITEMS - 1)), encoding="utf-8")
    checklist = load_checklist(path)
    assert len(checklist.items) == MAX_ITEMS and len(checklist.items[0].hints) == MAX_HINTS


def test_brackets_and_dots_in_strings_and_comments_are_text(tmp_path: Path) -> None:
    deep = "[" * (MAX_DEPTH * 3)
    text = (
        f'title = "{deep}.{"." * 100}"  # {deep} {"a." * 100}\n'
        f"description = '''\n[[items]]\n{deep}\n'''\n"  # lines 2-5: not an item header
        + ITEM.format(id="a")  # lines 6-10
        + ITEM.format(id="b").replace('kind = "amount"', 'kind = "money"')  # line 11
    )
    assert error_of(tmp_path, text).startswith('11: item "b": kind "money" is not one of')


def test_a_hostile_checklist_is_one_line_from_the_cli(tmp_path: Path) -> None:
    kb = tmp_path / "k.kb"
    (tmp_path / "a.txt").write_text("The budget is 5,000 USD.\n")
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        knowledge_base.add([tmp_path / "a.txt"])
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    proc = run_cli("review", str(kb), "--checklist", str(deep), "--export", str(tmp_path / "r.md"))
    assert_one_line_error(proc, 6, f"{deep}:1: arrays and tables nested deeper than {MAX_DEPTH} levels")
    assert not (tmp_path / "r.md").exists()
