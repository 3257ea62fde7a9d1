"""OnnxEncoder: sentence and token vectors from an ONNX encoder (sole user of onnxruntime, tokenizers)."""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from pikelocal.assets import SUMS_NAME
from pikelocal.config import available_cpus
from pikelocal.cpu import cpu_summary
from pikelocal.domain.errors import ModelError
from pikelocal.embed.base import EncodeRole, TokenVectors, WindowContext
from pikelocal.embed.late import assign_tokens, normalise, plan_windows

if TYPE_CHECKING:
    from tokenizers import Tokenizer

log = logging.getLogger(__name__)

CONFIG_FILE = "encoder.json"
_REQUIRED = ("id", "dim", "max_tokens", "onnx", "tokenizer")
# Fraction of a window shared with its neighbour. Each token's vector comes from the window where it is
# most central, so it sees at least overlap/2 tokens of context on each side (except at the text's ends).
WINDOW_OVERLAP = 0.25
CONTEXT_TOKENS = 64  # the most tokens of a window's context (title › section path) read before its text
# Sentence vectors kept per encoder, the least recently used dropped first (768 floats each: about 50 MB). A
# review compresses the same retrieved chunks for item after item: their sentences are encoded once.
MEMO_TEXTS = 16_384
# Padded tokens per batch = batch_size * this. On CPU, batching pays for short texts (1.6x at 32 tokens) and not
# at all from ~256 tokens on, so long texts and windows run in small batches, which also bounds memory.
_TOKENS_PER_ITEM = 128


class _WindowStates(NamedTuple):
    text: NDArray[np.float32]  # (n, dim) the text's tokens
    extra: NDArray[np.float32]  # prefix specials and prompt of the first window, suffix of the last
    owner: NDArray[np.int64]  # (n,) the window each text token's vector came from
    context_sums: NDArray[np.float32]  # (windows, dim) the sum of each window's context token vectors
    context_counts: NDArray[np.int64]  # (windows,)


@dataclass(frozen=True)
class _Tokens:
    """One text tokenised after its prompt, without special tokens."""

    prompt_ids: list[int]  # tokens lying wholly inside the prompt
    ids: list[int]  # the text's tokens
    offsets: NDArray[np.int64]  # (n, 2) in the original text's characters


def available_providers() -> list[str]:
    """onnxruntime's execution providers in this installation (for ``pikelocal doctor``)."""
    import onnxruntime as ort

    return list(ort.get_available_providers())


def _read_config(model_dir: Path) -> dict[str, Any]:
    if not model_dir.is_dir():
        raise ModelError(f"encoder model folder not found: {model_dir}")
    path = model_dir / CONFIG_FILE
    if not path.is_file():
        raise ModelError(f"encoder description not found: {path}")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"cannot read encoder description {path}: {exc}") from exc
    fields: dict[str, Any] = config if isinstance(config, dict) else {}  # not an object: lacks every field
    missing = [k for k in _REQUIRED if k not in fields]
    if missing:
        raise ModelError(f"encoder description {path} lacks {', '.join(missing)}")
    return fields


def _build_description(model_dir: Path, config: dict[str, Any], onnx_path: Path, ort_version: str) -> str:
    """Which numbers this encoder computes: quantization, model file, runtime and CPU (for probe mismatches)."""
    quant = config.get("quantization")
    option = quant.get("option") if isinstance(quant, dict) else None
    digest = ""
    sums = model_dir / SUMS_NAME
    if sums.is_file():
        for line in sums.read_text(encoding="utf-8", errors="replace").splitlines():
            value, _, name = line.strip().partition("  ")
            if name == onnx_path.name:
                digest = f" {value[:12]}"
    parts = [option or "quantization not recorded", f"{onnx_path.name}{digest}", f"onnxruntime {ort_version}"]
    return ", ".join([*parts, cpu_summary()])


