"""The batch engine's scheduling on a scripted llama.cpp: which tokens it decodes, where, and when.

The stand-in library keeps each sequence's KV cells by position and refuses a token whose position is not the next
one its sequence holds, so a wrong prefix reuse, copy or removal fails the decode. Its model always predicts the
token after the one it read (modulo the vocabulary), and token 0 ends generation: a prompt ending in 7 generates
8, 9, … and a prompt ending in 46 stops after 47, 48, 49 (the next would be 0).
"""

from __future__ import annotations

import ctypes
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from pikelocal.domain.errors import BackendError
from pikelocal.llm.llama_batch import BatchEngine, BatchRequest

N_VOCAB = 50


class FakeBatch:
    def __init__(self, n: int) -> None:
        self.token = [0] * n
        self.pos = [0] * n
        self.n_seq_id = [0] * n
        self.seq_id = [[0] for _ in range(n)]
        self.logits = [False] * n
        self.n_tokens = 0


class FakeLlama:
    LLAMA_FLASH_ATTN_TYPE_ENABLED = 1
    LLAMA_FLASH_ATTN_TYPE_DISABLED = 0

    def __init__(self) -> None:
        self.kv: dict[int, dict[int, int]] = {}  # sequence → position → token
        self.decoded: list[list[tuple[int, int, int, bool]]] = []  # every batch, as (token, pos, seq, logits)
        self.rows: dict[int, Any] = {}
        self.fail_next = False
        self.gate: threading.Event | None = None  # when given, each decode waits for it (to hold the engine mid-run)
        self.permits: threading.Semaphore | None = None  # when given, each decode takes one (to step it one by one)
        self.full_unless_idle_dropped: set[int] | None = None  # sequences whose cells fill the cache while kept
        self.delay = 0.0  # seconds each decode takes
        self.busy = 0.0  # seconds spent in decodes

    def llama_context_default_params(self) -> SimpleNamespace:
        return SimpleNamespace()

    def llama_init_from_model(self, model: object, params: SimpleNamespace) -> object:
        self.params = params
        return object()

    def llama_get_memory(self, ctx: object) -> str:
        return "memory"

    def llama_batch_init(self, n: int, embd: int, n_seq: int) -> FakeBatch:
        return FakeBatch(n)

    def llama_batch_free(self, batch: FakeBatch) -> None:
        pass

    def llama_free(self, ctx: object) -> None:
        pass

    def llama_memory_clear(self, memory: str, data: bool) -> None:
        self.kv = {}

    def llama_memory_seq_rm(self, memory: str, seq: int, p0: int, p1: int) -> bool:
        cells = self.kv.setdefault(seq, {})
        self.kv[seq] = {p: t for p, t in cells.items() if p < p0 or (p1 >= 0 and p >= p1)}
        return True

    def llama_memory_seq_cp(self, memory: str, src: int, dst: int, p0: int, p1: int) -> None:
        for p, t in self.kv.get(src, {}).items():
            if p0 <= p < p1:
                self.kv.setdefault(dst, {})[p] = t

    def llama_decode(self, ctx: object, b: FakeBatch) -> int:
        if self.gate is not None:
            self.gate.wait(5)
        if self.permits is not None:
            assert self.permits.acquire(timeout=5)
        if self.fail_next:
            self.fail_next = False
            return 1
        if self.full_unless_idle_dropped is not None and any(self.kv.get(s) for s in self.full_unless_idle_dropped):
            return 1  # "no KV slot": as llama.cpp says when the cache has no room for the batch
        items = [(b.token[i], b.pos[i], b.seq_id[i][0], bool(b.logits[i])) for i in range(b.n_tokens)]
        started = time.perf_counter()
        time.sleep(self.delay)
        self.busy += time.perf_counter() - started
        self.decoded.append(items)
        self.rows = {}
        for i, (token, pos, seq, logits) in enumerate(items):
            cells = self.kv.setdefault(seq, {})
            assert pos == len(cells) and all(p in cells for p in range(pos)), f"seq {seq}: {pos} after {sorted(cells)}"
            cells[pos] = token
            if logits:
                row = (ctypes.c_float * N_VOCAB)()
                row[(token + 1) % N_VOCAB] = 1.0
                self.rows[i] = row
        return 0

    def llama_get_logits_ith(self, ctx: object, i: int) -> int:
        return ctypes.addressof(self.rows[i])


