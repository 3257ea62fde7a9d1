"""Language, in one place, one module per concern: which language and script a text is in (``lang``, ``script``),
numbers (``numerals``: Chinese, financial, full-width and English), dates (``dates``: Chinese, numeric, English,
ROC years), the values documents print (``values``: amounts, durations, counts, percentages, over the numbers and
dates), negation and the words of a yes or a no (``negation``), what a question asks for (``question_kind``),
citations of laws (``legal_refs``), entity names by whole words (``entity_names``), the concept groups that align
the vocabularies of the mainland, Taiwan and English (``concepts``) and look-alike ideographs (``unicode_forms``).

Each module's word lists are data (module-level tables, or TOML beside it) and its code an engine over them; what
several modules know of a language (numerals, months, negations, question words) is written here once and asked
for. Pure functions over text; the layer just above ``domain`` (an import contract keeps it there).
"""
