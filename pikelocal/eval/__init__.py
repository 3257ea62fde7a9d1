"""Retrieval and QA evaluation: IR metrics and loaders for the BEIR, multi-hop and Chinese-law evaluation sets."""
