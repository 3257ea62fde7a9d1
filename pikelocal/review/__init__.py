"""Reviewing documents against a checklist: checklists read from TOML (``checklist``), values normalised
and compared (``values``), the key-figures sheet made without the LLM (``figures``), each item asked through the
answering engine and stored (``runner``), conflicts between quotes (``conflicts``), and reports (``export``).

Between the knowledge base and the pipelines: it asks through ``pikelocal.query`` and stores through
``pikelocal.store``; ``pikelocal.kb`` calls it.
"""
