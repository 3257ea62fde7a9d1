"""A named prompt (zh + en text, JSON schema, parser) and the loop that runs it: retry once with the error.

The fixed part (system text and instructions) comes first and the varying part last, so the in-process
model reuses the KV cache of the shared prefix from one call to the next (llama-cpp-python keeps the
previous call's cache and evaluates only the tokens after the longest common prefix).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pikelocal.domain.reports import StageCost
from pikelocal.llm.base import LLM, Completion, GenParams, Message
from pikelocal.llm.parallel import parallel_map
from pikelocal.text.lang import Lang

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)  # a result of a narrower value type is a result of a wider one


class ReplyError(ValueError):
    """A reply that cannot be used; the message is shown to the model when it is asked again."""


@dataclass(frozen=True)
class Prompt(Generic[T]):
    """``system`` and ``user`` are per-language templates; ``user`` is filled with ``str.format(**fields)``."""

    name: str  # the tag: cache rows, stats and the fake LLM's script are keyed by it
    system: Mapping[Lang, str]
    user: Mapping[Lang, str]
    schema: Mapping[str, Any]
    parse: Callable[[Any, Lang, Mapping[str, Any]], T]  # (decoded JSON, language, fields) → value; raises ReplyError
    max_tokens: int = 512
    retry: Mapping[Lang, str] = field(
        default_factory=lambda: {
            "zh": "上面的回复无法使用：{error}。请只输出符合要求的 JSON。",
            "en": "That reply cannot be used: {error}. Reply again with only the JSON asked for.",
        }
    )

    def messages(self, lang: Lang, fields: Mapping[str, Any]) -> list[Message]:
        return [Message("system", self.system[lang]), Message("user", self.user[lang].format(**fields))]

    def params(self) -> GenParams:
        return GenParams(tag=self.name, max_tokens=self.max_tokens, json_schema=self.schema)


@dataclass(frozen=True)
class PromptResult(Generic[T_co]):
    value: T_co | None
    error: str | None  # why the last reply could not be used; None on success
    completions: tuple[Completion, ...]  # one, or two when the first reply was retried

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.completions)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.completions)


@dataclass(frozen=True)
class PromptJob(Generic[T]):
    prompt: Prompt[T]
    lang: Lang
    fields: Mapping[str, Any]


def _decode(prompt: Prompt[T], text: str, lang: Lang, fields: Mapping[str, Any]) -> T:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " (the reply was cut off at the token limit?)" if text and not text.rstrip().endswith("}") else ""
        raise ReplyError(f"invalid JSON: {exc.msg} at character {exc.pos}{cut}") from None
    except ValueError as exc:  # parsed, but a number past int's digit limit: "1111…" from a looping model
        raise ReplyError(f"invalid JSON: {exc}") from None
    except RecursionError:  # "[[[[…" deeper than the interpreter's recursion limit, from a looping model
        raise ReplyError("invalid JSON: nested too deeply") from None
    return prompt.parse(data, lang, fields)


def run_prompt(llm: LLM, prompt: Prompt[T], lang: Lang, fields: Mapping[str, Any]) -> PromptResult[T]:
    """Ask once; when the reply does not parse, ask again with the reason. Never raises for a bad reply."""
    messages = prompt.messages(lang, fields)
    params = prompt.params()
    first = llm.complete(messages, params)
    try:
        return PromptResult(_decode(prompt, first.text, lang, fields), None, (first,))
    except ReplyError as exc:
        error = str(exc)
    again = [*messages, Message("assistant", first.text), Message("user", prompt.retry[lang].format(error=error))]
    second = llm.complete(again, params)
    try:
        return PromptResult(_decode(prompt, second.text, lang, fields), None, (first, second))
    except ReplyError as exc:
        return PromptResult(None, str(exc), (first, second))


def run_prompts(
    llm: LLM,
    jobs: Sequence[PromptJob[T]],
    on_done: Callable[[int, PromptResult[T]], None] | None = None,
) -> list[PromptResult[T]]:
    """:func:`run_prompt` for every job, ``llm.max_parallel`` at a time; ``on_done`` runs in this thread."""
    return parallel_map(
        lambda job: run_prompt(llm, job.prompt, job.lang, job.fields), jobs, workers=llm.max_parallel, on_done=on_done
    )


def clean_line(text: Any, limit: int) -> str:
    """A reply string on one line, trimmed to ``limit`` characters; non-strings become ''."""
    if not isinstance(text, str):
        return ""
    return " ".join(text.split())[:limit]


def charge(cost: StageCost, result: PromptResult[Any]) -> None:
    """Count one item's completions (retries included) into its stage's cost."""
    cost.items += 1
    for c in result.completions:
        cost.calls += 1
        cost.cached += c.cached
        cost.prompt_tokens += c.prompt_tokens
        cost.prompt_evaluated += c.evaluated
        cost.completion_tokens += c.completion_tokens
        cost.llm_seconds += 0.0 if c.cached else c.seconds
