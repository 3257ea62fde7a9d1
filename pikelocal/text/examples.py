"""Words that mark an example or a supposed case: a value in one states nothing of the document
("例如投标截止日为2014年6月30日"; "如投标截止日为2025年10月1日，则近3年是指…"; "for example, if the closing date is …").
Read by the conflicts of a review and by the statements of a document, so both leave the same values out.
"""

from __future__ import annotations

import re

EXAMPLE_WORDS_ZH: tuple[str, ...] = ("例如", "比如", "譬如", "举例", "舉例")
EXAMPLE_WORDS_EN: tuple[str, ...] = ("for example", "for instance", "e.g.")

# "例如", "for example"
EXAMPLE = re.compile("|".join(EXAMPLE_WORDS_ZH) + "|(?i:" + "|".join(re.escape(w) for w in EXAMPLE_WORDS_EN) + ")")
# 如 … 为 …，则 …: a case supposed to explain a rule, within one clause each
SUPPOSED_CASE = r"如[^，。；]{0,20}[为為][^，。；]{0,30}，[则則]"
EXAMPLE_OR_CASE = re.compile(f"{EXAMPLE.pattern}|{SUPPOSED_CASE}")
