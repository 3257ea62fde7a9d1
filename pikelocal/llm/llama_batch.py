"""Continuous batching in-process: several greedy completions decoded together in one llama.cpp context.

One decode step over a few sequences costs little more than a step over one where the CPU has compute to spare
(AVX-512 VNNI: 2.6x the aggregate generation rate at 4 sequences on a 2-core Xeon; a GPU far more), so the stages
that ask many independent questions (enrichment, summary trees) gain when their requests share the steps
(``docs/BENCHMARKS.md``, "The LLM ceiling"). :class:`BatchEngine` is what ``LlamaCppLLM`` runs its greedy calls on
when its batch width is above 1.

One worker thread owns the context. A caller submits a :class:`BatchRequest` and waits for it (or reads its text
deltas as they come). Each step decodes one batch: the pending token of every sequence that is generating, then as
many prompt tokens of the sequences still reading their prompt as fit in ``n_batch``, oldest request first. A request
takes a free sequence as soon as one is free (continuous batching), so a stage with W requests in flight keeps W
sequences busy.

Every sequence keeps the KV state of what it last read, and a new request starts from the longest prefix that any
sequence holds: in llama.cpp's unified KV cache a copy (``llama_memory_seq_cp``) shares the cells, so a run of
enrichment prompts reads the instructions and the document summary once, as the one-sequence path does through
llama-cpp-python's prefix reuse. Each request counts the prompt tokens it ran (``evaluated``).

KV space: a request reserves its prompt plus its output budget; one is admitted only while the reservations of the
running ones leave room (the KV state of idle sequences is dropped first), so a decode never finds the cache full.
"""

from __future__ import annotations

import codecs
import ctypes
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pikelocal.domain.errors import BackendError

log = logging.getLogger(__name__)

Pick = Callable[[Any], int]  # logits (a numpy array of n_vocab floats) → the chosen token; None: the argmax


