"""The [ingest] and [search] settings and encoder.late_window: layers, bool coercion, validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import IngestSettings, SearchSettings, load_settings
from pikelocal.domain.errors import ConfigError

FULL = """
[encoder]
late_window = 2048

[ingest]
chunk_tokens = 300
min_tokens = 50
max_tokens = 500
late = true

[search]
k = 5
bm25_weight = 0.5
dense_weight = 2
late_weight = 0
candidates = 20
"""


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pikelocal.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str = "", environ: dict[str, str] | None = None) -> str:
    cfg = config(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_settings(cfg, environ=environ or {})
    message = str(info.value)
    assert "\n" not in message and message.strip() == message
    return message


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no pikelocal.toml here
    s = load_settings(environ={})
    # late vectors off: their ingest time did not pay at the default fusion (docs/BENCHMARKS.md)
    assert s.ingest == IngestSettings(chunk_tokens=400, min_tokens=100, max_tokens=600, late=False)
    # The fusion chosen by build/bench/tune_fusion.py (docs/BENCHMARKS.md, "Fusion that never loses").
    assert s.search == SearchSettings(
        k=10, bm25_weight=0.5, dense_weight=1.0, late_weight=0.1, candidates=50, fusion="zscore"
    )
    assert s.encoder.late_window == 1024


def test_file_values_with_their_types(tmp_path: Path) -> None:
    s = load_settings(config(tmp_path, FULL), environ={})
    assert s.encoder.late_window == 2048
    assert s.ingest == IngestSettings(chunk_tokens=300, min_tokens=50, max_tokens=500, late=True)
    assert s.search == SearchSettings(k=5, bm25_weight=0.5, dense_weight=2.0, late_weight=0.0, candidates=20)
    assert isinstance(s.search.dense_weight, float) and isinstance(s.search.k, int)
    assert s.ingest.late is True


def test_environment_overrides_the_file_and_flags_override_both(tmp_path: Path) -> None:
    cfg = config(tmp_path, FULL)
    env = {
        "PIKELOCAL_INGEST_LATE": "false",
        "PIKELOCAL_INGEST_CHUNK_TOKENS": "450",
        "PIKELOCAL_SEARCH_BM25_WEIGHT": "1.5",
        "PIKELOCAL_ENCODER_LATE_WINDOW": "0",
    }
    s = load_settings(cfg, environ=env)
    assert s.ingest.late is False
    assert (s.ingest.chunk_tokens, s.ingest.min_tokens, s.ingest.max_tokens) == (450, 50, 500)
    assert (s.search.bm25_weight, s.search.k) == (1.5, 5)
    assert s.encoder.late_window == 0  # 0: the model's own window
    s = load_settings(cfg, overrides={"ingest.late": "yes", "search.k": "7", "search.candidates": None}, environ=env)
    assert (s.ingest.late, s.search.k, s.search.candidates) == (True, 7, 20)


@pytest.mark.parametrize(
    ("word", "value"),
    [
        ("true", True),
        ("false", False),
        ("1", True),
        ("0", False),
        ("yes", True),
        ("no", False),
        ("on", True),
        ("off", False),
        ("TRUE", True),
        ("Off", False),
        (" yes ", True),
    ],
)
def test_bool_words_from_the_environment(tmp_path: Path, word: str, value: bool) -> None:
    s = load_settings(config(tmp_path, ""), environ={"PIKELOCAL_INGEST_LATE": word})
    assert s.ingest.late is value


@pytest.mark.parametrize(("toml", "value"), [("late = false", False), ('late = "off"', False), ('late = "on"', True)])
def test_bool_from_the_file_as_bool_or_word(tmp_path: Path, toml: str, value: bool) -> None:
    assert load_settings(config(tmp_path, f"[ingest]\n{toml}\n"), environ={}).ingest.late is value


@pytest.mark.parametrize("word", ["maybe", "2", "", "tru", "nein"])
def test_bad_bool_names_the_variable_and_key(tmp_path: Path, word: str) -> None:
    message = error_of(tmp_path, environ={"PIKELOCAL_INGEST_LATE": word})
    assert "PIKELOCAL_INGEST_LATE" in message
    assert "'ingest.late' must be bool" in message


def test_bad_bool_in_the_file_names_the_file(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[ingest]\nlate = "sometimes"\n')
    assert "pikelocal.toml" in message and "'ingest.late' must be bool, got 'sometimes'" in message


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[ingest]\nchunk_tokens = 2.5", "ingest.chunk_tokens"),
        ('[ingest]\nmax_tokens = "many"', "ingest.max_tokens"),
        ('[search]\nk = "ten"', "search.k"),
        ('[search]\ndense_weight = "heavy"', "search.dense_weight"),
        ('[encoder]\nlate_window = "wide"', "encoder.late_window"),
    ],
)
def test_bad_types_name_the_key(tmp_path: Path, toml: str, key: str) -> None:
    assert f"'{key}' must be" in error_of(tmp_path, toml)


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[search]\nk = 0", "search.k"),
        ("[search]\ncandidates = 0", "search.candidates"),
        ("[encoder]\nlate_window = -1", "encoder.late_window"),
        ("[ingest]\nmin_tokens = 0\nchunk_tokens = 10", "ingest.min_tokens"),
    ],
)
def test_values_below_their_minimum_name_the_key(tmp_path: Path, toml: str, key: str) -> None:
    message = error_of(tmp_path, toml)
    assert message.startswith(f"{key} = ") and "must be at least" in message


@pytest.mark.parametrize(
    "toml",
    [
        "[ingest]\nmin_tokens = 500",  # above the default chunk_tokens (400)
        "[ingest]\nchunk_tokens = 700",  # above the default max_tokens (600)
        "[ingest]\nmin_tokens = 100\nchunk_tokens = 300\nmax_tokens = 200",
        "[ingest]\nchunk_tokens = 50",  # below the default min_tokens (100)
    ],
)
def test_token_sizes_must_be_ordered(tmp_path: Path, toml: str) -> None:
    message = error_of(tmp_path, toml)
    assert message.startswith("ingest: need min_tokens <= chunk_tokens <= max_tokens")


def test_equal_token_sizes_are_fine(tmp_path: Path) -> None:
    s = load_settings(config(tmp_path, "[ingest]\nmin_tokens = 200\nchunk_tokens = 200\nmax_tokens = 200"), environ={})
    assert (s.ingest.min_tokens, s.ingest.chunk_tokens, s.ingest.max_tokens) == (200, 200, 200)


@pytest.mark.parametrize(
    ("toml", "named"),
    [
        ("[search]\nbm25_weight = -0.5", "search.bm25_weight"),
        ("[search]\nlate_weight = -1", "search.late_weight"),
        ("[search]\nbm25_weight = 0\ndense_weight = 0\nlate_weight = 0\nquestions_weight = 0", "cannot all be 0"),
    ],
)
def test_bad_fusion_weights(tmp_path: Path, toml: str, named: str) -> None:
    message = error_of(tmp_path, toml)
    assert message.startswith("search") and named in message


def test_some_zero_weights_are_fine(tmp_path: Path) -> None:
    s = load_settings(config(tmp_path, "[search]\nbm25_weight = 0\ndense_weight = 0"), environ={})
    assert (s.search.bm25_weight, s.search.dense_weight, s.search.late_weight) == (0.0, 0.0, 0.1)


def test_bad_weight_from_the_environment_names_the_variable(tmp_path: Path) -> None:
    message = error_of(tmp_path, environ={"PIKELOCAL_SEARCH_LATE_WEIGHT": "-2"})
    assert message.startswith("search.late_weight = -2.0")
    message = error_of(tmp_path, environ={"PIKELOCAL_SEARCH_LATE_WEIGHT": "lots"})
    assert "PIKELOCAL_SEARCH_LATE_WEIGHT" in message and "'search.late_weight' must be float" in message


def test_unknown_keys_in_the_new_sections_are_rejected_with_a_suggestion(tmp_path: Path) -> None:
    assert "unknown setting 'ingest.chunk_token' (did you mean 'ingest.chunk_tokens'?)" in error_of(
        tmp_path, "[ingest]\nchunk_token = 300"
    )
    message = error_of(tmp_path, environ={"PIKELOCAL_SEARCH_CANDIDATE": "5"})
    assert "PIKELOCAL_SEARCH_CANDIDATE" in message and "did you mean 'search.candidates'" in message


@pytest.mark.parametrize("where", ["file", "env"])
def test_a_nan_weight_is_rejected(tmp_path: Path, where: str) -> None:
    if where == "file":
        error_of(tmp_path, "[search]\nbm25_weight = nan")
    else:
        error_of(tmp_path, environ={"PIKELOCAL_SEARCH_BM25_WEIGHT": "nan"})


def test_a_boolean_for_an_int_setting_is_rejected(tmp_path: Path) -> None:
    error_of(tmp_path, "[search]\nk = true")


def test_ocr_settings_default_to_auto_and_are_checked(tmp_path: Path) -> None:
    settings = load_settings(config(tmp_path, ""), environ={})
    assert settings.ingest.ocr == "auto" and settings.ingest.ocr_threads == 0
    assert load_settings(config(tmp_path, ""), environ={"PIKELOCAL_INGEST_OCR": "never"}).ingest.ocr == "never"
    assert "ingest.ocr = 'sometimes': must be 'auto', 'always' or 'never'" in error_of(
        tmp_path, "[ingest]\nocr = 'sometimes'\n"
    )
    assert "ingest.ocr_dpi = 1200: at most 600" in error_of(tmp_path, "[ingest]\nocr_dpi = 1200\n")
    assert "ingest.ocr_dpi = 50: must be at least 72" in error_of(tmp_path, "[ingest]\nocr_dpi = 50\n")
    assert "ingest.ocr_page_timeout_s = 0.0: must be more than 0" in error_of(
        tmp_path, "[ingest]\nocr_page_timeout_s = 0.0\n"
    )
    assert "ingest.ocr_memory_mb = 512: must be at least 1024" in error_of(tmp_path, "[ingest]\nocr_memory_mb = 512\n")


def test_the_ocr_settings_and_a_request_reach_the_ingest_options(tmp_path: Path) -> None:
    from pikelocal.kb.options import ingest_options

    toml = "[ingest]\nocr = 'always'\nocr_dpi = 150\nocr_threads = 1\nocr_page_timeout_s = 90\nocr_memory_mb = 4096\n"
    settings = load_settings(config(tmp_path, toml), environ={})
    ocr = ingest_options(settings).ocr
    assert (ocr.mode, ocr.dpi, ocr.threads, ocr.page_timeout_s, ocr.memory_mb) == ("always", 150, 1, 90, 4096)
    assert ingest_options(settings, ocr="never").ocr.mode == "never"  # --ocr never over the setting


def test_the_ocr_pixel_cap_is_a_setting_whose_default_is_the_old_constant(tmp_path: Path) -> None:
    from pikelocal.ingest.read.ocr import OcrOptions
    from pikelocal.kb.options import ingest_options

    assert ingest_options(load_settings(config(tmp_path, ""), environ={})).ocr.max_side == OcrOptions().max_side
    settings = load_settings(config(tmp_path, ""), environ={"PIKELOCAL_INGEST_OCR_MAX_SIDE": "4000"})
    assert ingest_options(settings).ocr.max_side == 4000
    message = error_of(tmp_path, environ={"PIKELOCAL_INGEST_OCR_MAX_SIDE": "9000"})
    assert (
        message == "ingest.ocr_max_side = 9000: at most 8000 (from environment variable PIKELOCAL_INGEST_OCR_MAX_SIDE)"
    )


def test_late_context_semantic_splitter_and_compression_settings_reach_the_options(tmp_path: Path) -> None:
    from pikelocal.kb.options import ask_options, ingest_options

    defaults = load_settings(config(tmp_path, ""), environ={})
    # compression on at 1,000 tokens: docs/BENCHMARKS.md, "Answers with each context assembly"
    assert (defaults.ingest.late_context, defaults.answer.compress_tokens) == ("mix", 1000)
    toml = "[ingest]\nlate_context = 'pooled'\nsplitter = 'semantic'\n[answer]\ncompress_tokens = 700\n"
    settings = load_settings(config(tmp_path, toml), environ={})
    options = ingest_options(settings)
    assert (options.late_context, options.splitter) == ("pooled", "semantic")
    assert ask_options(settings).compress_tokens == 700
    env = {"PIKELOCAL_INGEST_LATE_CONTEXT": "prefix"}
    assert ingest_options(load_settings(config(tmp_path, ""), environ=env)).late_context == "prefix"
    assert "ingest.late_context = 'window': must be 'off', 'prefix', 'pooled' or 'mix'" in error_of(
        tmp_path, "[ingest]\nlate_context = 'window'\n"
    )
    assert "answer.compress_tokens = -1: must be at least 0" in error_of(tmp_path, "[answer]\ncompress_tokens = -1\n")


def test_contexts_and_reranking_settings_reach_the_options(tmp_path: Path) -> None:
    from pikelocal.kb.options import ask_options, enrich_options

    defaults = load_settings(config(tmp_path, ""), environ={})
    assert (defaults.enrich.context, defaults.answer.rerank) == (False, 0)
    settings = load_settings(config(tmp_path, "[enrich]\ncontext = true\n[answer]\nrerank = 10\n"), environ={})
    assert enrich_options(settings, None, None).context is True
    assert ask_options(settings).rerank == 10
    assert "answer.rerank = -2: must be at least 0" in error_of(tmp_path, "[answer]\nrerank = -2\n")
