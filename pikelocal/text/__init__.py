"""Language, in one place: which language and script a text is in (``lang``, ``script``), the values documents print
(``values``: numerals, amounts, dates, durations, counts, percentages) and the concept groups that align the
vocabularies of the mainland, Taiwan and English (``concepts``).

Pure functions over text; the bottom of the package above ``domain`` (an import contract keeps it there).
"""