def right_padded(batch: Sequence[Sequence[int]]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Id sequences as one (B, L) array padded on the right with 0, and its attention mask."""
    width = max(len(s) for s in batch)
    ids = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for r, seq in enumerate(batch):
        ids[r, : len(seq)] = seq
        mask[r, : len(seq)] = 1
    return ids, mask


def _require_file(model_dir: Path, name: str, what: str) -> Path:
    path = model_dir / name
    if not path.is_file():
        raise ModelError(f"encoder {what} not found: {path}")
    return path


def _load_tokenizer(tok_path: Path) -> Tokenizer:
    """The tokenizer in ``tok_path``, with padding and truncation off."""
    from tokenizers import Tokenizer  # lazy: importing pikelocal must stay light

    try:
        tokenizer = Tokenizer.from_file(str(tok_path))
    except Exception as exc:  # tokenizers raises a bare Exception on bad JSON
        raise ModelError(f"{tok_path} is not a valid tokenizer file: {exc}") from exc
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


class OnnxEncoder:
    """An ONNX text encoder described by ``encoder.json`` in ``model_dir``.

    Attributes for benchmarks: ``session`` (onnxruntime.InferenceSession), ``tokenizer`` (tokenizers.Tokenizer
    with padding and truncation off), ``input_names``, ``output_name``, ``projection`` (or None).
    """

    def __init__(
        self,
        model_dir: Path | str,
        *,
        threads: int | None = None,
        batch_size: int = 8,
        window: int | None = None,
        late_window: int | None = None,
    ) -> None:
        model_dir = Path(model_dir)
        config = _read_config(model_dir)
        cfg_path = model_dir / CONFIG_FILE
        self._set_sizes(config, cfg_path, window, late_window)
        self.query_prompt = str(config.get("query_prompt") or "")
        self.passage_prompt = str(config.get("passage_prompt") or "")
        self.output_name = str(config.get("output") or "last_hidden_state")
        self.batch_size = max(1, batch_size)
        self._memo: OrderedDict[tuple[str, str], NDArray[np.float32]] = OrderedDict()
        self._memo_lock = threading.Lock()
        onnx_path = _require_file(model_dir, str(config["onnx"]), "ONNX model")
        tok_path = _require_file(model_dir, str(config["tokenizer"]), "tokenizer")
        proj_name = config.get("projection")
        proj_path = _require_file(model_dir, str(proj_name), "projection") if proj_name else None

        import onnxruntime as ort  # lazy: importing pikelocal must stay light

        self.tokenizer = _load_tokenizer(tok_path)
        self._prefix, self._suffix = self._special_tokens()

        self.projection: NDArray[np.float32] | None = None
        if proj_path is not None:
            self.projection = self._load_projection(proj_path)

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or available_cpus()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own Fail/InvalidProtobuf/... types
            raise ModelError(f"{onnx_path} is not a valid ONNX model (re-install it): {exc}") from exc
        self.build = _build_description(model_dir, config, onnx_path, ort.__version__)
        self._check_session(onnx_path, cfg_path)
        self._overhead = len(self._prefix) + len(self._suffix)
        log.info("loaded encoder %s from %s, %d threads", self.model_id, model_dir, opts.intra_op_num_threads)

    # ----------------------------------------------------------------------------------------- loading
    def _set_sizes(self, config: dict[str, Any], cfg_path: Path, window: int | None, late_window: int | None) -> None:
        """``model_id``, ``dim``, ``max_tokens`` and the window sizes, from ``config`` and the settings."""
        try:
            self.model_id = str(config["id"])
            self.dim = int(config["dim"])
            self.max_tokens = int(config["max_tokens"])
        except (TypeError, ValueError) as exc:
            raise ModelError(f"encoder description {cfg_path} has a malformed id, dim or max_tokens") from exc
        if self.dim < 1 or self.max_tokens < 8:
            raise ModelError(f"encoder description {cfg_path} has an impossible dim or max_tokens")
        # Longest sequence run at once; longer texts go through overlapping windows of this size. Attention is
        # quadratic, so a window below max_tokens trades context for speed on long documents.
        if window is not None and window < 32:
            raise ValueError(f"window must be at least 32 tokens, got {window}")
        self.window_tokens = min(window or self.max_tokens, self.max_tokens)
        # Late chunking may use shorter windows than encode(): a model trained on short sequences (MiniLM: 128)
        # keeps token states meaningful only that far. encoder.json's optional "late_window" sets it.
        # ``late_window`` (a setting) caps it further: attention is quadratic, so EmbeddingGemma pools 2,048-token
        # windows at ~320 tok/s but 1,024-token ones at ~500 tok/s on 2 cores.
        late = min(int(config.get("late_window") or self.window_tokens), self.window_tokens)
        if late_window is not None and late_window < 32:
            raise ValueError(f"late_window must be at least 32 tokens, got {late_window}")
        self.late_window_tokens = min(late, late_window or late)

    def _check_session(self, onnx_path: Path, cfg_path: Path) -> None:
        """The session's input names and types; refuse a model without ``input_ids``, without the configured
        output, or whose token states do not have the width the description implies."""
        self.input_names = [i.name for i in self.session.get_inputs()]
        self._input_types = {
            i.name: np.int32 if i.type == "tensor(int32)" else np.int64 for i in self.session.get_inputs()
        }
        if "input_ids" not in self.input_names:
            raise ModelError(f"{onnx_path} has no input_ids input (inputs: {', '.join(self.input_names)})")
        outputs = {o.name: o for o in self.session.get_outputs()}
        if self.output_name not in outputs:
            raise ModelError(f"{onnx_path} has no output {self.output_name!r} (it has {', '.join(outputs)})")
        hidden = outputs[self.output_name].shape[-1]  # an int, or a name when the export left it symbolic
        expected = self.projection.shape[0] if self.projection is not None else self.dim
        if isinstance(hidden, int) and hidden != expected:
            raise ModelError(f"{onnx_path} gives {hidden}-d token states but {cfg_path} implies {expected}")

    def _special_tokens(self) -> tuple[list[int], list[int]]:
        """Ids the tokenizer's post-processor puts before and after a text ([CLS]/[SEP], <bos>/<eos>)."""
        enc = self.tokenizer.encode("a", add_special_tokens=True)
        content = [k for k, m in enumerate(enc.special_tokens_mask) if not m]
        if not content:
            return list(enc.ids), []
        return list(enc.ids[: content[0]]), list(enc.ids[content[-1] + 1 :])

    def _load_projection(self, path: Path) -> NDArray[np.float32]:
        try:
            m = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ModelError(f"{path} is not a valid .npy projection matrix: {exc}") from exc
        if m.ndim != 2 or m.shape[1] != self.dim:
            raise ModelError(f"projection {path} has shape {m.shape}, expected (hidden, {self.dim})")
        return np.ascontiguousarray(m, dtype=np.float32)

    # ------------------------------------------------------------------------------------ tokenising
    def _prompt(self, role: EncodeRole) -> str:
        return self.query_prompt if role == "query" else self.passage_prompt

    def _tokenize(self, texts: Sequence[str], prompt: str) -> list[_Tokens]:
        """Tokenise ``prompt + text`` together (as sentence-transformers does) and split the prompt off."""
        lp = len(prompt)
        encs = self.tokenizer.encode_batch([prompt + t for t in texts], add_special_tokens=False)
        out = []
        for enc in encs:
            offs = np.asarray(enc.offsets, dtype=np.int64).reshape(-1, 2)
            # A token is the prompt's only when it lies wholly inside it; one straddling the joint belongs to
            # the text (its start is clamped to the text's first character).
            n_prompt = int(np.count_nonzero((offs[:, 1] <= lp) & (offs[:, 0] < lp)))
            ids = list(enc.ids)
            text_offs = np.clip(offs[n_prompt:] - lp, 0, None)
            out.append(_Tokens(prompt_ids=ids[:n_prompt], ids=ids[n_prompt:], offsets=text_offs))
        return out

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` alone: no prompt, no special tokens."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def text_capacity(self, role: EncodeRole = "passage", *, late: bool = False) -> int:
        """How many text tokens fit in one window (of ``encode``, or of ``encode_tokens`` if ``late``)."""
        prompt = self._prompt(role)
        prompt_len = len(self.tokenizer.encode(prompt, add_special_tokens=False).ids) if prompt else 0
        window = self.late_window_tokens if late else self.window_tokens
        return window - self._overhead - prompt_len

    # ------------------------------------------------------------------------------------- inference
    def _run(self, batch: Sequence[Sequence[int]]) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
        """Token states (B, L, H) and the attention mask (B, L) of id sequences, right-padded."""
        ids, mask = right_padded(batch)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        feeds = {name: feeds[name].astype(self._input_types[name]) for name in self.input_names}
        (states,) = self.session.run([self.output_name], feeds)
        return np.asarray(states, dtype=np.float32), mask

    def _batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Indices grouped into batches by ascending length, each under the token budget."""
        budget = self.batch_size * _TOKENS_PER_ITEM
        order = sorted(range(len(lengths)), key=lambda k: lengths[k])
        batches: list[list[int]] = []
        for k in order:
            cur = batches[-1] if batches else None
            # sorted ascending, so the newcomer is the longest and sets the padded width
            if cur is not None and len(cur) < self.batch_size and (len(cur) + 1) * lengths[k] <= budget:
                cur.append(k)
            else:
                batches.append([k])
        return batches

    def _project(self, h: NDArray[np.float32]) -> NDArray[np.float32]:
        return h @ self.projection if self.projection is not None else h

    def _window_states(
        self, tok: _Tokens, prompt: str, window_tokens: int, context: WindowContext | None = None
    ) -> _WindowStates:
        """Projected vectors of (text tokens, prefix specials + prompt + suffix specials) over windows.

        Text tokens take their vector from the window where they are most central; the prefix and prompt come
        from the first window and the suffix from the last, as if the whole text had been one sequence. Rows are
        projected window by window (a linear map commutes with the mean), so no unprojected copy is kept.
        With ``context``, every window reads ``context(offset of its first character)`` between the prompt and
        its text (at most ``CONTEXT_TOKENS``); those tokens' vectors are summed per window, apart from the text's.
        """
        # The first window keeps the prompt as tokenised with the text (exactly what encode() runs); later
        # windows start mid-text, so they get the prompt tokenised on its own.
        later = self.tokenizer.encode(prompt, add_special_tokens=False).ids if prompt else []
        reserved = CONTEXT_TOKENS if context is not None else 0
        cap = window_tokens - self._overhead - max(len(tok.prompt_ids), len(later)) - reserved
        if cap < 1:
            raise ModelError(f"encoder {self.model_id}: its prompt fills the {window_tokens}-token window")
        n = len(tok.ids)
        windows = plan_windows(n, cap, int(cap * WINDOW_OVERLAP))
        owner = assign_tokens(n, windows)
        prompts = [tok.prompt_ids if w == 0 else later for w in range(len(windows))]
        contexts = [self._context_ids(context, int(tok.offsets[s][0])) if context else [] for s, _ in windows]
        seqs = [
            self._prefix + prompts[w] + contexts[w] + tok.ids[s:e] + self._suffix for w, (s, e) in enumerate(windows)
        ]
        text_vecs = np.empty((n, self.dim), dtype=np.float32)
        sums = np.zeros((len(windows), self.dim), dtype=np.float32)
        first: NDArray[np.float32] | None = None
        last: NDArray[np.float32] | None = None
        for batch in self._batches([len(s) for s in seqs]):
            states, _ = self._run([seqs[w] for w in batch])
            for row, w in enumerate(batch):
                s, e = windows[w]
                head = len(self._prefix) + len(prompts[w]) + len(contexts[w])
                mine = np.flatnonzero(owner[s:e] == w)
                text_vecs[s + mine] = self._project(states[row, head + mine])
                if contexts[w]:
                    sums[w] = self._project(states[row, head - len(contexts[w]) : head]).sum(axis=0)
                if w == 0:
                    first = self._project(states[row, : len(self._prefix) + len(prompts[0])])
                if w == len(windows) - 1:
                    last = self._project(states[row, head + (e - s) : len(seqs[w])])
        assert first is not None and last is not None
        counts = np.array([len(c) for c in contexts], dtype=np.int64)
        return _WindowStates(text_vecs, np.concatenate([first, last], axis=0), owner, sums, counts)

    def _context_ids(self, context: WindowContext, offset: int) -> list[int]:
        """A window's context tokens: ``context(offset)`` and a blank line, cut to ``CONTEXT_TOKENS``."""
        text = context(offset).strip()
        if not text:
            return []
        return list(self.tokenizer.encode(text + "\n\n", add_special_tokens=False).ids[:CONTEXT_TOKENS])

    def encode_tokens(self, text: str, *, context: WindowContext | None = None) -> TokenVectors:
        """Projected (not normalised) vectors of the text's own tokens, offsets in ``text``'s characters; with
        ``context``, each window reads it first (see :meth:`_window_states`)."""
        tok = self._tokenize([text], self.passage_prompt)[0]
        if not tok.ids:
            return TokenVectors(text, np.zeros((0, self.dim), np.float32), np.zeros((0, 2), np.int64))
        ws = self._window_states(tok, self.passage_prompt, self.late_window_tokens, context)
        if context is None:
            return TokenVectors(text=text, vectors=ws.text, offsets=tok.offsets)
        return TokenVectors(text, ws.text, tok.offsets, ws.owner, ws.context_sums, ws.context_counts)

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        """L2-normalised sentence vectors: role prompt, mean of all token states, projection, normalisation.

        A text longer than one window is pooled over overlapping windows, so all of it counts. A text this encoder
        encoded before in the same role (among the last ``MEMO_TEXTS``) is not encoded again.
        """
        keys = [(role, t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._memo_lock:  # one encode at a time: the memo and the session are shared
            missing = list(dict.fromkeys(k for k in keys if k not in self._memo))
            fresh = self._encode([t for _role, t in missing], role) if missing else out[:0]
            found = dict(zip(missing, fresh, strict=True))
            for i, k in enumerate(keys):
                out[i] = found[k] if k in found else self._memo[k]
                self._memo[k] = out[i].copy()
                self._memo.move_to_end(k)
            while len(self._memo) > MEMO_TEXTS:
                self._memo.popitem(last=False)
        return out

    def _encode(self, texts: Sequence[str], role: EncodeRole) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        toks = self._tokenize(list(texts), self._prompt(role))
        seqs = [self._prefix + t.prompt_ids + t.ids + self._suffix for t in toks]
        # an empty sequence (no prompt, no special tokens, empty text) keeps the zero vector
        short = [k for k, s in enumerate(seqs) if 0 < len(s) <= self.window_tokens]
        long = [k for k, s in enumerate(seqs) if len(s) > self.window_tokens]
        for batch in self._batches([len(seqs[k]) for k in short]):
            idx = [short[b] for b in batch]
            states, mask = self._run([seqs[k] for k in idx])
            m = mask[:, :, None].astype(np.float32)
            pooled = (states * m).sum(axis=1) / m.sum(axis=1)
            out[idx] = normalise(self._project(pooled))
        for k in long:
            log.debug("text %d has %d tokens: pooling over windows", k, len(seqs[k]))
            ws = self._window_states(toks[k], self._prompt(role), self.window_tokens)
            out[k] = normalise(np.concatenate([ws.text, ws.extra]).astype(np.float64).mean(axis=0))
        return out
