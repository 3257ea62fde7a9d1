"""Fixtures for encoder tests: the installed ONNX encoders (skipped when absent) and long test documents."""

from __future__ import annotations

import pytest

from tests.support.embed_models import GEMMA_DIR, MINILM_DIR, load_encoder
from tests.support.embed_texts import EN_PARAGRAPHS, ZH_PARAGRAPHS, LongDoc, make_doc


@pytest.fixture(scope="session")
def minilm():
    return load_encoder(MINILM_DIR)


@pytest.fixture(scope="session")
def gemma():
    return load_encoder(GEMMA_DIR)


@pytest.fixture(scope="session")
def en_long_doc() -> LongDoc:
    """About 1,000 MiniLM tokens: four 256-token windows do not hold it, so windows overlap."""
    return make_doc(EN_PARAGRAPHS)


@pytest.fixture(scope="session")
def mixed_long_doc() -> LongDoc:
    """English and Chinese paragraphs, then the English ones again: well over 2,048 Gemma tokens."""
    return make_doc(EN_PARAGRAPHS + ZH_PARAGRAPHS + EN_PARAGRAPHS[::-1])
