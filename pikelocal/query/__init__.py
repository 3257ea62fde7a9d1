"""Query side: ranking and fusion (retrieval, decomposition and answering come in later issues)."""
