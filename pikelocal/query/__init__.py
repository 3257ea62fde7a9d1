"""Query side, in four sub-packages: ``retrieve`` (search and fusion), ``verify`` (claims checked against the
sources), ``context`` (the sources within a budget) and ``answer`` (a question answered in a mode, Algorithm 1,
the cited answer)."""
