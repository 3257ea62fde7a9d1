"""Contextual chunk headers."""

from pikelocal.ingest.split.context import chunk_header, with_header


def test_header_joins_title_and_path_without_repeating_the_title() -> None:
    header = chunk_header("中华人民共和国招标投标法", ["中华人民共和国招标投标法", "第二章 招标", "第十条"])
    assert header == "中华人民共和国招标投标法 › 第二章 招标 › 第十条"
    assert chunk_header("Tender", [], summary=" A tender for dyke works. ") == "Tender\nA tender for dyke works."
    assert with_header(header, "第十条 招标分为公开招标和邀请招标。").split("\n\n") == [
        header,
        "第十条 招标分为公开招标和邀请招标。",
    ]
    assert with_header("", "text") == "text" and chunk_header("", []) == ""
