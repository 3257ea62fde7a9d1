"""Retrieval: chunk search (BM25, dense, late, atomic questions, the entity graph) and its fusion, fact hops,
fusion tuned per KB, summary-tree nodes, the candidates of Algorithm 1 and the LLM's listwise rerank. Imports no
other part of ``query``."""
