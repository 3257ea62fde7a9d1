"""Review checklists: the built-in ones load and are sound, a user's file round-trips, and every bad file
gives one line naming the file and the line to fix (the line numbers below are counted by hand in each text)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pikelocal.domain import ChecklistError, InputError
from pikelocal.domain.review import CHECKLIST_SCRIPTS, VALUE_KINDS, ChecklistItem
from pikelocal.review.checklist import builtin_checklists, load_checklist, parse_checklist, question_for

BUILTINS = ("contract-en", "contract-zh", "tender-en", "tender-zh")


# --- built-in checklists -------------------------------------------------------------------------------------------


def test_builtin_names() -> None:
    assert builtin_checklists() == list(BUILTINS)


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_loads_sound(name: str) -> None:
    checklist = load_checklist(name)
    assert checklist.name == name
    assert checklist.source == f"built-in:{name}"
    assert checklist.title and checklist.description
    ids = [item.id for item in checklist.items]
    assert len(ids) == len(set(ids))
    for item in checklist.items:
        assert item.kind in VALUE_KINDS
        assert item.label and item.section, item.id
        assert item.hints, item.id
        assert all(len(term) >= 2 for term in item.hints), f"{item.id}: a one-character hint matches everything"
        wanted = ("en",) if name.endswith("-en") else ("hans", "hant")
        for script in wanted:
            assert item.questions.get(script), f"{item.id}: no {script} question"


SIZES = [("tender-zh", 30), ("tender-en", 25), ("contract-en", 41), ("contract-zh", 25)]


@pytest.mark.parametrize(("name", "least"), SIZES)
def test_builtin_sizes(name: str, least: int) -> None:
    assert len(load_checklist(name).items) >= least


def test_builtin_questions_are_in_their_script() -> None:
    """A hant question holds no simplified-only character and a hans one no traditional-only one (a copy-paste slip
    would ask a Taiwan tender in mainland characters)."""
    from pikelocal.text.script import to_simplified, to_traditional

    for name in ("tender-zh", "contract-zh"):
        for item in load_checklist(name).items:
            assert to_simplified(item.questions["hans"]) == item.questions["hans"], item.id
            assert to_traditional(item.questions["hant"]) == item.questions["hant"], item.id


# The mainland / Taiwan pairs the issue names, each "mainland/taiwan".
VOCABULARY_PAIRS = (
    "投标保证金/押標金 定标/決標 供应商/廠商 投标截止/截止投標 投标截止/收件截止 开标/開標 履约保证金/履約保證金 "
    "服务建议书/服務建議書 简报/簡報 评审委员/評選委員 预算/採購預算 服务期/履約期限 付款方式/付款辦法 "
    "违约金/逾期違約金 知识产权/智慧財產權 分包/轉包 联合体/共同投標 语言/文字 份数/份數 页数/頁數"
)


def test_tender_zh_hints_cover_both_vocabularies() -> None:
    """Each pair the issue names (mainland / Taiwan) is among the hints of one item."""
    hints = {item.id: set(item.hints) for item in load_checklist("tender-zh").items}
    for pair in VOCABULARY_PAIRS.split():
        mainland, taiwan = pair.split("/")
        assert any(mainland in terms and taiwan in terms for terms in hints.values()), (mainland, taiwan)


def test_tender_zh_kinds_fit() -> None:
    items = {item.id: item for item in load_checklist("tender-zh").items}
    assert items["bid_deadline"].kind == "date"
    assert items["copies"].kind == "count"
    assert items["price_weight"].kind == "percentage"
    assert items["bid_bond"].kind == "amount"
    assert items["contract_term"].kind == "duration"
    assert items["joint_bid"].kind == "yesno"


def test_contract_en_has_every_cuad_category(shared_data: Path) -> None:
    with (shared_data / "legal_en" / "cuad_category_descriptions.csv").open(encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))[1:]
    categories = [row[0].removeprefix("Category: ").strip() for row in rows]
    checklist = load_checklist("contract-en")
    assert sorted(item.label for item in checklist.items) == sorted(categories)  # listed by section, not CUAD's order
    assert "CUAD v1, The Atticus Project, CC BY 4.0" in checklist.description
    kinds = {item.label: item.kind for item in checklist.items}
    assert kinds["Parties"] == "name" and kinds["Effective Date"] == "date" and kinds["Renewal Term"] == "duration"
    assert kinds["Non-Compete"] == "yesno"


# --- a user's file -------------------------------------------------------------------------------------------------

GOOD = """\
name = "mine"
title = "My list"
description = "two items"

[[items]]
id = "bond"
label = "Bid bond"
section = "Money"
kind = "amount"
question.en = "What is the bid bond?"
question.hans = "投标保证金是多少？"
hints = ["bid bond", "押標金", "bid bond"]

