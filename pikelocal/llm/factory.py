"""Build the configured LLM backend from settings (backends are imported lazily)."""

from __future__ import annotations

from pikelocal.assets import resolve_gguf
from pikelocal.config import LLMSettings, Settings
from pikelocal.llm.base import LLM


def open_llm(settings: Settings, *, llm: LLMSettings | None = None) -> LLM:
    """The in-process llama.cpp model, or a client for an OpenAI-compatible server."""
    cfg = llm or settings.llm
    if cfg.backend == "openai":
        from pikelocal.llm.openai_compat import OpenAICompatLLM

        return OpenAICompatLLM(
            cfg.base_url,
            cfg.model,
            api_key=cfg.api_key or None,
            timeout_s=cfg.timeout_s,
            max_parallel=cfg.parallel,
            context_tokens=cfg.n_ctx,
        )
    from pikelocal.llm.llama_cpp import LlamaCppLLM

    path = resolve_gguf(cfg.model, settings.models_path())
    return LlamaCppLLM(
        path,
        n_ctx=cfg.n_ctx,
        n_threads=cfg.threads or None,
        n_gpu_layers=cfg.gpu_layers,
        flash_attn=cfg.flash_attn,
        adapt_threads=cfg.adapt_threads,
    )
