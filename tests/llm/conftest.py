"""Fixtures for LLM backend tests: stand-in servers, the tiny real model, a dict-backed cache."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.llm_cache import DictCache
from tests.support.paths import installed_model
from tests.support.standin_server import StandinServer

SMOLLM2 = "smollm2-135m-instruct-q4_1.gguf"


@pytest.fixture
def dict_cache() -> DictCache:
    return DictCache()


@pytest.fixture
def standin() -> Iterator[StandinServer]:
    """A canned stand-in server, no latency; tests may change ``mode`` / ``latency_s``."""
    with StandinServer() as server:
        yield server


@pytest.fixture
def dead_url() -> Iterator[str]:
    """A loopback URL where nothing listens: the port is bound (so nobody takes it) but not listening."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        sock.close()


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    return installed_model(SMOLLM2)


@pytest.fixture(scope="session")
def smollm2(smollm2_path: Path):
    """SmolLM2-135M in process (0.4 s to load); shared by the whole session."""
    from pikelocal.llm.llama_cpp import LlamaCppLLM

    llm = LlamaCppLLM(smollm2_path, n_ctx=2048, n_threads=2)
    yield llm
    llm.close()


@pytest.fixture(scope="session")
def smollm2_server(smollm2_path: Path) -> Iterator[StandinServer]:
    """A stand-in server answering with its own SmolLM2 instance (as llama-cpp-python's server would)."""
    from pikelocal.llm.llama_cpp import LlamaCppLLM

    served = LlamaCppLLM(smollm2_path, n_ctx=2048, n_threads=2)
    with StandinServer(mode="real", llama=served.raw) as server:
        yield server
    served.close()
