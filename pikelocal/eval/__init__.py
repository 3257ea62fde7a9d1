"""Benchmarks: retrieval (nDCG, recall, MRR per search mode) and QA (EM/F1 per answer mode, the honesty set) over
the BEIR, multi-hop, Chinese-law and AusLaw data; loaders in ``datasets/``."""
