"""Prompt templates: one module per prompt (Chinese and English text, a JSON schema, a parser)."""