[[items]]
id = "jv-ok_2"
label = "Joint bids"
kind = "yes/no"
question = { hant = "是否允許共同投標？" }
"""


def test_user_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD, encoding="utf-8")
    checklist = load_checklist(path)
    assert (checklist.name, checklist.title, checklist.description, checklist.source) == (
        "mine", "My list", "two items", str(path),
    )  # fmt: skip
    bond, joint = checklist.items
    assert bond == ChecklistItem(
        id="bond", label="Bid bond", kind="amount", section="Money", hints=("bid bond", "押標金"),
        questions={"hans": "投标保证金是多少？", "en": "What is the bid bond?"},
    )  # fmt: skip
    assert list(bond.questions) == ["hans", "en"]  # CHECKLIST_SCRIPTS' order, whatever the file's
    assert (joint.id, joint.kind, joint.section, joint.hints) == ("jv-ok_2", "yesno", "", ())
    assert load_checklist(str(path)) == checklist


def test_name_and_title_default_to_the_file_stem(tmp_path: Path) -> None:
    text = '[[items]]\nid = "a"\nlabel = "A"\nkind = "text"\nquestion.en = "A?"\n'
    checklist = parse_checklist(text, str(tmp_path / "audit-list.toml"))
    assert (checklist.name, checklist.title) == ("audit-list", "audit-list")


def test_bare_word_is_a_builtin_first_then_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tender-zh").write_text(GOOD, encoding="utf-8")
    (tmp_path / "mylist").write_text(GOOD, encoding="utf-8")
    assert load_checklist("tender-zh").source == "built-in:tender-zh"
    assert load_checklist("mylist").name == "mine"


def test_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert load_checklist(path).name == "mine"


# --- bad files: one line, the file and the line ----------------------------------------------------------------------

ITEM = 'id = "{id}"\nlabel = "L"\nkind = "text"\nquestion.en = "Q?"\n'  # four lines


def _error(tmp_path: Path, text: str) -> tuple[Path, str]:
    path = tmp_path / "mylist.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ChecklistError) as caught:
        load_checklist(path)
    message = caught.value.args[0]
    assert "\n" not in message and message == str(caught.value)
    assert isinstance(caught.value, InputError)
    return path, message


BAD_FILES = [
    # (what, text, line, words in the message)
    ("toml syntax", 'name = "x"\n[[items]]\nid = "a"\nlabel = "A"\nkind = amount\n', 5, ["not valid TOML"]),
    ("unterminated string", 'name = "x"\ntitle = "y\n\n', 2, ["not valid TOML", "Illegal character"]),
    ("unterminated at end", 'name = "x"\ndescription = """abc\n\nmore\n', 4, ["not valid TOML", "Unterminated"]),
    ("duplicate key", '[[items]]\nid = "a"\nid = "b"\n', 3, ["not valid TOML"]),
    (
        "unknown kind",
        'name = "x"\n\n[[items]]\n' + ITEM.format(id="a") + '\n[[items]]\nid = "bond"\nlabel = "B"\nkind = "money"\n'
        'question.en = "Q?"\n',
        9,
        ['item "bond"', 'kind "money" is not one of amount, date, duration, count, percentage, yesno'],
    ),
    ("missing kind", '[[items]]\nid = "a"\nlabel = "A"\nquestion.en = "Q?"\n', 1, ['item "a"', "no kind"]),
    ("missing id", '[[items]]\n' + ITEM.format(id="a") + '[[items]]\nlabel = "A"\n', 6, ["item 2", "no id"]),
    ("missing label", '[[items]]\nid = "a"\nkind = "text"\nquestion.en = "Q?"\n', 1, ['item "a"', "no label"]),
    ("missing question", '[[items]]\nid = "a"\nlabel = "A"\nkind = "date"\n', 1, ['item "a"', "no question"]),
    ("question not a table", '[[items]]\nid = "a"\nlabel = "A"\nkind = "date"\nquestion = "When?"\n', 1,
     ["question must be a table", "question.hans"]),
    ("unknown script", '\n\n[[items]]\nid = "a"\nlabel = "A"\nkind = "date"\nquestion.fr = "Quand?"\n', 3,
     ['item "a"', 'unknown script "question.fr"']),
    ("empty question", '[[items]]\nid = "a"\nlabel = "A"\nkind = "date"\nquestion.en = " "\n', 1,
     ["question.en is empty"]),
    ("duplicate id", '[[items]]\n' + ITEM.format(id="a") + '\n[[items]]\n' + ITEM.format(id="a"), 7,
     ['item "a"', "duplicate id", "line 1"]),
    ("bad id characters", '[[items]]\n' + ITEM.format(id="a") + '[[items]]\n' + ITEM.format(id="Bond Amount"), 6,
     ["item 2", 'id "Bond Amount" may hold only a-z, 0-9, _ and -']),
    ("id not a string", '[[items]]\nid = 7\nlabel = "A"\n', 1, ["item 1", "id must be a string, not an integer"]),
    ("label wrong type", '[[items]]\nid = "a"\nlabel = 3\nkind = "text"\nquestion.en = "Q?"\n', 1,
     ['item "a"', "label must be a string, not an integer"]),
    ("hints a string", '[[items]]\n' + ITEM.format(id="a") + 'hints = "预算"\n', 1,
     ['item "a"', "hints must be a list of strings", "not a string"]),
    ("hints with a number", '\n[[items]]\n' + ITEM.format(id="a") + 'hints = ["a", 2]\n', 2,
     ["hints must be a list of strings", "a list holding an integer"]),
    ("unknown item key", '[[items]]\n' + ITEM.format(id="a") + '[[items]]\n' + ITEM.format(id="b") + 'hint = ["x"]\n',
     6, ['item "b"', 'unknown key "hint"']),
    ("bound not max or min", '[[items]]\n' + ITEM.format(id="a") + 'bound = "ceiling"\n', 1,
     ['item "a"', 'bound "ceiling" is not "max" (a ceiling) or "min" (a floor)']),
    ("bound not a string", '[[items]]\n' + ITEM.format(id="a") + 'bound = 1\n', 1, ['item "a"', "bound an integer"]),
    ("named not a boolean", '[[items]]\n' + ITEM.format(id="a") + 'named = "yes"\n', 1,
     ['item "a"', "named must be true or false, not a string"]),
    ("unknown top-level key", 'name = "x"\ntitel = "y"\n[[items]]\n' + ITEM.format(id="a"), 2, ['unknown key "titel"']),
    ("items misspelt", 'name = "x"\n\n[[item]]\n' + ITEM.format(id="a"), 3, ['unknown key "item"', "[[items]]"]),
    ("empty items", 'name = "x"\ntitle = "y"\nitems = []\n', 3, ["items list is empty"]),
    ("no items", 'name = "x"\n', 1, ["no items"]),
    ("title wrong type", 'name = "x"\ntitle = 5\n[[items]]\n' + ITEM.format(id="a"), 2, ['"title" must be a string']),
]  # fmt: skip


