"""Splitting a read document into chunks: structure-aware, semantic or by the LLM (``split_struct``,
``split_semantic``, ``split_llm``), each chunk with its contextual header (``context``); ``chunking`` chooses."""
