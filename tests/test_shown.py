"""What a name or a JSON record shows of text a document or a server chose (``domain/shown.py``): a name on
one line with its control characters escaped, and JSON with C1 controls and bidi marks escaped that still reads as
the same data."""

from __future__ import annotations

import json

from pikelocal.domain.shown import escape_hidden_json, shown_name


def test_a_name_is_shown_on_one_line_with_its_controls_escaped() -> None:
    assert shown_name("a\nb\tc\x1b[2J\u202efdp.exe") == "a\\nb\\tc\\x1b[2J\\u202efdp.exe"
    assert shown_name("招标文件 v2.pdf") == "招标文件 v2.pdf"


def test_json_output_escapes_c1_controls_and_bidi_marks_and_stays_the_same_data() -> None:
    data = {"path": "x\u202egpj.exe", "title": "a\x9b31mb", "text": "第一条\n"}
    encoded = escape_hidden_json(json.dumps(data, ensure_ascii=False))
    assert "\u202e" not in encoded and "\x9b" not in encoded and "第一条" in encoded
    assert json.loads(encoded) == data
