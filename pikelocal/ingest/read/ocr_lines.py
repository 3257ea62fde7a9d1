"""OCR boxes to page text: one line per visual line, lines top to bottom, pieces left to right (pure; no model).

The OCR engine (``ocr.py``) returns one box per piece of text it found, in no useful order. A page's text must
read like a text-layer page's, one line per visual line, so that line numbers in citations and the viewer point at
what a reader sees. Boxes are grouped into lines by their vertical overlap and the pieces of a line are joined with
a space, or with nothing between CJK characters (Chinese has no spaces between words).

A page whose text runs sideways is turned upright first (:func:`orientation`): tall boxes whose text the
orientation classifier left as it was are columns read top to bottom, right to left (vertical Chinese writing, or a
page scanned a quarter turn clockwise); tall boxes it turned round are a page a quarter turn the other way; wide
boxes it turned round are a page upside down.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

Orientation = int  # the turn (degrees clockwise: 0, 90, 180, 270) that brings the page's text upright

ROW_OVERLAP = 0.5  # a box joins a line when they overlap vertically by half the smaller height
TALL_RATIO = 1.5  # a box this much taller than wide holds text running sideways (rapidocr turns such crops)
# Characters written without spaces between them: CJK ideographs (with extensions and compatibility forms), kana,
# CJK punctuation and full-width forms. Hangul is left out: Korean puts spaces between words.
_CJK = re.compile(
    "[\u2e80-\u2fdf\u3000-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f"
    "\uff00-\uffef\U00020000-\U0003134f]"
)


@dataclass(frozen=True)
class TextBox:
    """One piece of recognised text and the box around it, in pixels (y grows downwards)."""

    left: float
    top: float
    right: float
    bottom: float
    text: str

    @classmethod
    def from_points(cls, points: Sequence[Sequence[float]], text: str) -> TextBox:
        """The axis-aligned box around a quadrilateral (rapidocr's four corners)."""
        xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
        return cls(min(xs), min(ys), max(xs), max(ys), text)

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.bottom - self.top

    def is_tall(self) -> bool:
        return self.height >= TALL_RATIO * max(self.width, 1.0)


def orientation(
    shapes: Sequence[TextBox], turned: Sequence[bool], weights: Sequence[float] | None = None
) -> Orientation:
    """How far to turn the page to read it (see the module's description), from the detected boxes and whether
    the orientation classifier turned each one round (180°); the majority by characters (``weights``, else the
    boxes' text lengths) decides."""
    weight = list(weights) if weights is not None else [max(len(box.text.strip()), 1) for box in shapes]
    tall = sum(w for box, w in zip(shapes, weight, strict=True) if box.is_tall())
    if 2 * tall > sum(weight):
        pieces = [(w, t) for box, w, t in zip(shapes, weight, turned, strict=True) if box.is_tall()]
        return 90 if 2 * sum(w for w, t in pieces if t) > sum(w for w, _ in pieces) else 270
    flipped = sum(w for w, t in zip(weight, turned, strict=True) if t)
    return 180 if 2 * flipped > sum(weight) else 0


def upright(box: TextBox, turn: Orientation, width: float, height: float) -> TextBox:
    """``box`` on a page of ``width`` x ``height`` pixels, in the coordinates of the page turned by ``turn``.

    270 (columns read top to bottom, right to left): a point (x, y) goes to (y, width - x); 90 (columns read
    bottom to top, left to right): to (height - y, x); 180: to (width - x, height - y).
    """
    if turn == 270:
        return TextBox(box.top, width - box.right, box.bottom, width - box.left, box.text)
    if turn == 90:
        return TextBox(height - box.bottom, box.left, height - box.top, box.right, box.text)
    if turn == 180:
        return TextBox(width - box.right, height - box.bottom, width - box.left, height - box.top, box.text)
    return box


class _Row:
    def __init__(self, box: TextBox) -> None:
        self.boxes = [box]
        self.top, self.bottom = box.top, box.bottom

    def overlap(self, box: TextBox) -> float:
        return min(self.bottom, box.bottom) - max(self.top, box.top)

    def add(self, box: TextBox) -> None:
        self.boxes.append(box)
        n = len(self.boxes)  # the row's band is its boxes' mean: a skewed line cannot chain into the next
        self.top += (box.top - self.top) / n
        self.bottom += (box.bottom - self.bottom) / n


def group_lines(boxes: Sequence[TextBox]) -> list[list[TextBox]]:
    """Boxes grouped into lines (top to bottom), each line's boxes left to right.

    A box joins the line above it when they overlap vertically by at least :data:`ROW_OVERLAP` of the smaller
    height; a box much taller than its neighbours (a stamp, a side label) would swallow the lines beside it, so a
    box that is tall among wide ones stands as a line of its own.
    """
    rows: list[_Row] = []
    alone: list[_Row] = []
    for box in sorted((b for b in boxes if b.text.strip()), key=lambda b: (b.top + b.bottom) / 2):
        if box.is_tall() and len(box.text.strip()) > 1:
            alone.append(_Row(box))
            continue
        row = rows[-1] if rows else None
        if row is not None and row.overlap(box) >= ROW_OVERLAP * min(box.height, row.bottom - row.top):
            row.add(box)
        else:
            rows.append(_Row(box))
    ordered = sorted(rows + alone, key=lambda r: (r.top + r.bottom) / 2)
    return [sorted(row.boxes, key=lambda b: b.left) for row in ordered]


def join_pieces(pieces: Sequence[str]) -> str:
    """The pieces of one line as one string: a space between them, none where either side is a CJK character."""
    out = ""
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        if out and not (_CJK.match(out[-1]) or _CJK.match(piece[0])):
            out += " "
        out += piece
    return out


def page_text(boxes: Sequence[TextBox], turn: Orientation, width: float, height: float) -> str:
    """The page's text, one line per visual line (no trailing newline; empty when no box holds text)."""
    turned = [upright(box, turn, width, height) for box in boxes]
    lines = (join_pieces([b.text for b in line]) for line in group_lines(turned))
    return "\n".join(line for line in lines if line)
