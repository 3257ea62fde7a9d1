"""The words that give a party a power over the other ("機關得終止契約", "将据以解除契约", "有权解除合同", "the
Purchaser may terminate"), and the words that name a right, so that a right given up ("视同放弃…之权益") is told
from a bid or a step given up ("视同放弃简报").

Matched in folded text (``text/concepts.fold``: simplified script, lower case). 得 is a power only on its own: not
in 不得 (a prohibition), 取得, 获得, 所得, 使得, 值得, 记得, 懂得 or 觉得, nor as 得标, 得分 or 得到.
"""

from __future__ import annotations

import re

_MAY_ZH = r"(?<![不取获所使值记懂觉])得(?![标分到])|将|可以|有权"
_MAY_EN = (
    r"(?<![a-z])(?:may|will|shall\s+be\s+entitled\s+to|is\s+entitled\s+to|has\s+the\s+right\s+to"
    r"|reserves\s+the\s+right\s+to)(?![a-z])"
)
# A power a party has: the first of these words in the text before what it may do.
POWER = re.compile(rf"{_MAY_ZH}|{_MAY_EN}")
# A power denied right before what it would do ("不得终止", "may not terminate").
POWER_DENIED = re.compile(r"(?:不得|不能|不可|无权|(?<![a-z])(?:may\s+not|shall\s+not|cannot|will\s+not))\s*$")
# A right or a chance (what a party keeps or gives up), not a bid or a step of the procedure.
RIGHT = re.compile(r"权益|权利|权力|机会|(?<![a-z])(?:rights?|claims?|remed(?:y|ies)|opportunity)(?![a-z])")
