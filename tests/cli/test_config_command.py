"""`pikelocal config`: the effective settings, each with where it came from (default, file, environment, flag), as
text and as JSON; and a bad value's error naming where it was set."""

from __future__ import annotations

import json
from pathlib import Path

from pikelocal.config import SCHEMA
from tests.support.cli import assert_one_line_error, run_cli

CONFIG = '[llm]\nmodel = "fast"\nn_ctx = 4096\n[search]\nk = 5\n'


def layers(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A config file and environment variables, one of which overrides the file."""
    cfg = tmp_path / "my.toml"
    cfg.write_text(CONFIG, encoding="utf-8")
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),  # no user config file
        "PIKELOCAL_LLM_MODEL": "tiny",  # over the file's "fast"
        "PIKELOCAL_ANSWER_K": "3",
        "PIKELOCAL_LLM_API_KEY": "s3cret",
    }
    return cfg, env


def test_config_prints_each_setting_with_where_it_came_from(tmp_path: Path) -> None:
    cfg, env = layers(tmp_path)
    proc = run_cli("--config", str(cfg), "--threads", "1", "config", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"config file: {cfg} (chosen by --config)"
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in lines[1:]}
    assert len(rows) == len(SCHEMA)
    assert rows["llm.model"] == ['"tiny"', "environment variable PIKELOCAL_LLM_MODEL"]
    assert rows["llm.n_ctx"] == ["4096", f"file {cfg}"]
    assert rows["search.k"] == ["5", f"file {cfg}"]
    assert rows["answer.k"] == ["3", "environment variable PIKELOCAL_ANSWER_K"]
    assert rows["llm.threads"] == ["1", "flag --threads"] and rows["encoder.threads"] == ["1", "flag --threads"]
    assert rows["answer.mode"] == ['"naive"', "default"] and rows["answer.check"] == ["true", "default"]
    assert rows["llm.api_key"] == ['"(hidden)"', "environment variable PIKELOCAL_LLM_API_KEY"]
    assert "s3cret" not in proc.stdout


def test_config_json_is_one_setting_object_per_setting(tmp_path: Path) -> None:
    cfg, env = layers(tmp_path)
    proc = run_cli("--config", str(cfg), "--threads", "1", "config", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    rows = {row["key"]: row for row in json.loads(proc.stdout)}
    assert list(rows) == [d.key for d in SCHEMA]
    assert rows["llm.model"] == {
        "key": "llm.model",
        "value": "tiny",
        "default": "default",
        "source": "environment",
        "where": "PIKELOCAL_LLM_MODEL",
        "env": "PIKELOCAL_LLM_MODEL",
    }
    assert (rows["llm.n_ctx"]["value"], rows["llm.n_ctx"]["source"], rows["llm.n_ctx"]["where"]) == (
        4096,
        "file",
        str(cfg),
    )
    assert (rows["llm.threads"]["source"], rows["llm.threads"]["where"]) == ("flag", "--threads")
    assert rows["search.hop_similarity"] == {
        "key": "search.hop_similarity",
        "value": 0.5,
        "default": 0.5,
        "source": "default",
        "where": None,
        "env": "PIKELOCAL_SEARCH_HOP_SIMILARITY",
    }
    assert rows["llm.api_key"]["value"] == "(hidden)" and "s3cret" not in proc.stdout


def test_without_a_config_file_it_says_so(tmp_path: Path) -> None:
    proc = run_cli("config", env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("config file: none")


def test_a_bad_value_names_the_file_the_variable_or_the_flag(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[search]\nk = 0\n", encoding="utf-8")
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    proc = run_cli("--config", str(cfg), "config", env=env)
    assert_one_line_error(proc, 2, f"search.k = 0: must be at least 1 (from file {cfg})")
    proc = run_cli("config", env={**env, "PIKELOCAL_ANSWER_MAX_TOKENS": "8"})
    assert_one_line_error(proc, 2, "answer.max_tokens = 8: must be at least 16 (from environment variable PIKELOCAL_")
    proc = run_cli("--llm-backend", "openai", "config", env=env)
    assert_one_line_error(proc, 2, "llm.backend = 'openai' needs llm.base_url", "(from flag --llm-backend)")
