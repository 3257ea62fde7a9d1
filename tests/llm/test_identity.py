"""Model ids are part of every cache key: different models must never share one."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.domain.errors import ConfigError
from pikelocal.llm.llama_cpp import file_fingerprint
from pikelocal.llm.openai_compat import OpenAICompatLLM


def test_same_named_gguf_files_with_different_bytes_differ(tmp_path: Path) -> None:
    a, b, copy = tmp_path / "a" / "model.gguf", tmp_path / "b" / "model.gguf", tmp_path / "c" / "model.gguf"
    for path, tail in ((a, b"one"), (b, b"two"), (copy, b"one")):
        path.parent.mkdir()
        path.write_bytes(b"GGUF" + bytes(3 << 20) + tail)  # differs only past the first MiB
    assert file_fingerprint(a) != file_fingerprint(b)
    assert file_fingerprint(a) == file_fingerprint(copy)


def test_servers_with_the_same_model_name_differ() -> None:
    one = OpenAICompatLLM("http://127.0.0.1:8080/v1", "default")
    two = OpenAICompatLLM("http://127.0.0.1:9090/v1/", "default")
    assert one.model_id != two.model_id and one.model_id.startswith("openai:")


def test_malformed_urls_are_config_errors() -> None:
    for url in ("http://127.0.0.1:99999/v1", "http://host:port/v1", "ftp://host/v1", "localhost:8080"):
        with pytest.raises(ConfigError, match="LLM server URL"):
            OpenAICompatLLM(url, "m")
