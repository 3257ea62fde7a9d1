"""Query side: search and fusion, answering a question in a mode (``modes``), Algorithm 1 (``decompose``), the
cited answer (``generate``) and checking its claims against the sources."""
