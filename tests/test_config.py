"""Settings layers and their errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.domain.errors import ConfigError
from pikelocal.kb.options import ask_options, review_options
from pikelocal.query.context.segments import PRESETS


def test_defaults_without_any_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    s = load_settings(environ={})
    assert (s.llm.backend, s.llm.model, s.encoder.model) == ("llama_cpp", "default", "default")


def test_layers_override_in_order(tmp_path: Path) -> None:
    cfg = tmp_path / "pikelocal.toml"
    cfg.write_text('models_dir = "/m"\n[llm]\nmodel = "fast"\nthreads = 2\n[encoder]\nmodel = "minilm"\n')
    s = load_settings(cfg, environ={"PIKELOCAL_LLM_MODEL": "tiny", "PIKELOCAL_ENCODER_BATCH_SIZE": "4"})
    assert (s.models_dir, s.llm.model, s.llm.threads, s.encoder.model, s.encoder.batch_size) == (
        "/m",
        "tiny",
        2,
        "minilm",
        4,
    )
    s = load_settings(cfg, overrides={"llm.model": "x.gguf", "llm.threads": None}, environ={})
    assert (s.llm.model, s.llm.threads) == ("x.gguf", 2)  # None means "flag not given"


def test_unknown_key_in_file_is_rejected_with_a_suggestion(tmp_path: Path) -> None:
    cfg = tmp_path / "pikelocal.toml"
    cfg.write_text("[llm]\nmodle = 'fast'\n")
    with pytest.raises(ConfigError, match=r"unknown setting 'llm.modle' \(did you mean 'llm.model'\?\)") as err:
        load_settings(cfg, environ={})
    assert str(cfg) in str(err.value)


def test_unknown_env_key_and_bad_type_and_bad_section(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PIKELOCAL_LLM_TREADS: unknown setting 'llm.treads'"):
        load_settings(environ={"PIKELOCAL_LLM_TREADS": "2"})
    with pytest.raises(ConfigError, match="llm.threads' must be int, got 'many'"):
        load_settings(environ={"PIKELOCAL_LLM_THREADS": "many"})
    cfg = tmp_path / "c.toml"
    cfg.write_text("[lm]\nmodel = 'x'\n")
    with pytest.raises(ConfigError, match="unknown setting 'lm'"):
        load_settings(cfg, environ={})


def test_openai_backend_needs_a_url_and_broken_toml_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="llm.base_url"):
        load_settings(environ={"PIKELOCAL_LLM_BACKEND": "openai"})
    bad = tmp_path / "bad.toml"
    bad.write_text("[llm\n")
    with pytest.raises(ConfigError, match="bad.toml: cannot read config"):
        load_settings(bad, environ={})
    with pytest.raises(ConfigError, match="missing.toml: config file not found"):
        load_settings(tmp_path / "missing.toml", environ={})


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("PIKELOCAL_LLM_THREADS", "2.5", "llm.threads' must be int, got '2.5'"),
        ("PIKELOCAL_LLM_TIMEOUT_S", "0", "llm.timeout_s = 0.0: must be more than 0 seconds"),
        ("PIKELOCAL_LLM_N_CTX", "16", "llm.n_ctx = 16: must be at least 256"),
        ("PIKELOCAL_ENCODER_BATCH_SIZE", "0", "encoder.batch_size = 0: must be at least 1"),
        ("PIKELOCAL_SEARCH_FUSION", "borda", "search.fusion = 'borda': must be 'rrf', 'minmax' or 'zscore'"),
        ("PIKELOCAL_ANSWER_CONTEXT", "window", "answer.context = 'window': must be 'segments' or 'neighbours'"),
        ("PIKELOCAL_ANSWER_SEGMENTS", "all", "answer.segments = 'all': must be 'balanced', 'precision' or 'find_all'"),
    ],
)
def test_impossible_values_are_refused(variable: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(environ={variable: value})


def test_answer_context_and_segment_preset_reach_the_answer_options() -> None:
    default = ask_options(load_settings(environ={}))
    assert (default.context, default.segments, default.ranking) == ("neighbours", PRESETS["balanced"], 50)
    env = {"PIKELOCAL_ANSWER_CONTEXT": "segments", "PIKELOCAL_ANSWER_SEGMENTS": "precision"}
    chosen = ask_options(load_settings(environ=env))
    assert (chosen.context, chosen.segments) == ("segments", PRESETS["precision"])


def test_a_checklist_item_reads_the_review_s_own_source_budget() -> None:
    env = {"PIKELOCAL_ANSWER_COMPRESS_TOKENS": "900", "PIKELOCAL_ANSWER_REVIEW_COMPRESS_TOKENS": "300"}
    settings = load_settings(environ=env)
    assert (ask_options(settings).compress_tokens, review_options(settings).compress_tokens) == (900, 300)
    # 0: the review keeps the answer's budget
    settings = load_settings(environ={**env, "PIKELOCAL_ANSWER_REVIEW_COMPRESS_TOKENS": "0"})
    assert review_options(settings).compress_tokens == 900
