"""In-process LLM backend on llama-cpp-python: the only module that imports ``llama_cpp``.

``llama_cpp`` is imported inside the constructor so that importing this module (and ``--help``)
stays cheap. One ``Llama`` object is not thread-safe, so every call holds a lock and
``max_parallel`` is 1, unless the batch width is above 1: then greedy calls from up to that many threads are
decoded together by :mod:`pikelocal.llm.llama_batch` in a context of their own.

Prompt order matters for speed: llama-cpp-python keeps the KV cache of the previous call and only
evaluates the tokens after the longest common token prefix, so callers should put the fixed part
of a prompt (system prompt, instructions) first and the varying part last.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import threading
import time
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pikelocal.config import available_cpus
from pikelocal.domain.errors import BackendError, ConfigError, ModelError
from pikelocal.llm.base import Completion, GenParams, Message, json_default
from pikelocal.llm.threads import ThreadGovernor

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    from llama_cpp.llama_grammar import LlamaGrammar

    from pikelocal.llm.llama_batch import BatchEngine

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"


_native_log_callback: Any = None  # kept referenced: llama.cpp holds a raw pointer to it


def amx_kernels_built(system_info: bytes) -> bool:
    """Whether llama.cpp's system info (``llama_print_system_info``) says it was built with its AMX kernels.

    On a CPU with AMX such a build repacks the weights into an AMX buffer and, on the 2-core Xeon VMs we ran on,
    dies with SIGSEGV at the first decode (llama.cpp issue #20824). ``make setup`` builds without them; a build
    from elsewhere is loaded with weight repacking off, which avoids the AMX buffer."""
    return b"AMX_INT8 = 1" in system_info


@contextmanager
def _without_weight_repacking(llama_cpp: Any) -> Iterator[None]:
    """While loading, llama.cpp's model parameters come with ``use_extra_bufts`` off (no AMX or CPU repacking).

    ``Llama`` takes no argument for it: it starts from ``llama_model_default_params()``, looked up on the
    low-level module at call time, so that function is wrapped for the duration of the load."""
    low = llama_cpp.llama_cpp
    default = low.llama_model_default_params

    def params() -> Any:
        made = default()
        made.use_extra_bufts = False
        return made

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = default


def _route_native_logs(llama_cpp: Any) -> None:
    """Send llama.cpp's own log lines to ``logging`` at DEBUG instead of straight to stderr.

    llama-cpp-python's default callback prints ERROR lines to stderr even with ``verbose=False``,
    which would scribble over the TUI; our exceptions already say what went wrong.
    """
    global _native_log_callback
    if _native_log_callback is not None:
        return
    native = logging.getLogger(f"{__name__}.native")

    def log_line(level: int, text: bytes, user_data: Any) -> None:
        if native.isEnabledFor(logging.DEBUG):
            native.debug("%s", text.decode("utf-8", "replace").rstrip())

    callback = llama_cpp.llama_log_callback(log_line)  # a ctypes CFUNCTYPE wrapper of it
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    _native_log_callback = callback


CXX_RUNTIME = "libstdc++.so.6"
_cxx_runtime_global = False


def load_llama_cpp() -> Any:
    """``import llama_cpp`` (which loads llama.cpp's shared libraries), with the C++ runtime made global first.

    Every first import of ``llama_cpp`` in pikelocal goes through here. A CUDA build of llama.cpp (nvcc 13.0)
    exports weak copies of libstdc++ templates from ``libggml-cuda.so`` (144 ``std::basic_ostream`` ones, among
    them ``_M_insert<long>``). ctypes loads ``libllama.so`` with RTLD_LOCAL, so unless libstdc++ is already in the
    global scope, its calls bind to those copies, and loading a model dies with SIGSEGV inside
    ``llama_model::print_info``: seen on an H100 and an H200 whenever the LLM loaded before onnxruntime (which puts
    libstdc++ there). With libstdc++ loaded RTLD_GLOBAL first they bind to the real one (build/bench/device/README.md).
    Harmless for CPU builds; where the library cannot be found (not glibc) nothing is done.
    """
    global _cxx_runtime_global
    if not _cxx_runtime_global:
        try:
            ctypes.CDLL(CXX_RUNTIME, mode=ctypes.RTLD_GLOBAL)
        except OSError as exc:
            log.debug("cannot load %s globally before llama.cpp: %s", CXX_RUNTIME, exc)
        _cxx_runtime_global = True
    import llama_cpp

    return llama_cpp


def gpu_offload_supported() -> bool:
    """Whether this llama-cpp-python build can offload layers to a GPU (imports ``llama_cpp``)."""
    return bool(load_llama_cpp().llama_supports_gpu_offload())


def check_gguf(path: Path) -> None:
    """Raise :class:`ModelError` unless ``path`` is a readable file that starts like a GGUF file."""
    if not path.exists():
        raise ModelError(f"model file {path} does not exist")
    if not path.is_file():
        raise ModelError(f"model path {path} is not a file")
    try:
        with path.open("rb") as f:
            head = f.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {exc.strerror or exc}") from None
    if head != GGUF_MAGIC:
        raise ModelError(f"{path} is not a valid GGUF file (truncated or corrupt): it does not start with 'GGUF'")


def file_fingerprint(path: Path, edge_bytes: int = 1 << 20) -> str:
    """A cheap identity for a model file: size plus its first and last MiB (hashing 1 GB costs seconds).

    It is part of every cache key, so two different files that share a name never share cached answers.
    """
    digest = hashlib.sha256(str(path.stat().st_size).encode())
    with path.open("rb") as fh:
        digest.update(fh.read(edge_bytes))
        fh.seek(max(0, path.stat().st_size - edge_bytes))
        digest.update(fh.read(edge_bytes))
    return digest.hexdigest()[:12]


def _open_model(
    model_path: Path,
    *,
    n_ctx: int,
    threads: int,
    n_batch: int,
    n_gpu_layers: int,
    seed: int,
    flash_attn: bool,
    weight_repacking: bool | None,
) -> tuple[Llama, int]:
    """Load llama.cpp (heavy: its shared library) and the model; the model and the layers offloaded to a GPU (0 when
    this build has no GPU support, with a warning)."""
    llama_cpp = load_llama_cpp()
    _route_native_logs(llama_cpp)
    if n_gpu_layers != 0 and not gpu_offload_supported():
        log.warning(
            "n_gpu_layers=%d asked for, but this llama-cpp-python build has no GPU support; running on CPU",
            n_gpu_layers,
        )
        n_gpu_layers = 0
    if weight_repacking is None:
        weight_repacking = _repacking_safe(llama_cpp, model_path)
    start = time.perf_counter()
    llama = _load(
        llama_cpp,
        model_path,
        repack=weight_repacking,
        n_ctx=n_ctx,
        n_threads=threads,
        n_threads_batch=threads,
        n_batch=n_batch,
        n_gpu_layers=n_gpu_layers,
        seed=seed,
        flash_attn=flash_attn,
        verbose=False,
    )
    log.info("loaded %s in %.1f s (%d threads)", model_path.name, time.perf_counter() - start, threads)
    return llama, n_gpu_layers


def _batch_formatter(llama: Llama, batch_width: int, model_path: Path) -> Jinja2ChatFormatter | None:
    """The chat formatter batched calls need (``batch_width`` above 1); None when not batching, or when the GGUF
    has no chat template of its own (warned: its calls are not batched)."""
    if batch_width <= 1:
        return None
    formatter = _chat_formatter(llama)
    if formatter is None:
        log.warning("%s has no chat template of its own: calls are not batched", model_path.name)
    return formatter


def _repacking_safe(llama_cpp: Any, model_path: Path) -> bool:
    """Whether weight repacking is safe with this llama.cpp build: not when it has AMX kernels (warned once)."""
    if not amx_kernels_built(llama_cpp.llama_print_system_info()):
        return True
    log.warning(
        "this llama.cpp build has AMX kernels, which crash at the first decode (llama.cpp #20824): "
        "loading %s without weight repacking (slower); `make setup` builds llama.cpp without them",
        model_path.name,
    )
    return False


def _load(llama_cpp: Any, model_path: Path, *, repack: bool, n_ctx: int, **params: Any) -> Llama:
    """``llama_cpp.Llama`` of ``model_path`` with ``params`` (weight repacking off unless ``repack``); a one-line
    ModelError when llama.cpp cannot load it."""
    try:
        with nullcontext() if repack else _without_weight_repacking(llama_cpp):
            llama: Llama = llama_cpp.Llama(model_path=str(model_path), n_ctx=n_ctx, **params)
    except (ValueError, RuntimeError, OSError) as exc:
        # verbose=False hides llama.cpp's own log, so the exception is all we know.
        log.debug("llama.cpp failed to load %s: %r", model_path, exc)
        if "llama_context" in str(exc):
            raise ModelError(
                f"cannot allocate a {n_ctx}-token context for {model_path} (not enough memory? lower n_ctx)"
            ) from None
        raise ModelError(
            f"{model_path} is not a valid GGUF file (truncated or corrupt, "
            "or an architecture this llama.cpp build does not know)"
        ) from None
    return llama


class LlamaCppLLM:
    """A GGUF model run in this process. The chat template comes from the GGUF's metadata."""

    max_parallel = 1

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_batch: int = 512,
        n_gpu_layers: int = 0,
        model_id: str | None = None,
        seed: int = 0,
        flash_attn: bool = True,
        adapt_threads: bool = True,
        grammar_first: bool = True,
        weight_repacking: bool | None = None,
        batch_width: int = 1,
    ) -> None:
        """``weight_repacking``: let llama.cpp repack the weights for its faster kernels (its extra buffer types).
        None: yes, unless this llama.cpp build has AMX kernels (see :func:`amx_kernels_built`).

        ``batch_width``: above 1, greedy calls run on a :class:`~pikelocal.llm.llama_batch.BatchEngine` of that
        many sequences, and up to that many calls from different threads are decoded together (``max_parallel``);
        1 (or a GGUF without a chat template in its metadata) keeps llama-cpp-python's own one-sequence path."""
        model_path = Path(model_path)
        if n_ctx < 16:
            raise ConfigError(f"n_ctx for {model_path} must be at least 16, not {n_ctx}")
        if batch_width < 1:
            raise ConfigError(f"batch width for {model_path} must be at least 1, not {batch_width}")
        check_gguf(model_path)
        threads = n_threads or available_cpus()
        llama, n_gpu_layers = _open_model(
            model_path,
            n_ctx=n_ctx,
            threads=threads,
            n_batch=n_batch,
            n_gpu_layers=n_gpu_layers,
            seed=seed,
            flash_attn=flash_attn,
            weight_repacking=weight_repacking,
        )
        self.gpu_offload = n_gpu_layers != 0
        self.model_path = model_path
        self.model_id = model_id or f"{model_path.stem}@{file_fingerprint(model_path)}"
        self.context_tokens = n_ctx
        self.n_threads = threads
        self._llama: Llama | None = llama
        self._lock = threading.Lock()
        # On a GPU the threads only feed it; on the CPU they are the compute, and must not outnumber free cores.
        self._governor = ThreadGovernor(threads) if adapt_threads and not self.gpu_offload else None
        self.thread_changes = 0  # how often the governor changed the count (for tests and the log)
        self.grammar_first = grammar_first  # grammars checked token by token, not over the whole vocabulary
        self.n_batch, self.flash_attn = n_batch, flash_attn
        self._formatter = _batch_formatter(llama, batch_width, model_path)
        self.batch_width = batch_width if self._formatter is not None else 1
        self.max_parallel = self.batch_width
        self._engine: BatchEngine | None = None
        self._engine_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LlamaCppLLM({str(self.model_path)!r}, n_ctx={self.context_tokens})"

    @property
    def raw(self) -> Llama:
        """The underlying ``llama_cpp.Llama`` (for benchmarks). Not thread-safe; mind :attr:`lock`."""
        if self._llama is None:
            raise BackendError(f"model {self.model_path} was closed")
        return self._llama

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes with this model's tokenizer (no BOS, special tokens as plain text)."""
        # Tokenizing reads only the vocabulary, so it does not wait for a running generation.
        return len(self.raw.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion:
        if self._batched(params):
            return self._complete_batched(messages, params)
        with self._lock, self._constraint(params) as constraint:
            start = time.perf_counter()
            before = self._cached_tokens()
            reply = self._call(messages, params, constraint, stream=False)
            seconds = time.perf_counter() - start
            usage = reply.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens", 0))
            evaluated = self._evaluated(before, prompt_tokens)
        text = reply["choices"][0]["message"].get("content") or ""
        return Completion(
            text=text,
            model_id=self.model_id,
            prompt_tokens=prompt_tokens,
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=seconds,
            prompt_evaluated=evaluated,
        )

    def stream(self, messages: Sequence[Message], params: GenParams) -> Generator[str, None, Completion]:
        """Yield text deltas; return the finished :class:`Completion`.

        llama-cpp-python reports no usage when streaming, so the returned token counts are
        estimates: completion = the text re-tokenized, prompt = tokens in the KV cache minus that.
        The lock is held until the generator finishes or is closed. Batched (see ``batch_width``), the counts are
        exact and the model is shared with other calls between tokens.
        """
        if self._batched(params):
            return (yield from self._stream_batched(messages, params))
        with self._lock, self._constraint(params) as constraint:
            start = time.perf_counter()
            before = self._cached_tokens()
            parts: list[str] = []
            finish_reason: str | None = None
            for chunk in self._guard(params, self._call(messages, params, constraint, stream=True)):
                choice = chunk["choices"][0]
                content = choice.get("delta", {}).get("content")
                if content:
                    parts.append(content)
                    yield content
                finish_reason = choice.get("finish_reason") or finish_reason
            seconds = time.perf_counter() - start
            text = "".join(parts)
            completion_tokens = self.count_tokens(text)
            # The last sampled token is never evaluated; when it was EOS it is not part of the text.
            in_cache = self.raw.n_tokens + (1 if finish_reason == "length" else 0)
            prompt_tokens = max(0, in_cache - completion_tokens)
            evaluated = self._evaluated(before, prompt_tokens)
        return Completion(
            text=text,
            model_id=self.model_id,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            seconds=seconds,
            prompt_evaluated=evaluated,
        )

    def close(self) -> None:
        with self._engine_lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    # --- batched calls (batch_width > 1) -------------------------------------------------------------------

    def _batched(self, params: GenParams) -> bool:
        """Whether this call runs on the batch engine: greedy, with the grammar (if any) checked by GrammarFirst."""
        if self.batch_width <= 1 or params.temperature != 0.0:
            return False
        has_grammar = params.grammar is not None or params.json_schema is not None
        return self.grammar_first or not has_grammar

    def _engine_now(self) -> BatchEngine:
        with self._engine_lock:
            if self._engine is None:
                import llama_cpp

                from pikelocal.llm.llama_batch import BatchEngine

                raw = self.raw
                vocab = raw._model.vocab
                buffer = ctypes.create_string_buffer(256)

                def piece(token: int) -> bytes:
                    n = llama_cpp.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, False)
                    return buffer.raw[: max(0, n)]

                self._engine = BatchEngine(
                    llama_cpp,
                    raw._model.model,
                    width=self.batch_width,
                    n_ctx=self.context_tokens,
                    n_batch=self.n_batch,
                    threads=self.n_threads,
                    flash_attn=self.flash_attn,
                    n_vocab=int(raw.n_vocab()),
                    eog=lambda token: bool(llama_cpp.llama_vocab_is_eog(vocab, token)),
                    piece=piece,
                    lock=self._lock,
                    before_step=self._adapt_engine_threads if self._governor is not None else None,
                )
            return self._engine

    def _adapt_engine_threads(self, ctx: Any) -> None:
        assert self._governor is not None
        threads = self._governor.advise()
        if threads is not None:
            import llama_cpp

            llama_cpp.llama_set_n_threads(ctx, threads, threads)
            self.thread_changes += 1
            log.debug("llama.cpp (batched) now on %d thread(s)", threads)

    def prompt_tokens(self, messages: Sequence[Message]) -> list[int]:
        """The tokens a batched call reads for ``messages``: the GGUF's chat template, as llama-cpp-python applies
        it (``Jinja2ChatFormatter``), tokenized with special tokens."""
        if self._formatter is None:
            raise BackendError(f"model {self.model_path.name} has no chat template of its own")
        chat: Any = [{"role": m.role, "content": m.content} for m in messages]  # llama_cpp's TypedDicts
        formatted = self._formatter(messages=chat)
        text = formatted.prompt.encode("utf-8")
        return [int(t) for t in self.raw.tokenize(text, add_bos=not formatted.added_special, special=True)]

    def _submit(self, messages: Sequence[Message], params: GenParams, *, stream: bool) -> tuple[Any, Any]:
        from pikelocal.llm.llama_batch import BatchRequest

        engine = self._engine_now()
        gbnf = params.grammar if params.grammar is not None else _schema_gbnf(params.json_schema)
        with self._errors(params):
            constraint = GrammarFirst(self.raw, gbnf) if gbnf is not None else None
        request = BatchRequest(
            self.prompt_tokens(messages),
            params.max_tokens,
            stops=tuple(params.stop),
            pick=constraint.pick if constraint is not None else None,
            stream=stream,
        )
        try:
            engine.submit(request)
        except BackendError as exc:
            if constraint is not None:
                constraint.close()
            raise BackendError(f"model {self.model_path.name} cannot run prompt {params.tag!r}: {exc}") from None
        return request, constraint

    def _finished(self, request: Any, constraint: GrammarFirst | None, params: GenParams) -> Completion:
        if constraint is not None:
            constraint.close()
        if request.error is not None:
            raise BackendError(f"model {self.model_path.name} failed on prompt {params.tag!r}: {request.error}")
        return Completion(
            text=request.text,
            model_id=self.model_id,
            prompt_tokens=len(request.prompt),
            completion_tokens=len(request.generated),
            # its share of the steps it ran in, so that summed over calls decoded together it is the time they took
            seconds=request.model_seconds,
            prompt_evaluated=request.evaluated,
        )

    def _complete_batched(self, messages: Sequence[Message], params: GenParams) -> Completion:
        request, constraint = self._submit(messages, params, stream=False)
        engine = self._engine_now()
        try:
            while not request.done.wait(0.25):  # in short waits, so that Ctrl-C reaches this thread
                pass
        except BaseException:
            _abandon(engine, request, constraint)
            raise
        return self._finished(request, constraint, params)

    def _stream_batched(self, messages: Sequence[Message], params: GenParams) -> Generator[str, None, Completion]:
        request, constraint = self._submit(messages, params, stream=True)
        engine = self._engine_now()
        try:
            while True:
                delta = request.deltas.get()
                if delta is None:
                    break
                yield delta
        except BaseException:  # the consumer stopped early (GeneratorExit) or was interrupted
            _abandon(engine, request, constraint)
            raise
        return self._finished(request, constraint, params)

    def _cached_tokens(self) -> list[int]:
        """The tokens whose KV state the context holds now (what the next call can reuse)."""
        raw = self.raw
        return [int(t) for t in raw._input_ids[: raw.n_tokens]]

    def _evaluated(self, before: Sequence[int], prompt_tokens: int) -> int:
        """Prompt tokens the last call actually ran through the model: those after the prefix it shared with
        the KV state left by the call before (llama-cpp-python reuses that prefix, and re-runs the last prompt
        token when the whole prompt was cached, to refresh the logits)."""
        from pikelocal.llm.llama_batch import common_prefix

        shared = common_prefix(before, [int(t) for t in self.raw._input_ids[:prompt_tokens]])
        if prompt_tokens and shared >= prompt_tokens:
            shared = prompt_tokens - 1
        return prompt_tokens - shared

    def _adapt_threads(self) -> None:
        """Follow the machine's load (see :mod:`pikelocal.llm.threads`); called before a call and between tokens."""
        if self._governor is None:
            return
        threads = self._governor.advise()
        if threads is not None and self._llama is not None:
            import llama_cpp

            llama_cpp.llama_set_n_threads(self._llama.ctx, threads, threads)
            self.thread_changes += 1
            log.debug("llama.cpp now on %d thread(s)", threads)

    def _between_tokens(self, _input_ids: Any, scores: Any) -> Any:
        """A logits processor that changes nothing: the hook llama-cpp-python offers between two tokens."""
        self._adapt_threads()
        return scores

    @contextmanager
    def _constraint(self, params: GenParams) -> Iterator[GrammarFirst | None]:
        """The grammar-first sampler for a call with a JSON schema or a grammar (None without, or when off)."""
        gbnf = params.grammar if params.grammar is not None else _schema_gbnf(params.json_schema)
        if gbnf is None or not self.grammar_first or params.temperature != 0.0:  # sampling: llama.cpp's chain
            yield None
            return
        with self._errors(params):
            constraint = GrammarFirst(self.raw, gbnf)
        try:
            yield constraint
        finally:
            constraint.close()
        if constraint.error is not None:
            raise BackendError(f"model {self.model_path.name} failed on prompt {params.tag!r}: {constraint.error}")

    def _call(
        self, messages: Sequence[Message], params: GenParams, constraint: GrammarFirst | None, *, stream: bool
    ) -> Any:
        self._adapt_threads()
        kwargs: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "seed": params.seed,
            "stop": list(params.stop),
            "stream": stream,
        }
        processors: list[Any] = [self._between_tokens] if self._governor is not None else []
        if constraint is not None:  # the grammar runs in our processor, not in llama.cpp's chain
            processors.append(constraint)
        elif params.json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": dict(params.json_schema)}
        if processors:
            kwargs["logits_processor"] = processors
        with self._errors(params):
            if params.grammar is not None and constraint is None:
                kwargs["grammar"] = _grammar(params.grammar)
            return self.raw.create_chat_completion(**kwargs)

    def _guard(self, params: GenParams, chunks: Iterator[Any]) -> Iterator[Any]:
        """Iterate a llama-cpp-python stream, whose errors only show up while iterating."""
        with self._errors(params):
            yield from chunks

    @contextmanager
    def _errors(self, params: GenParams) -> Iterator[None]:
        try:
            yield
        except ValueError as exc:  # e.g. "Requested tokens (9000) exceed context window of 8192"
            raise BackendError(f"model {self.model_path.name} cannot run prompt {params.tag!r}: {exc}") from None
        except RuntimeError as exc:  # llama_decode failed, grammar could not be built
            raise BackendError(f"model {self.model_path.name} failed on prompt {params.tag!r}: {exc}") from None