@dataclass(eq=False)
class BatchRequest:
    """One completion for the engine: its prompt tokens, its limits, and (filled in as it runs) its result."""

    prompt: Sequence[int]
    max_tokens: int
    stops: tuple[str, ...] = ()
    pick: Pick | None = None  # a grammar's choice (GrammarFirst.pick); None: greedy over all tokens
    stream: bool = False  # put text deltas on ``deltas`` as they are decoded (None at the end)
    # --- progress and result, written by the engine's thread --------------------------------------------------
    slot: int = -1
    fed: int = 0  # prompt tokens whose KV state the sequence holds (reused or run)
    reused: int = 0  # of those, taken from a sequence's earlier state
    evaluated: int = 0  # prompt tokens run through the model for this request
    generated: list[int] = field(default_factory=list)
    pending: int | None = None  # the token sampled last, decoded in the next step
    text: str = ""
    emitted: int = 0  # characters of ``text`` already put on ``deltas``
    finish: str | None = None  # "stop" | "length"
    error: BaseException | None = None
    cancelled: bool = False
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0  # from submission to the end (waiting included)
    model_seconds: float = 0.0  # its share of the steps it was in: each step's time split among their requests
    deltas: queue.SimpleQueue[str | None] = field(default_factory=queue.SimpleQueue)
    done: threading.Event = field(default_factory=threading.Event)
    _utf8: Any = field(default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace"))

    @property
    def need(self) -> int:
        """KV cells this request may fill: its prompt and its output budget."""
        return len(self.prompt) + self.max_tokens


def fill_batch(batch: Any, items: Sequence[tuple[int, int, int, bool]]) -> None:
    """Write ``(token, position, sequence, wants logits)`` items into a ``llama_batch`` (one sequence each)."""
    for i, (token, pos, seq, logits) in enumerate(items):
        batch.token[i] = token
        batch.pos[i] = pos
        batch.n_seq_id[i] = 1
        batch.seq_id[i][0] = seq
        batch.logits[i] = logits
    batch.n_tokens = len(items)


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many tokens ``a`` and ``b`` share from their start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class BatchEngine:
    """A llama.cpp context of ``width`` sequences on ``model`` (a loaded ``llama_model``), driven by one thread.

    ``lock`` is held around every decode step (the backend's model lock: no two contexts of one model decode at
    once). ``before_step(ctx)`` runs before each step (the thread governor's hook). ``eog(token)`` says whether a
    token ends generation; ``piece(token)`` gives its bytes.
    """

    def __init__(
        self,
        llama_cpp: Any,
        model: Any,
        *,
        width: int,
        n_ctx: int,
        n_batch: int,
        threads: int,
        flash_attn: bool,
        n_vocab: int,
        eog: Callable[[int], bool],
        piece: Callable[[int], bytes],
        lock: threading.Lock,
        before_step: Callable[[Any], None] | None = None,
    ) -> None:
        import numpy as np

        self._np = np
        self.L = L = llama_cpp
        params = L.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = n_batch
        params.n_ubatch = n_batch
        params.n_seq_max = width
        params.n_threads = threads
        params.n_threads_batch = threads
        params.kv_unified = True  # one cell pool: a copied prefix shares its cells
        params.flash_attn_type = L.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attn else L.LLAMA_FLASH_ATTN_TYPE_DISABLED
        self.ctx = L.llama_init_from_model(model, params)
        if not self.ctx:
            raise BackendError(f"cannot allocate a {n_ctx}-token context of {width} sequences")
        self.memory = L.llama_get_memory(self.ctx)
        self.batch = L.llama_batch_init(n_batch, 0, 1)
        self.width, self.n_ctx, self.n_batch, self.n_vocab = width, n_ctx, n_batch, n_vocab
        self._eog, self._piece, self._lock, self._before_step = eog, piece, lock, before_step
        self.slots: list[list[int]] = [[] for _ in range(width)]  # tokens whose KV state each sequence holds
        self.owner: list[BatchRequest | None] = [None] * width
        self.waiting: deque[BatchRequest] = deque()
        self.running: list[BatchRequest] = []  # in admission order
        self.steps = 0
        self.peak_running = 0  # the most sequences that ran in one step (tests and the benchmark read it)
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="pikelocal-llm-batch", daemon=True)
        self._thread.start()

    # --- the callers' side ------------------------------------------------------------------------------------

    def submit(self, request: BatchRequest) -> BatchRequest:
        if len(request.prompt) == 0:
            raise BackendError("an empty prompt")
        if len(request.prompt) >= self.n_ctx:
            raise BackendError(f"Requested tokens ({len(request.prompt)}) exceed context window of {self.n_ctx}")
        request.max_tokens = max(1, min(request.max_tokens, self.n_ctx - len(request.prompt)))
        with self._cond:
            if self._closed:
                raise BackendError("the model was closed")
            self.waiting.append(request)
            self._cond.notify_all()
        return request

    def cancel(self, request: BatchRequest) -> None:
        """Stop ``request`` at the next step (a stream closed early, an interrupt); its sequence is freed."""
        with self._cond:
            request.cancelled = True
            if request in self.waiting:
                self.waiting.remove(request)
                self._end(request, None)
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join()
        for request in [*self.waiting, *self.running]:
            self._end(request, BackendError("the model was closed"))
        self.waiting.clear()
        self.running.clear()
        if self.ctx:
            self.L.llama_batch_free(self.batch)
            self.L.llama_free(self.ctx)
            self.ctx = None

    # --- the engine's thread ------------------------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            try:
                with self._cond:
                    while not self._closed and not self.waiting and not self.running:
                        self._cond.wait()
                    if self._closed:
                        return
                    for request in [r for r in self.running if r.cancelled]:
                        self._release(request)
                        self._end(request, None)
                    self._admit()
                    if not self.running:
                        continue
                with self._lock:
                    if self._before_step is not None:
                        self._before_step(self.ctx)
                    self._step()
            except Exception as exc:  # noqa: BLE001 (every request in the engine gets the error; it goes on)
                error = exc if isinstance(exc, BackendError) else BackendError(f"batched decoding failed: {exc!r}")
                log.debug("batch step failed: %r", exc)
                with self._cond:
                    for request in list(self.running):
                        self._release(request)
                        self._end(request, error)
                    self._forget_all()

    def _admit(self) -> None:
        """Give waiting requests free sequences while their KV reservations fit (called holding the condition)."""
        while self.waiting and None in self.owner:
            request = self.waiting[0]
            reserved = sum(r.need for r in self.running)
            if self.running and reserved + request.need > self.n_ctx:
                return  # wait for a running request to end
            self.waiting.popleft()
            slot, source, reuse = self._best_start(request.prompt)
            if source != slot:
                self.L.llama_memory_seq_rm(self.memory, slot, 0, -1)
                if reuse:
                    self.L.llama_memory_seq_cp(self.memory, source, slot, 0, reuse)
                self.slots[slot] = self.slots[source][:reuse]
            else:
                self.L.llama_memory_seq_rm(self.memory, slot, reuse, -1)
                del self.slots[slot][reuse:]
            request.slot, request.fed, request.reused = slot, reuse, reuse
            self.owner[slot] = request
            self.running.append(request)
            self._make_room(reserved + request.need)

    def _best_start(self, prompt: Sequence[int]) -> tuple[int, int, int]:
        """(free sequence to use, sequence to start from, prefix length to keep). The last prompt token is always
        run again, for its logits."""
        free = [s for s in range(self.width) if self.owner[s] is None]
        shared = [min(common_prefix(self.slots[s], prompt), len(prompt) - 1) for s in range(self.width)]
        source = max(range(self.width), key=lambda s: (shared[s], self.owner[s] is None))
        if shared[source] > 0 and self.owner[source] is None:
            return source, source, shared[source]  # go on from it (what it holds past the prefix is dropped)
        slot = min(free, key=lambda s: len(self.slots[s]))  # else overwrite the idle sequence holding the least
        return (slot, source, shared[source]) if shared[source] > 0 else (slot, slot, 0)

    def _make_room(self, reserved: int) -> None:
        """Drop idle sequences' KV state, most first, until the cells they may hold and the reservations fit."""
        idle = sorted((s for s in range(self.width) if self.owner[s] is None), key=lambda s: -len(self.slots[s]))
        held = sum(len(self.slots[s]) for s in idle)
        for s in idle:
            if reserved + held <= self.n_ctx:
                return
            held -= len(self.slots[s])
            self.L.llama_memory_seq_rm(self.memory, s, 0, -1)
            self.slots[s] = []

    def _step(self) -> None:
        items: list[tuple[int, int, int, bool]] = []  # (token, position, sequence, wants logits)
        readers: list[BatchRequest] = []  # the request of each item that wants logits, in order
        members: list[BatchRequest] = []  # the requests with tokens in this step
        for request in self.running:
            if request.pending is not None:
                slot = self.slots[request.slot]
                items.append((request.pending, len(slot), request.slot, True))
                slot.append(request.pending)
                request.pending = None
                readers.append(request)
                members.append(request)
        budget = self.n_batch - len(items)
        for request in self.running:
            left = len(request.prompt) - request.fed
            if left <= 0 or budget <= 0:
                continue
            take = min(left, budget)
            slot = self.slots[request.slot]
            for i in range(request.fed, request.fed + take):
                last = i == len(request.prompt) - 1
                items.append((request.prompt[i], i, request.slot, last))
                slot.append(request.prompt[i])
                if last:
                    readers.append(request)
            request.fed += take
            request.evaluated += take
            budget -= take
            members.append(request)
        t0 = time.perf_counter()
        self._decode(items)
        share = (time.perf_counter() - t0) / max(1, len(members))  # the step's time, split among its requests
        for request in members:
            request.model_seconds += share
        self.steps += 1
        self.peak_running = max(self.peak_running, len(self.running))
        out = 0
        for index, (_token, _pos, _seq, wants) in enumerate(items):
            if not wants:
                continue
            request = readers[out]
            out += 1
            t1 = time.perf_counter()
            logits = self._logits(index)
            try:
                token = request.pick(logits) if request.pick is not None else int(self._np.argmax(logits))
            except RuntimeError as exc:  # its grammar allows no token: this request fails, the others go on
                with self._cond:
                    self._release(request)
                    self._end(request, BackendError(str(exc)))
                continue
            request.model_seconds += time.perf_counter() - t1
            self._advance(request, token)

    def _advance(self, request: BatchRequest, token: int) -> None:
        """Take ``token`` as ``request``'s next output; end the request when it stops."""
        if self._eog(token):
            self._finish(request, "stop")
            return
        request.generated.append(token)
        request.text += request._utf8.decode(self._piece(token))
        cut = min((i for i in (request.text.find(s) for s in request.stops if s) if i >= 0), default=-1)
        if cut >= 0:
            request.text = request.text[:cut]
            self._finish(request, "stop", flush=False)
            return
        room = self.n_ctx - len(self.slots[request.slot]) - 1
        if len(request.generated) >= request.max_tokens or room <= 0:
            self._finish(request, "length")
            return
        request.pending = token
        if request.stream:
            hold = max((len(s) - 1 for s in request.stops), default=0)  # a stop string may be starting
            upto = max(request.emitted, len(request.text) - hold)
            if upto > request.emitted:
                request.deltas.put(request.text[request.emitted : upto])
                request.emitted = upto

    def _finish(self, request: BatchRequest, reason: str, *, flush: bool = True) -> None:
        if flush:  # a character cut off by the token limit shows as U+FFFD, as llama-cpp-python shows it
            request.text += request._utf8.decode(b"", final=True)
        request.finish = reason
        with self._cond:
            self._release(request)
            self._end(request, None)

    def _release(self, request: BatchRequest) -> None:
        if request in self.running:
            self.running.remove(request)
        if 0 <= request.slot < self.width and self.owner[request.slot] is request:
            self.owner[request.slot] = None

    def _end(self, request: BatchRequest, error: BaseException | None) -> None:
        if request.done.is_set():
            return
        request.error = error
        request.seconds = time.perf_counter() - request.started
        if request.stream:
            if error is None and len(request.text) > request.emitted:
                request.deltas.put(request.text[request.emitted :])
                request.emitted = len(request.text)
            request.deltas.put(None)
        request.done.set()

    def _forget_all(self) -> None:
        """After a failed step the KV state is unknown: drop it all."""
        self.L.llama_memory_clear(self.memory, True)
        self.slots = [[] for _ in range(self.width)]

    def _decode(self, items: Sequence[tuple[int, int, int, bool]]) -> None:
        fill_batch(self.batch, items)
        rc = self.L.llama_decode(self.ctx, self.batch)
        if rc == 1 and self._drop_idle():  # no KV slot for the batch: free the idle sequences' cells, once
            rc = self.L.llama_decode(self.ctx, self.batch)
        if rc != 0:
            raise BackendError(f"llama_decode failed ({rc}) on a batch of {len(items)} tokens")

    def _drop_idle(self) -> bool:
        """Drop the KV state of every idle sequence; whether there was any."""
        idle = [s for s in range(self.width) if self.owner[s] is None and self.slots[s]]
        for s in idle:
            self.L.llama_memory_seq_rm(self.memory, s, 0, -1)
            self.slots[s] = []
        return bool(idle)

    def _logits(self, index: int) -> Any:
        ptr = self.L.llama_get_logits_ith(self.ctx, index)
        return self._np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)), shape=(self.n_vocab,))
