"""A form's options that were not ticked, blanked out: what a reader (the model, the system's readers, the conflict
check) reads of a form is what its author chose.

Tender templates print every option and tick one (「■(二)財物」 among 「□(一)工程」 and 「□(三)勞務」, 「十三、本採購■不
允許□允許 共同投標」, 「☑不组织 □组织」). A reader that sees the unticked ones takes them as the project's facts: a
Taiwanese model form of 869 lines, most of them options not chosen, gave the 1.5B model 最有利標 for a lowest-price
award, 膠裝 for a binding it never asked for, and a budget from the bracket of a threshold.

Only a text that shows ticks (one of :data:`TICKED`) is touched, so a PDF whose ticked boxes lost their mark (all
printed □) keeps every option. In such a text a line that starts with an unticked box and holds no ticked one is
an option not chosen and is blanked whole (its sub-options with it); elsewhere an unticked box is blanked with its
option's words, up to the next box, space or mark (「□允許 共同投標」 keeps 共同投標, the thing the options are
about). Blanking writes spaces of the same length and keeps the line breaks, so every offset, line number and
citation stays as it was.
"""

from __future__ import annotations

import re

TICKED = "☑☒■✔"
UNTICKED = "□☐"
# a line that is an option not chosen: its first mark is an unticked box and it holds no ticked one (「□(一)工程。」,
# 「□不可參與投標。但□允許□不允許 在我國…」; not 「□是 /☑否」, a run of options on one line)
_UNTICKED_LINE = re.compile(rf"^[ \t]*[{UNTICKED}][^\n{TICKED}]*$", re.M)
# an unticked box inside a line and its option's words (「□允許」 of 「■不允許□允許 共同投標」)
_UNTICKED_OPTION = re.compile(rf"[{UNTICKED}][^\s{TICKED}{UNTICKED}，,。；;：:、|]*")


def shows_ticks(text: str) -> bool:
    """Whether the text holds a ticked box, so that its unticked ones are options not chosen."""
    return any(mark in text for mark in TICKED)


def blank_unticked(text: str, *, keep_boxes: bool = False) -> str:
    """``text`` with its unticked options blanked by spaces of the same length (line breaks kept); the text itself
    when it shows no tick. With ``keep_boxes`` the unticked boxes themselves stay (「☑不组织 □   」): a reader of
    ticks still sees that the ticked option was one of several."""
    if not shows_ticks(text):
        return text
    chars = list(text)
    for pattern in (_UNTICKED_LINE, _UNTICKED_OPTION):
        for m in pattern.finditer(text):
            for i in range(m.start(), m.end()):
                if chars[i] != "\n" and not (keep_boxes and chars[i] in UNTICKED):
                    chars[i] = " "
    return "".join(chars)
