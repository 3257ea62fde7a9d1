"""The sources an answer reads: relevant segments or chunks with their neighbours within a token budget
(``segments``, ``expand``), contextual compression (``compress``), Algorithm 1's growing prompt prefix
(``workspace``) and where a span stands in its document (``locate``). Builds on ``query.verify``'s sentence units."""
