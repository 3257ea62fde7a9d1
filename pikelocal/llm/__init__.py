"""LLM backends behind one protocol: in-process llama.cpp, OpenAI-compatible HTTP, a cache wrapper."""
