"""Checking an answer against its sources, without a model: the claims an answer makes and the facts each carries
(``claims``), the sources' sentences and table rows and whether one supports a claim (``support``), the streaming
claim check (``check``), citation markers and the citations the model left out (``citations``, ``attribute``),
and where a model's quote stands in the sources (``quotes``). Imports no other part of ``query``."""
