"""The LLM protocol and the typed values that cross it."""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class GenParams:
    """Generation parameters. ``tag`` names the prompt (for traces, stats and fakes)."""

    tag: str = "default"
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int = 0
    stop: tuple[str, ...] = ()
    json_schema: Mapping[str, Any] | None = field(default=None, hash=False)
    grammar: str | None = None  # a GBNF grammar the output must follow (llama.cpp; a llama.cpp server)

    def cache_fields(self) -> dict[str, Any]:
        """The fields that change the output (``tag`` does not)."""
        return {
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "stop": list(self.stop),
            "json_schema": self.json_schema,
            **({"grammar": self.grammar} if self.grammar is not None else {}),  # older cache keys stay valid
        }


@dataclass(frozen=True)
class Completion:
    """One finished completion with its cost."""

    text: str
    model_id: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool = False
    # Prompt tokens the model actually ran (those after the prefix whose KV state it reused); None: not known
    # (an HTTP server that does not say). A cached completion ran none now.
    prompt_evaluated: int | None = None

    @property
    def evaluated(self) -> int:
        """Prompt tokens evaluated for this completion now: 0 from the cache, ``prompt_tokens`` when unknown."""
        if self.cached:
            return 0
        return self.prompt_tokens if self.prompt_evaluated is None else self.prompt_evaluated

    def json(self) -> Any:
        """Parse ``text`` as JSON (for schema-constrained calls); raises ``ValueError``."""
        return json.loads(self.text)


@runtime_checkable
class LLM(Protocol):
    """What every backend provides. ``max_parallel`` is 1 in-process, N for a server."""

    model_id: str
    context_tokens: int
    max_parallel: int

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion: ...

    def stream(self, messages: Sequence[Message], params: GenParams) -> Iterator[str]: ...

    def close(self) -> None: ...


def pass_through(inner: Iterator[str], parts: list[str]) -> Generator[str, None, Any]:
    """Yield ``inner``'s deltas, remembering them in ``parts``; return ``inner``'s return value (its Completion)."""
    while True:
        try:
            delta = next(inner)
        except StopIteration as stop:
            return stop.value
        parts.append(delta)
        yield delta


def json_default(obj: Any) -> Any:
    """``json.dumps(default=…)`` for what a schema may hold: read-only mappings (MappingProxyType), sets."""
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    raise TypeError(f"cannot serialise {type(obj).__name__} to JSON")