class GrammarFirst:
    """Greedy decoding under a GBNF grammar, as llama.cpp's own samplers would do it, without their cost.

    llama-cpp-python puts the grammar in the sampler chain (penalties → grammar → greedy), and llama.cpp's grammar
    sampler decodes and checks every one of the vocabulary's 151,936 token texts at every step: ~40 ms per
    generated token on 2 cores, about as much as the model's own step (``build/bench/bench_enrich.py``: wall 1.45x the
    ceiling). Used as a logits processor (first in that chain), this takes the best token and asks the grammar
    about that one token only; only when the grammar refuses it is the whole vocabulary checked (what llama.cpp's
    common sampler calls "grammar first"). The result is the token the full chain would have chosen; all other
    logits are set to -inf, so the chain behind picks it.
    (The chain's penalties sampler changes nothing: create_chat_completion's repeat penalty is 1.0. The tests
    compare both paths token for token, so a change of that default would show.)

    An exception inside the processor would vanish (it runs as a ctypes callback), so a failure is kept in
    ``error`` and raised by the backend when the call returns.
    """

    def __init__(self, llama: Llama, gbnf: str) -> None:
        import llama_cpp
        import numpy as np  # here, not at the top: importing the LLM layer stays cheap (tests/llm/test_imports.py)

        self._lib = llama_cpp
        self.n_vocab = int(llama.n_vocab())
        self.sampler = llama_cpp.llama_sampler_init_grammar(llama._model.vocab, gbnf.encode("utf-8"), b"root")
        if not self.sampler:
            raise RuntimeError("the grammar could not be parsed")
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(self._one, 1, -1, False)
        self._all = (llama_cpp.llama_token_data * self.n_vocab)()
        token_data = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)
        # A ctypes array is a buffer; numpy's stubs do not list ctypes arrays among frombuffer's inputs.
        self._all_view = np.frombuffer(self._all, dtype=token_data).view(np.recarray)  # type: ignore[call-overload]
        self._all_view.id[:] = np.arange(self.n_vocab, dtype=np.int32)
        self._all_array = llama_cpp.llama_token_data_array(self._all, self.n_vocab, -1, False)
        self.full_checks = 0  # steps where the best token was refused and the whole vocabulary was checked
        self.error: str | None = None

    def close(self) -> None:
        if self.sampler:
            self._lib.llama_sampler_free(self.sampler)
            self.sampler = None

    def __call__(self, _input_ids: Any, scores: Any) -> Any:
        """As a logits processor: every logit but the chosen token's set to -inf."""
        import numpy as np

        if self.error is not None:
            return scores
        try:
            best = self.pick(scores)
        except RuntimeError as exc:
            self.error = str(exc)
            return scores
        out = np.full_like(scores, -np.inf)
        out[best] = 0.0
        return out

    def pick(self, scores: Any) -> int:
        """The greedy token the grammar allows after what it accepted so far; accepted. Raises RuntimeError."""
        import numpy as np

        best = int(np.argmax(scores))
        if not self._allows(best, float(scores[best])):
            best = self._best_allowed(scores)
        self._lib.llama_sampler_accept(self.sampler, best)
        return best

    def _allows(self, token: int, logit: float) -> bool:
        import numpy as np

        # llama_cpp annotates ``id`` as ctypes.c_int32; a ctypes field takes (and gives back) a plain int.
        self._one[0].id, self._one[0].logit, self._one[0].p = token, logit, 0.0  # type: ignore[assignment]
        self._one_array.size, self._one_array.selected, self._one_array.sorted = 1, -1, False
        self._lib.llama_sampler_apply(self.sampler, ctypes.byref(self._one_array))
        return bool(np.isfinite(self._one[0].logit))

    def _best_allowed(self, logits: Any) -> int:
        import numpy as np

        self.full_checks += 1
        self._all_view.logit[:] = logits  # the ids stay 0 … n-1: the grammar only sets logits
        self._all_array.size, self._all_array.selected, self._all_array.sorted = self.n_vocab, -1, False
        self._lib.llama_sampler_apply(self.sampler, ctypes.byref(self._all_array))
        allowed = self._all_view.logit
        if not np.isfinite(allowed).any():
            raise RuntimeError("the grammar allows no token here")
        return int(np.argmax(allowed))


