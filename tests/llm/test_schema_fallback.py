"""Servers that take only {"type": "json_object", "schema": …} (llama-cpp-python's own server)."""

from __future__ import annotations

import json

from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.openai_compat import OpenAICompatLLM
from tests.support.jsonschema_mini import errors
from tests.support.standin_server import StandinServer

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 20}, "n": {"type": "integer"}},
    "required": ["answer", "n"],
}
MESSAGES = [Message("user", "Reply with JSON.")]


def test_rejected_json_schema_falls_back_to_json_object_once() -> None:
    with StandinServer(json_object_only=True) as server:
        llm = OpenAICompatLLM(server.url, "m")
        first = llm.complete(MESSAGES, GenParams(tag="t", json_schema=SCHEMA))
        streamed = "".join(llm.stream(MESSAGES, GenParams(tag="t", json_schema=SCHEMA)))
        types = [body["response_format"]["type"] for body in server.requests]
    assert errors(json.loads(first.text), SCHEMA) == [] and errors(json.loads(streamed), SCHEMA) == []
    assert types == ["json_schema", "json_object", "json_object"]  # switched once, then stays