def engine(lib: FakeLlama, *, width: int = 2, n_ctx: int = 256, n_batch: int = 16) -> BatchEngine:
    return BatchEngine(
        lib,
        object(),
        width=width,
        n_ctx=n_ctx,
        n_batch=n_batch,
        threads=1,
        flash_attn=True,
        n_vocab=N_VOCAB,
        eog=lambda token: token == 0,
        piece=lambda token: f"<{token}>".encode(),
        lock=threading.Lock(),
    )


def run(eng: BatchEngine, *requests: BatchRequest) -> list[BatchRequest]:
    for r in requests:
        eng.submit(r)
    for r in requests:
        assert r.done.wait(10), "the engine did not finish the request"
    return list(requests)


def text(*tokens: int) -> str:
    return "".join(f"<{t}>" for t in tokens)


@pytest.fixture
def lib() -> FakeLlama:
    return FakeLlama()


def test_requests_run_side_by_side_and_each_gets_its_own_tokens(lib: FakeLlama) -> None:
    eng = engine(lib, width=2)
    a, b, c = run(
        eng,
        BatchRequest([3, 4, 7], max_tokens=3),
        BatchRequest([9, 20], max_tokens=2),
        BatchRequest([46], max_tokens=10),
    )
    eng.close()
    assert (a.text, a.generated, a.finish) == (text(8, 9, 10), [8, 9, 10], "length")
    assert (b.text, b.generated, b.finish) == (text(21, 22), [21, 22], "length")
    assert (c.text, c.finish) == (text(47, 48, 49), "stop")  # the token after 49 is 0, which ends it
    assert eng.peak_running == 2
    # one step decoded both prompts; the next steps carried one token of each running sequence
    first = [(3, 0, 0, False), (4, 1, 0, False), (7, 2, 0, True), (9, 0, 1, False), (20, 1, 1, True)]
    assert sorted(lib.decoded[0]) == first
    assert sorted(lib.decoded[1]) == [(8, 3, 0, True), (21, 2, 1, True)]
    assert (a.evaluated, b.evaluated, c.evaluated) == (3, 2, 1)
    assert all(0 < r.model_seconds <= r.seconds for r in (a, b, c))


def test_each_step_s_time_is_split_among_the_calls_in_it(lib: FakeLlama) -> None:
    """So that the calls' seconds, summed (stats, the enrichment ETA), are the time the model ran, not W times it."""
    lib.delay = 0.02
    eng = engine(lib, width=2)
    a, b = run(eng, BatchRequest([1], max_tokens=6), BatchRequest([2], max_tokens=6))
    eng.close()
    assert len(lib.decoded) == 6 and all(len(step) == 2 for step in lib.decoded)  # both in every step
    assert lib.busy >= 0.12
    assert abs(a.model_seconds - lib.busy / 2) < 0.01 and abs(b.model_seconds - lib.busy / 2) < 0.01


def test_a_later_request_starts_from_the_longest_prefix_any_sequence_holds(lib: FakeLlama) -> None:
    eng = engine(lib, width=2)
    shared = list(range(1, 21))  # 20 tokens, as the instructions and document summary of enrichment prompts
    (first,) = run(eng, BatchRequest([*shared, 30], max_tokens=2))
    (other,) = run(eng, BatchRequest([5, 6], max_tokens=1))  # takes the other, empty sequence
    (again,) = run(eng, BatchRequest([*shared, 40], max_tokens=1))
    assert first.evaluated == 21 and other.evaluated == 2
    assert (again.reused, again.evaluated, again.text) == (20, 1, text(41))
    (whole,) = run(eng, BatchRequest([*shared, 40], max_tokens=1))  # all cached: the last token runs again
    assert (whole.reused, whole.evaluated, whole.text) == (20, 1, text(41))
    eng.close()


def test_a_prefix_held_by_a_running_request_is_copied_to_a_free_sequence(lib: FakeLlama) -> None:
    eng = engine(lib, width=2, n_batch=32)
    shared = list(range(1, 21))
    lib.permits = threading.Semaphore(1)  # one decode: the prompt's
    long_one = eng.submit(BatchRequest([*shared, 21], max_tokens=20, stream=True))
    assert long_one.deltas.get(timeout=10) == text(22)  # it has read its prompt and is generating
    follower = eng.submit(BatchRequest([*shared, 40], max_tokens=1))
    for _ in range(100):
        lib.permits.release()
    assert follower.done.wait(10) and long_one.done.wait(10)
    eng.close()
    assert follower.slot != long_one.slot
    assert (follower.reused, follower.evaluated, follower.text) == (20, 1, text(41))
    assert long_one.text == text(*range(22, 42))