def _abandon(engine: BatchEngine, request: Any, constraint: GrammarFirst | None) -> None:
    """A batched call whose caller stopped waiting: the engine frees its sequence, then its grammar goes."""
    engine.cancel(request)
    request.done.wait()
    if constraint is not None:
        constraint.close()


def _chat_formatter(llama: Llama) -> Jinja2ChatFormatter | None:
    """The formatter llama-cpp-python's ``create_chat_completion`` uses for a GGUF with a chat template that it
    does not map to one of its named formats; None otherwise (those calls are not batched)."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llama.metadata.get("tokenizer.chat_template")
    if not template or llama.chat_format != "chat_template.default" or llama.chat_handler is not None:
        return None
    eos, bos = llama.token_eos(), llama.token_bos()
    return Jinja2ChatFormatter(
        template=template,
        eos_token=llama._model.token_get_text(eos) if eos != -1 else "",
        bos_token=llama._model.token_get_text(bos) if bos != -1 else "",
        stop_token_ids=[eos],
    )


@cache
def _schema_gbnf_cached(schema_json: str) -> str:
    from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

    try:  # what llama-cpp-python's chat handler does with response_format, fallback included
        return str(LlamaGrammar.from_json_schema(schema_json, verbose=False)._grammar)
    except Exception:  # noqa: BLE001 (its converter raises anything on a schema it cannot express)
        return JSON_GBNF


def _schema_gbnf(schema: Any) -> str | None:
    if schema is None:
        return None
    return _schema_gbnf_cached(json.dumps(schema, default=json_default))


@cache
def _grammar(gbnf: str) -> LlamaGrammar:
    """A compiled GBNF grammar, built once per text."""
    from llama_cpp.llama_grammar import LlamaGrammar

    return LlamaGrammar.from_string(gbnf, verbose=False)
