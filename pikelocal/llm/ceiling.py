"""What llama.cpp itself can do with a GGUF on this machine: prompt and generation tokens/s at the lowest level.

Every speed target of pikelocal is a ratio to these figures, so they must be measured on the machine at hand,
with nothing of ours in the way: the model is driven through llama.cpp's batch API (``llama_decode``), greedy,
with no sampler chain, no grammar and no chat template. ``generation`` is aggregated over ``width`` sequences
decoded together in one batch per step (continuous batching's best case: every sequence always busy).

The only other module that imports ``llama_cpp`` is :mod:`pikelocal.llm.llama_cpp`; this one is for benchmarks
and ``pikelocal doctor``, never on the answering path.
"""

from __future__ import annotations

import ctypes
import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pikelocal.domain.errors import BackendError, ModelError
from pikelocal.llm.llama_batch import fill_batch
from pikelocal.llm.llama_cpp import check_gguf


@dataclass(frozen=True)
class TextScore:
    """How well a model predicts a fixed text: perplexity, and how often its top token is the other model's."""

    tokens: int
    perplexity: float
    top1: np.ndarray  # argmax token at every position (for agreement between two quantizations)


@dataclass(frozen=True)
class Ceiling:
    threads: int
    flash_attn: bool
    prompt_tokens: int  # tokens decoded in one batch for the prompt figure
    prompt_tps: float
    generation_tps: dict[int, float]  # width → aggregate tokens/s

    def best_width(self, *, min_gain: float = 1.1) -> int:
        """The narrowest width within 5 % of the best aggregate rate; 1 unless batching gains ≥ ``min_gain``."""
        one = self.generation_tps.get(1, 0.0)
        best = max(self.generation_tps.values(), default=0.0)
        if one <= 0 or best < one * min_gain:
            return 1
        return min(w for w, tps in self.generation_tps.items() if tps >= 0.95 * best)

    def seconds(self, prompt_tokens: float, generated_tokens: float, width: int = 1) -> float:
        """The ceiling time for a call that evaluates ``prompt_tokens`` and generates ``generated_tokens``."""
        gen = self.generation_tps.get(width) or self.generation_tps[1]
        return prompt_tokens / self.prompt_tps + generated_tokens / gen


class RawModel:
    """One GGUF and one context through llama.cpp's C API: batch decoding of several sequences, greedy."""

    def __init__(
        self,
        path: Path,
        *,
        threads: int,
        n_ctx: int = 4096,
        n_seq_max: int = 8,
        flash_attn: bool = True,
        gpu_layers: int = 0,
    ) -> None:
        check_gguf(path)
        from pikelocal.llm.llama_cpp import _route_native_logs, amx_kernels_built, load_llama_cpp

        L = load_llama_cpp()  # heavy: loads the shared library
        _route_native_logs(L)
        self.L = L
        self.path = path
        L.llama_backend_init()
        mparams = L.llama_model_default_params()
        mparams.n_gpu_layers = gpu_layers  # -1: all layers (a GPU build of llama.cpp)
        mparams.use_extra_bufts = not amx_kernels_built(L.llama_print_system_info())  # as LlamaCppLLM loads
        self.model = L.llama_model_load_from_file(str(path).encode(), mparams)
        if not self.model:
            raise ModelError(f"llama.cpp could not load {path}")
        self.vocab = L.llama_model_get_vocab(self.model)
        self.n_vocab = int(L.llama_vocab_n_tokens(self.vocab))
        cparams = L.llama_context_default_params()
        cparams.n_ctx = n_ctx
        cparams.n_batch = 512
        cparams.n_ubatch = 512
        cparams.n_seq_max = n_seq_max
        cparams.n_threads = threads
        cparams.n_threads_batch = threads
        cparams.kv_unified = True
        cparams.flash_attn_type = L.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attn else L.LLAMA_FLASH_ATTN_TYPE_DISABLED
        self.ctx = L.llama_init_from_model(self.model, cparams)
        if not self.ctx:
            L.llama_model_free(self.model)
            raise ModelError(f"cannot allocate a {n_ctx}-token context for {path}")
        self.memory = L.llama_get_memory(self.ctx)
        self.batch = L.llama_batch_init(512, 0, n_seq_max)
        self.threads, self.flash_attn, self.n_seq_max = threads, flash_attn, n_seq_max

    def close(self) -> None:
        L = self.L
        if self.ctx:
            L.llama_batch_free(self.batch)
            L.llama_free(self.ctx)
            L.llama_model_free(self.model)
            self.ctx = None

    def set_threads(self, threads: int) -> None:
        self.L.llama_set_n_threads(self.ctx, threads, threads)
        self.threads = threads

    def tokenize(self, text: str) -> list[int]:
        data = text.encode("utf-8")
        out = (self.L.llama_token * (len(data) + 8))()
        n = self.L.llama_tokenize(self.vocab, data, len(data), out, len(out), False, False)
        if n < 0:
            raise BackendError(f"tokenizing {len(data)} bytes failed ({n})")
        return list(out[:n])

    def clear(self) -> None:
        self.L.llama_memory_clear(self.memory, True)

    def decode(self, items: Sequence[tuple[int, int, int, bool]]) -> None:
        """Decode ``(token, position, sequence, want_logits)`` items as one batch (at most 512)."""
        fill_batch(self.batch, items)
        rc = self.L.llama_decode(self.ctx, self.batch)
        if rc != 0:
            raise BackendError(f"llama_decode failed ({rc}) on a batch of {len(items)} tokens")

    def logits(self, index: int) -> np.ndarray:
        ptr = self.L.llama_get_logits_ith(self.ctx, index)
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)), shape=(self.n_vocab,))

    # --- measurements -------------------------------------------------------------------------------------

    def prompt_rate(self, tokens: Sequence[int], reps: int = 3) -> float:
        """Tokens/s decoding ``tokens`` (≤ 512) as one batch into an empty cache, median of ``reps``."""
        times = []
        for _ in range(reps):
            self.clear()
            t0 = time.perf_counter()
            self.decode([(t, i, 0, i == len(tokens) - 1) for i, t in enumerate(tokens)])
            times.append(time.perf_counter() - t0)
        return len(tokens) / statistics.median(times)

    def generation_rate(self, prompts: Sequence[Sequence[int]], steps: int) -> float:
        """Aggregate tokens/s generating ``steps`` tokens greedily for each prompt, all in one batch per step."""
        self.clear()
        last: list[int] = []
        lengths = [len(p) for p in prompts]
        for seq, prompt in enumerate(prompts):  # prompts are not timed
            self.decode([(t, i, seq, i == len(prompt) - 1) for i, t in enumerate(prompt)])
            last.append(int(np.argmax(self.logits(len(prompt) - 1))))
        t0 = time.perf_counter()
        for step in range(steps):
            self.decode([(last[s], lengths[s] + step, s, True) for s in range(len(prompts))])
            last = [int(np.argmax(self.logits(s))) for s in range(len(prompts))]
        return len(prompts) * steps / (time.perf_counter() - t0)

    def score(self, tokens: Sequence[int]) -> TextScore:
        """Perplexity of ``tokens`` (≤ 512) under the model, and its top-1 prediction at every position."""
        self.clear()
        self.decode([(t, i, 0, True) for i, t in enumerate(tokens)])
        nll, top = [], []
        for i in range(len(tokens) - 1):
            row = self.logits(i).astype(np.float64)
            m = row.max()
            logz = m + np.log(np.exp(row - m).sum())
            nll.append(logz - row[tokens[i + 1]])
            top.append(int(row.argmax()))
        return TextScore(len(tokens), float(np.exp(np.mean(nll))), np.array(top))