@pytest.mark.parametrize(("max_tokens", "together"), [(30, 2), (31, 1)])
def test_requests_wait_while_their_kv_reservations_do_not_fit(lib: FakeLlama, max_tokens: int, together: int) -> None:
    eng = engine(lib, width=4, n_ctx=64)
    # a request reserves its 2 prompt tokens and its output budget: 32 cells fit twice in 64, 33 once
    done = run(eng, *(BatchRequest([10 + i, 11 + i], max_tokens=max_tokens) for i in range(3)))
    eng.close()
    assert eng.peak_running == together and [r.finish for r in done] == ["length"] * 3


def test_a_stop_string_cuts_the_text_and_streams_only_what_is_kept(lib: FakeLlama) -> None:
    eng = engine(lib)
    (r,) = run(eng, BatchRequest([7], max_tokens=10, stops=("<11>",), stream=True))
    deltas = []
    while (d := r.deltas.get(timeout=1)) is not None:
        deltas.append(d)
    eng.close()
    assert (r.text, r.finish) == (text(8, 9, 10), "stop")
    assert "".join(deltas) == r.text


def test_a_cancelled_request_frees_its_sequence_for_the_next(lib: FakeLlama) -> None:
    eng = engine(lib, width=1)
    lib.gate = threading.Event()
    slow = eng.submit(BatchRequest([1], max_tokens=40))
    queued = eng.submit(BatchRequest([2], max_tokens=40))
    eng.cancel(queued)  # still waiting: ends at once
    assert queued.done.is_set() and queued.error is None and not queued.generated
    eng.cancel(slow)
    lib.gate.set()
    assert slow.done.wait(10) and len(slow.generated) < 40
    (after,) = run(eng, BatchRequest([30], max_tokens=2))
    eng.close()
    assert after.text == text(31, 32)


def test_a_failed_decode_fails_the_running_requests_and_the_engine_goes_on(lib: FakeLlama) -> None:
    eng = engine(lib)
    lib.fail_next = True
    (failed,) = run(eng, BatchRequest([1, 2, 3], max_tokens=2))
    assert isinstance(failed.error, BackendError) and "llama_decode failed (1)" in str(failed.error)
    (after,) = run(eng, BatchRequest([1, 2, 3], max_tokens=2))
    eng.close()
    assert after.error is None and after.text == text(4, 5) and after.evaluated == 3  # the KV state was dropped


def test_a_full_cache_drops_the_idle_sequences_and_decodes_again(lib: FakeLlama) -> None:
    eng = engine(lib, width=2)
    (kept,) = run(eng, BatchRequest([5, 6, 7], max_tokens=1))  # its sequence stays idle with 3 cells
    lib.full_unless_idle_dropped = {kept.slot}
    (after,) = run(eng, BatchRequest([20, 21], max_tokens=2))
    eng.close()
    assert after.error is None and after.text == text(22, 23)
    assert not lib.kv.get(kept.slot) and eng.slots[kept.slot] == []


def test_a_grammar_that_allows_nothing_fails_its_own_request_only(lib: FakeLlama) -> None:
    def refuse(_logits: object) -> int:
        raise RuntimeError("the grammar allows no token here")

    eng = engine(lib, width=2)
    stuck, fine = run(eng, BatchRequest([1], max_tokens=3, pick=refuse), BatchRequest([10], max_tokens=3))
    eng.close()
    assert isinstance(stuck.error, BackendError) and "allows no token" in str(stuck.error)
    assert fine.error is None and fine.text == text(11, 12, 13)


def test_a_prompt_as_long_as_the_context_is_refused(lib: FakeLlama) -> None:
    eng = engine(lib, n_ctx=32)
    with pytest.raises(BackendError, match="exceed context window of 32"):
        eng.submit(BatchRequest(list(range(1, 33)), max_tokens=1))
    (fits,) = run(eng, BatchRequest(list(range(1, 31)), max_tokens=10))  # the output budget shrinks to fit
    eng.close()
    assert fits.max_tokens == 2 and fits.finish == "length"


def test_closing_ends_waiting_requests_with_an_error(lib: FakeLlama) -> None:
    eng = engine(lib, width=1)
    lib.gate = threading.Event()
    running = eng.submit(BatchRequest([1], max_tokens=40))
    waiting = eng.submit(BatchRequest([2], max_tokens=5))
    time.sleep(0.05)
    closer = threading.Thread(target=eng.close)
    closer.start()
    lib.gate.set()
    closer.join(10)
    assert waiting.done.is_set() and isinstance(waiting.error, BackendError)
    assert running.done.is_set()
    with pytest.raises(BackendError, match="closed"):
        eng.submit(BatchRequest([3], max_tokens=1))