@pytest.mark.parametrize(("what", "text", "line", "words"), BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_bad_file_one_line_naming_file_and_line(
    tmp_path: Path, what: str, text: str, line: int, words: list[str]
) -> None:
    path, message = _error(tmp_path, text)
    assert message.startswith(f"{path}:{line}: "), message
    for word in words:
        assert word in message, message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ChecklistError, match=r"nope\.toml: no such checklist file$"):
        load_checklist(tmp_path / "nope.toml")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(ChecklistError, match="is a directory"):
        load_checklist(str(tmp_path) + "/")


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "big5.toml"
    path.write_bytes(b'name = "x"\n' + 'title = "押標金"\n'.encode("big5"))
    with pytest.raises(ChecklistError) as caught:
        load_checklist(path)
    assert str(caught.value).startswith(f"{path}:2: not UTF-8 text")


def test_unknown_builtin_lists_the_names() -> None:
    with pytest.raises(ChecklistError) as caught:
        load_checklist("tender-jp")
    assert str(caught.value) == (
        'no checklist "tender-jp": the built-in ones are contract-en, contract-zh, tender-en, tender-zh; '
        "or give a .toml file"
    )


def test_empty_name() -> None:
    with pytest.raises(ChecklistError, match="^no checklist named: give one of contract-en, "):
        load_checklist(" ")


def test_parse_names_its_source() -> None:
    with pytest.raises(ChecklistError, match=r"^built-in:x:1: "):
        parse_checklist("name = \n", "built-in:x")


# --- question_for --------------------------------------------------------------------------------------------------


def _item(**questions: str) -> ChecklistItem:
    return ChecklistItem(id="a", label="A", kind="amount", questions=questions)  # type: ignore[arg-type]


def test_question_as_written() -> None:
    item = load_checklist("tender-zh").items[[i.id for i in load_checklist("tender-zh").items].index("bid_bond")]
    assert question_for(item, "hans") == "投标保证金是多少？"
    assert question_for(item, "hant") == "押標金金額是多少？"  # Taiwan's own word, not a conversion
    assert question_for(item, "en") == "投标保证金是多少？"


def test_question_converted_between_chinese_scripts() -> None:
    assert question_for(_item(hans="投标保证金是多少？"), "hant") == "投標保證金是多少？"
    assert question_for(_item(hant="履約保證金是多少？"), "hans") == "履约保证金是多少？"


def test_question_falls_back_to_what_is_there() -> None:
    assert question_for(_item(en="What is the bid bond?"), "hans") == "What is the bid bond?"
    assert question_for(_item(en="What is the bid bond?"), "hant") == "What is the bid bond?"
    assert question_for(_item(hant="押標金是多少？"), "en") == "押標金是多少？"
    assert set(CHECKLIST_SCRIPTS) == {"hans", "hant", "en"}