@contextmanager
def raw_model(path: Path, **kwargs: Any) -> Iterator[RawModel]:
    model = RawModel(path, **kwargs)
    try:
        yield model
    finally:
        model.close()


def measure(
    model: RawModel, text: str, *, widths: Sequence[int] = (1, 2, 4, 8), prompt_tokens: int = 512, steps: int = 48
) -> Ceiling:
    """The ceiling on ``model``: ``text`` must tokenize to at least ``prompt_tokens`` tokens."""
    tokens = model.tokenize(text)
    if len(tokens) < prompt_tokens:
        raise ValueError(f"the text has {len(tokens)} tokens, fewer than the {prompt_tokens} asked for")
    prompt = model.prompt_rate(tokens[:prompt_tokens])
    gen: dict[int, float] = {}
    for width in widths:
        # distinct 32-token prompts, so no two sequences generate in lockstep from one state
        prompts = [tokens[32 * s : 32 * s + 32] for s in range(width)]
        gen[width] = model.generation_rate(prompts, steps)
    return Ceiling(model.threads, model.flash_attn, prompt_tokens, prompt, gen)


def measure_widths(model: RawModel, text: str, *, widths: Sequence[int] = (1, 2, 4), steps: int = 32) -> Ceiling:
    """Generation rates only (``pikelocal calibrate``: what the batch width needs, in ~10 s on 2 cores)."""
    tokens = model.tokenize(text)
    if len(tokens) < 32 * max(widths):
        raise ValueError(f"the text has {len(tokens)} tokens, fewer than the {32 * max(widths)} needed")
    gen = {w: model.generation_rate([tokens[32 * s : 32 * s + 32] for s in range(w)], steps) for w in widths}
    return Ceiling(model.threads, model.flash_attn, 0, 0.0, gen)


def quantize(source: Path, target: Path, ftype: str, threads: int) -> Path:
    """``source`` requantized by llama.cpp's own ``llama_model_quantize`` to ``ftype`` ("Q4_0", "Q8_0")."""
    from pikelocal.llm.llama_cpp import load_llama_cpp

    L = load_llama_cpp()
    params = L.llama_model_quantize_default_params()
    params.ftype = getattr(L, f"LLAMA_FTYPE_MOSTLY_{ftype}")
    params.allow_requantize = True
    params.nthread = threads
    tmp = target.with_suffix(".part")
    rc = L.llama_model_quantize(str(source).encode(), str(tmp).encode(), ctypes.byref(params))
    if rc != 0:
        tmp.unlink(missing_ok=True)
        raise BackendError(f"llama_model_quantize {source.name} → {ftype} failed ({rc})")
    tmp.replace(target)
    return target
