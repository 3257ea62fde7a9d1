"""What is added to the chunks once split: early and late vectors (``embed``), document summaries, atomic
questions and entities (``enrich``), and summary trees (``tree_plans``, ``clusters``, ``trees``)."""
