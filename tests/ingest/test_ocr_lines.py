"""OCR boxes to page lines (pikelocal/ingest/read/ocr_lines.py) with synthetic boxes: order, joins, orientation."""

from __future__ import annotations

from pikelocal.ingest.read.ocr_lines import TextBox, join_pieces, orientation, page_text

W, H = 1000, 1400  # a portrait page in pixels


def box(left: float, top: float, right: float, bottom: float, text: str) -> TextBox:
    return TextBox(left, top, right, bottom, text)


def test_pieces_in_any_order_become_lines_top_to_bottom_left_to_right() -> None:
    boxes = [
        box(520, 203, 900, 231, "of the contract."),  # line 2, right piece, a few pixels lower than its neighbour
        box(100, 100, 480, 130, "The buyer shall"),  # line 1, left
        box(100, 200, 500, 228, "within 30 days"),  # line 2, left
        box(500, 102, 880, 128, "pay the price"),  # line 1, right
        box(100, 300, 300, 330, "Signed."),  # line 3
    ]
    assert page_text(boxes, 0, W, H) == "The buyer shall pay the price\nwithin 30 days of the contract.\nSigned."


def test_chinese_pieces_join_without_spaces_and_latin_with_one() -> None:
    assert join_pieces(["第二十八条", "无民事行为能力"]) == "第二十八条无民事行为能力"
    assert join_pieces(["Article 5", "applies"]) == "Article 5 applies"
    assert join_pieces(["依据", "GB 50010", "规范"]) == "依据GB 50010规范"  # no space next to a CJK character
    assert join_pieces(["（一）", "配偶；"]) == "（一）配偶；"  # full-width punctuation counts as CJK
    assert join_pieces([" a ", "", "b"]) == "a b"


def test_lines_close_together_stay_apart_and_a_skewed_line_stays_whole() -> None:
    # a scan turned by about 1°: each line's pieces step down 6 px; lines are 40 px apart with 28 px high text
    boxes = []
    for row in range(3):
        for col in range(4):
            top = 100 + 40 * row + 6 * col
            boxes.append(box(100 + 200 * col, top, 280 + 200 * col, top + 28, f"r{row}c{col}"))
    assert page_text(boxes, 0, W, H).splitlines() == [
        "r0c0 r0c1 r0c2 r0c3",
        "r1c0 r1c1 r1c2 r1c3",
        "r2c0 r2c1 r2c2 r2c3",
    ]


def test_a_tall_side_label_does_not_swallow_the_lines_beside_it() -> None:
    boxes = [
        box(100, 100, 800, 130, "第一条 本合同自双方签字之日起生效。"),
        box(100, 150, 800, 180, "第二条 本合同一式两份。"),
        box(900, 90, 930, 600, "骑缝章处不得书写"),  # a vertical note in the margin, 510 px tall
        box(100, 200, 800, 230, "第三条 未尽事宜另行协商。"),
    ]
    lines = page_text(boxes, 0, W, H).splitlines()
    assert lines[0] == "第一条 本合同自双方签字之日起生效。"
    assert "第二条 本合同一式两份。" in lines and "第三条 未尽事宜另行协商。" in lines
    assert "骑缝章处不得书写" in lines  # a line of its own, not glued to another
    assert len(lines) == 4


def test_vertical_columns_read_right_to_left() -> None:
    # traditional vertical writing: columns of upright characters, the first column on the right
    columns = ["臺北市某區公所", "壹、採購標的", "一、本案為勞務採購"]
    boxes = [box(900 - 60 * i, 100, 930 - 60 * i, 100 + 45 * len(text), text) for i, text in enumerate(columns)]
    turn = orientation(boxes, [False] * len(boxes))
    assert turn == 270
    assert page_text(boxes, turn, W, H).splitlines() == columns


def test_a_page_turned_a_quarter_the_other_way_reads_left_to_right_bottom_to_top() -> None:
    # English lines running bottom to top (the page turned 90° counter-clockwise); the classifier turned them round
    lines = ["first line of the page", "second line", "third line"]
    boxes = [box(100 + 50 * i, 1300 - 20 * len(t), 130 + 50 * i, 1300, t) for i, t in enumerate(lines)]
    boxes.append(box(100, 500, 130, 800, "more of the first line"))  # higher up the same column: read after
    turn = orientation(boxes, [True] * len(boxes))
    assert turn == 90
    assert page_text(boxes, turn, W, H).splitlines() == [
        "first line of the page more of the first line",
        "second line",
        "third line",
    ]


def test_an_upside_down_page_reads_from_the_bottom_right() -> None:
    # the page turned 180°: the first line is at the bottom, and its first piece at the right
    boxes = [
        box(600, 1250, 900, 1280, "Clause 1"),
        box(100, 1250, 500, 1280, "applies."),
        box(100, 1150, 900, 1180, "Clause 2 follows."),
    ]
    turn = orientation(boxes, [True, False, True])  # the classifier's majority (by characters) decides
    assert turn == 180
    assert page_text(boxes, turn, W, H) == "Clause 1 applies.\nClause 2 follows."


def test_upright_pages_stay_as_they_are_and_nothing_gives_an_empty_page() -> None:
    boxes = [box(100, 100, 400, 130, "Title"), box(100, 150, 900, 180, "Body text")]
    assert orientation(boxes, [True, False]) == 0  # 5 of 14 characters turned round: a misreading, not the page
    assert page_text([], 0, W, H) == ""
    assert page_text([box(10, 10, 50, 40, "  ")], 0, W, H) == ""
