"""Review checklists read from TOML: the built-in ones shipped in ``review/checklists/`` and the user's own
(``--checklist FILE``).

A checklist is a small TOML file::

    name = "tender-zh"                      # optional: the file's stem when left out
    title = "招标文件审查清单 / 招標文件審查清單"  # optional: the name when left out
    description = "…"                       # optional

    [[items]]
    id = "budget"                           # unique in the file; [a-z0-9_-]+
    label = "采购预算 / 採購預算"
    section = "金额与保证金"                  # optional: the heading it is listed under in a report
    kind = "amount"                         # amount, date, duration, count, percentage, yesno, name, list, text
                                            # ("yes/no" may be written for yesno)
    question.hans = "本项目的采购预算是多少？"
    question.hant = "本案的採購預算金額是多少？"
    question.en = "…"                       # at least one of hans / hant / en
    hints = ["预算", "採購預算", "最高限价", "預算金額"]   # optional: terms added to the item's search
    bound = "max"                           # optional: the answer is a ceiling ("max") or a floor ("min"), and its
                                            # figure must be printed as one in the quote (不超过, 为上限, 至少)
    named = true                            # optional: stated only where the documents name it (its label's own
                                            # concepts); where nothing does, not stated without asking the model

No other keys are accepted, at the top or in an item: a misspelt key would otherwise be dropped without a word.
Every error is a :class:`ChecklistError` whose message is one line naming the file and line (``mylist.toml:14: item
"bond": kind "money" is not one of …``): tomllib's own line for a syntax error, the line of the item's ``[[items]]``
header for an error in an item, so the user goes straight to what to fix.

The file is read by ``review/checklist_file.py`` (size, nesting and item count bounded in one pass that also
numbers the item headers' lines), and every text is bounded here (:data:`MAX_CHARS`, :data:`MAX_HINTS`): a
checklist's question is a sentence, and a megabyte "question" would be accepted only to fail minutes later as a
prompt over the model's context, without the item's name.

A question written in one Chinese script serves the other too (:func:`question_for` converts it with OpenCC), so a
checklist need not carry both; the built-in ``tender-zh`` does, in each side's own vocabulary (押標金 / 投标保证金).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pikelocal.domain.errors import ChecklistError
from pikelocal.domain.review import (
    CHECKLIST_SCRIPTS,
    VALUE_KINDS,
    Checklist,
    ChecklistItem,
    ChecklistScript,
    ValueKind,
)
from pikelocal.domain.shown import shown_name
from pikelocal.review.checklist_file import MAX_ITEMS, TomlLines, parse_toml, read_text
from pikelocal.text.script import to_simplified, to_traditional

_TOP_KEYS = ("name", "title", "description", "items")
_ITEM_KEYS = ("id", "label", "section", "kind", "question", "hints", "bound", "named")
_ID = re.compile(r"[a-z0-9_-]+")
_KIND_ALIASES: Mapping[str, ValueKind] = {"yes/no": "yesno"}
# The most characters of each text (a hint: of each term). The built-ins' longest question is some 60 characters.
MAX_CHARS: Mapping[str, int] = {
    "name": 100, "title": 200, "description": 2_000, "id": 64, "label": 200, "section": 200, "kind": 20,
    "question": 500, "hint": 100,
}  # fmt: skip
MAX_HINTS = 50
_BUILTIN_DIR = "checklists"

_TYPE_NAMES: Mapping[type, str] = {
    bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array", dict: "a table",
}  # fmt: skip
_Fail = Callable[[str], ChecklistError]  # an item's error maker: a message in, the error to raise out


def builtin_checklists() -> list[str]:
    """The names of the checklists shipped with pikelocal, sorted (what ``--checklist NAME`` accepts)."""
    folder = resources.files("pikelocal.review") / _BUILTIN_DIR
    return sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir() if entry.name.endswith(".toml"))


def load_checklist(name_or_path: str | Path) -> Checklist:
    """A built-in checklist by name (``tender-zh``) or a user's TOML file by path.

    A ``Path``, or a string with a path separator or ending in ``.toml``, is always a file; a bare word is a built-in
    name first and a file only when no built-in has that name, so ``tender-zh`` in the working directory does not
    shadow the shipped list by accident.
    """
    if isinstance(name_or_path, str) and not name_or_path.strip():
        raise ChecklistError(f"no checklist named: give one of {', '.join(builtin_checklists())} or a .toml file")
    if isinstance(name_or_path, str) and _looks_like_name(name_or_path):
        if name_or_path in builtin_checklists():
            return _load_builtin(name_or_path)
        if not Path(name_or_path).exists():
            names = ", ".join(builtin_checklists())
            raise ChecklistError(f'no checklist "{name_or_path}": the built-in ones are {names}; or give a .toml file')
    path = Path(name_or_path)
    return parse_checklist(read_text(path), shown_name(str(path)))


def parse_checklist(text: str, source: str) -> Checklist:
    """The checklist written in ``text``; ``source`` names it in errors and in the result (a path, ``built-in:NAME``).

    Raises :class:`ChecklistError` with a one-line message naming ``source`` and the line.
    """
    parsed = parse_toml(text, source)
    data, lines = parsed.data, parsed.lines
    _check_top_keys(data, lines, source)
    items = _read_items(data, lines, source)
    name = _top_string(data, "name", lines, source) or _stem(source)
    title = _top_string(data, "title", lines, source) or name
    description = _top_string(data, "description", lines, source)
    return Checklist(name=name, title=title, items=items, source=source, description=description)


def question_for(item: ChecklistItem, script: ChecklistScript) -> str:
    """The item's question in ``script``: as written when it is; else converted from the other Chinese script
    (OpenCC: a simplified question asked of a Taiwan tender comes out in Taiwan's characters); else what is there
    (an English question for a Chinese script, a Chinese one for English), since asking something beats asking
    nothing and the answering engine replies in the question's language."""
    written = item.questions.get(script)
    if written:
        return written
    if script == "hans" and item.questions.get("hant"):
        return to_simplified(item.questions["hant"])
    if script == "hant" and item.questions.get("hans"):
        return to_traditional(item.questions["hans"])
    for other in CHECKLIST_SCRIPTS:
        if item.questions.get(other):
            return item.questions[other]
    return ""  # unreachable for a parsed item: parsing demands one question


# --- reading the file ---------------------------------------------------------------------------------------------


def _looks_like_name(value: str) -> bool:
    """A bare word (no separator, no .toml): possibly a built-in name rather than a file."""
    return "/" not in value and "\\" not in value and not value.lower().endswith(".toml")


@cache
def _load_builtin(name: str) -> Checklist:
    """A shipped checklist, parsed once per process (they are immutable package data)."""
    resource = resources.files("pikelocal.review") / _BUILTIN_DIR / f"{name}.toml"
    return parse_checklist(resource.read_text(encoding="utf-8"), f"built-in:{name}")


def _stem(source: str) -> str:
    """A checklist's default name: its file's stem (``built-in:x`` → x)."""
    return Path(source.removeprefix("built-in:")).stem or source


# --- errors with their line ----------------------------------------------------------------------------------------


def _top_error(lines: TomlLines, source: str, key: str, what: str) -> ChecklistError:
    """An error in a top-level key, at the line that sets it."""
    return ChecklistError(f"{source}:{lines.top_key_line(key)}: {what}")


def _item_error(lines: TomlLines, source: str, index: int, item_id: str, what: str) -> ChecklistError:
    """An error in item ``index`` (0-based), at its ``[[items]]`` header and named by its id when it has a good one."""
    who = f'item "{item_id}"' if item_id else f"item {index + 1}"
    return ChecklistError(f"{source}:{lines.item_line(index)}: {who}: {what}")


# --- the top level -------------------------------------------------------------------------------------------------


def _check_top_keys(data: Mapping[str, Any], lines: TomlLines, source: str) -> None:
    """No key but name, title, description and items: ``[[item]]`` or ``titel`` is a typo, not something to drop."""
    for key in data:
        if key not in _TOP_KEYS:
            hint = " (items are written [[items]])" if key in ("item", "Items", "ITEMS") else ""
            allowed = ", ".join(_TOP_KEYS)
            raise _top_error(lines, source, key, f'unknown key "{_excerpt(key)}"{hint}; a checklist has {allowed}')


def _top_string(data: Mapping[str, Any], key: str, lines: TomlLines, source: str) -> str:
    """An optional top-level string ("" when absent), within its length."""
    value = data.get(key, "")
    if not isinstance(value, str):
        raise _top_error(lines, source, key, f'"{key}" must be a string, not {_type_name(value)}')
    if len(value.strip()) > MAX_CHARS[key]:
        raise _top_error(lines, source, key, _too_long(key, value.strip(), MAX_CHARS[key]))
    return value.strip()


def _read_items(data: Mapping[str, Any], lines: TomlLines, source: str) -> tuple[ChecklistItem, ...]:
    """Every item, checked, with ids unique across the file."""
    raw = data.get("items")
    if raw is None:
        raise ChecklistError(f"{source}:1: no items: write each one under an [[items]] header")
    if not isinstance(raw, list) or not all(isinstance(entry, dict) for entry in raw):
        raise _top_error(lines, source, "items", "items must be tables, each under an [[items]] header")
    if not raw:
        raise _top_error(lines, source, "items", "the items list is empty: a checklist needs at least one item")
    if len(raw) > MAX_ITEMS:
        raise _top_error(lines, source, "items", f"more than {MAX_ITEMS:,} items, which no checklist has")
    items: list[ChecklistItem] = []
    first_line: dict[str, int] = {}
    for index, entry in enumerate(raw):
        item = _read_item(entry, index, lines, source)
        if item.id in first_line:
            earlier = first_line[item.id]
            raise _item_error(lines, source, index, item.id, f"duplicate id (first used by the item at line {earlier})")
        first_line[item.id] = lines.item_line(index)
        items.append(item)
    return tuple(items)


# --- one item ------------------------------------------------------------------------------------------------------


def _read_item(entry: Mapping[str, Any], index: int, lines: TomlLines, source: str) -> ChecklistItem:
    """One ``[[items]]`` table as a :class:`ChecklistItem`; the first fault found is the error."""
    raw_id = entry.get("id")
    item_id = raw_id.strip() if isinstance(raw_id, str) and _ID.fullmatch(raw_id.strip()) else ""

    def fail(what: str) -> ChecklistError:
        return _item_error(lines, source, index, item_id, what)

    for key in entry:
        if key not in _ITEM_KEYS:
            raise fail(f'unknown key "{_excerpt(key)}"; an item has {", ".join(_ITEM_KEYS)}')
    if raw_id is None:
        raise fail('no id (id = "…", made of a-z, 0-9, _ and -)')
    if not isinstance(raw_id, str):
        raise fail(f"id must be a string, not {_type_name(raw_id)}")
    if not item_id:
        raise fail(f'id "{_excerpt(raw_id)}" may hold only a-z, 0-9, _ and - (and not be empty)')
    if len(item_id) > MAX_CHARS["id"]:
        item_id = ""  # not named by an id that long
        raise fail(_too_long("id", raw_id.strip(), MAX_CHARS["id"]))
    return ChecklistItem(
        id=item_id,
        label=_required_string(entry, "label", fail),
        kind=_kind(entry, fail),
        questions=_questions(entry, fail),
        hints=_hints(entry, fail),
        section=_optional_string(entry, "section", fail),
        bound=_bound(entry, fail),
        named=_named(entry, fail),
    )


def _named(entry: Mapping[str, Any], fail: _Fail) -> bool:
    """Whether the item is stated only where the documents name it: true or false, false when not given."""
    raw = entry.get("named", False)
    if not isinstance(raw, bool):
        raise fail(f"named must be true or false, not {_type_name(raw)}")
    return raw


def _bound(entry: Mapping[str, Any], fail: _Fail) -> Literal["min", "max", ""]:
    """The bound the item's answer must be printed as: "max", "min", or "" when not given."""
    raw = entry.get("bound", "")
    for bound in ("max", "min", ""):
        if raw == bound:
            return bound
    shown = f'"{_excerpt(raw)}"' if isinstance(raw, str) else _type_name(raw)
    raise fail(f'bound {shown} is not "max" (a ceiling) or "min" (a floor)')


def _required_string(entry: Mapping[str, Any], key: str, fail: _Fail) -> str:
    """A non-empty string the item must have."""
    if key not in entry:
        raise fail(f'no {key} ({key} = "…")')
    value = _optional_string(entry, key, fail)
    if not value:
        raise fail(f"{key} is empty")
    return value


def _optional_string(entry: Mapping[str, Any], key: str, fail: _Fail) -> str:
    """A string the item may have ("" when absent), within its length."""
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise fail(f"{key} must be a string, not {_type_name(value)}")
    if len(value.strip()) > MAX_CHARS[key]:
        raise fail(_too_long(key, value.strip(), MAX_CHARS[key]))
    return value.strip()


def _kind(entry: Mapping[str, Any], fail: _Fail) -> ValueKind:
    """The item's value kind, one of VALUE_KINDS ("yes/no" accepted for yesno, any case)."""
    written = _required_string(entry, "kind", fail)
    lowered = written.lower()
    for kind in VALUE_KINDS:
        if lowered == kind:
            return kind
    if lowered in _KIND_ALIASES:
        return _KIND_ALIASES[lowered]
    raise fail(f'kind "{_excerpt(written)}" is not one of {", ".join(VALUE_KINDS)} ("yes/no" may be written for yesno)')


def _questions(entry: Mapping[str, Any], fail: _Fail) -> dict[ChecklistScript, str]:
    """The item's questions by script, in CHECKLIST_SCRIPTS' order; at least one, each a non-empty string."""
    raw = entry.get("question")
    scripts = ", ".join(f"question.{s}" for s in CHECKLIST_SCRIPTS)
    if raw is None:
        raise fail(f'no question (write at least one of {scripts} = "…")')
    if not isinstance(raw, dict):
        raise fail(f'question must be a table by script ({scripts} = "…"), not {_type_name(raw)}')
    for script in raw:
        if script not in CHECKLIST_SCRIPTS:
            raise fail(f'unknown script "question.{_excerpt(script)}"; the scripts are {", ".join(CHECKLIST_SCRIPTS)}')
    questions: dict[ChecklistScript, str] = {}
    for script in CHECKLIST_SCRIPTS:
        if script not in raw:
            continue
        value = raw[script]
        if not isinstance(value, str):
            raise fail(f"question.{script} must be a string, not {_type_name(value)}")
        if not value.strip():
            raise fail(f"question.{script} is empty")
        if len(value.strip()) > MAX_CHARS["question"]:
            raise fail(_too_long(f"question.{script}", value.strip(), MAX_CHARS["question"]))
        questions[script] = value.strip()
    if not questions:
        raise fail(f'no question (write at least one of {scripts} = "…")')
    return questions


def _hints(entry: Mapping[str, Any], fail: _Fail) -> tuple[str, ...]:
    """The item's search terms: a list of at most :data:`MAX_HINTS` non-empty strings, each within its length,
    duplicates dropped in order."""
    raw = entry.get("hints", [])
    if not isinstance(raw, list) or not all(isinstance(term, str) for term in raw):
        raise fail(f'hints must be a list of strings (hints = ["…", "…"]), not {_describe_list(raw)}')
    if len(raw) > MAX_HINTS:
        raise fail(f"hints holds {len(raw):,} terms, more than the {MAX_HINTS} an item may have")
    if any(not term.strip() for term in raw):
        raise fail("hints holds an empty string")
    for term in raw:
        if len(term.strip()) > MAX_CHARS["hint"]:
            raise fail(_too_long("a hint", term.strip(), MAX_CHARS["hint"]))
    return tuple(dict.fromkeys(term.strip() for term in raw))


def _too_long(what: str, value: str, limit: int) -> str:
    """The message for a text over its limit: how long it is, the limit, and how it starts."""
    return f'{what} is {len(value):,} characters long, more than the {limit:,} allowed ("{_excerpt(value)}")'


def _excerpt(text: str, chars: int = 40) -> str:
    """The start of a text from the file, for a message: one line, at most ``chars`` characters."""
    shown = shown_name(text)
    return shown if len(shown) <= chars else shown[: chars - 1] + "…"


def _describe_list(value: object) -> str:
    """What a wrong ``hints`` value is, for the message."""
    if isinstance(value, list):
        odd = next(term for term in value if not isinstance(term, str))
        return f"a list holding {_type_name(odd)}"
    return _type_name(value)


def _type_name(value: object) -> str:
    """A TOML user's word for a parsed value's type."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)
