"""Build the configured LLM backend from settings (backends are imported lazily)."""

from __future__ import annotations

from pathlib import Path

from pikelocal.assets import resolve_gguf
from pikelocal.config import LLMSettings, Settings, available_cpus
from pikelocal.llm.base import LLM
from pikelocal.llm.batch_width import machine_key, read_width


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
            loopback_only=not cfg.allow_remote,
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
        batch_width=batch_width(cfg, path),
    )


def batch_width(cfg: LLMSettings, path: Path) -> int:
    """``llm.batch``, or (0) the width measured for this model on this machine, or 1."""
    if cfg.batch:
        return cfg.batch
    return read_width(width_key(cfg, path)) or 1


def width_key(cfg: LLMSettings, path: Path) -> str:
    """The key of ``path``'s measured width under these settings."""
    return machine_key(model_id_of(path), threads_of(cfg), cfg.gpu_layers)


def model_id_of(path: Path) -> str:
    """The id :class:`~pikelocal.llm.llama_cpp.LlamaCppLLM` gives the model in ``path``."""
    from pikelocal.llm.llama_cpp import file_fingerprint

    return f"{path.stem}@{file_fingerprint(path)}"


def threads_of(cfg: LLMSettings) -> int:
    return cfg.threads or available_cpus()
