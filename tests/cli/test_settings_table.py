"""Each setting is declared once (pikelocal/config.py): docs/settings.md's settings table is generated from the
declarations (build/settings_table.py), every setting has one line of help, and a default's justification names
a section the benchmark pages have (docs/BENCHMARKS.md and its topic files, docs/benchmarks/), not figures that go
stale."""

from __future__ import annotations

import re
from pathlib import Path

from pikelocal import config
from pikelocal.config import SCHEMA
from tests.support.build_scripts import load_build_script

ROOT = Path(__file__).resolve().parents[2]


def test_the_settings_page_table_is_generated_from_the_schema() -> None:
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    table = load_build_script("settings_table")
    assert table.with_table(page) == page, "docs/settings.md's settings table is stale: run build/settings_table.py"
    assert all(f"| `{d.key}` |" in page for d in SCHEMA)


def test_every_setting_has_one_line_of_help_and_a_real_benchmarks_section() -> None:
    headings = [
        line.lstrip("#").strip()
        for page in [ROOT / "docs" / "BENCHMARKS.md", *sorted((ROOT / "docs" / "benchmarks").glob("*.md"))]
        for line in page.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    ]
    for d in SCHEMA:
        assert d.spec.help and "\n" not in d.spec.help, d.key
        assert not d.spec.docs or any(h.startswith(d.spec.docs) for h in headings), (d.key, d.spec.docs)
    assert len({d.env for d in SCHEMA}) == len(SCHEMA)  # no two settings share an environment variable


def test_the_declarations_carry_no_dated_figures() -> None:
    comments = [line.split("#", 1)[1] for line in Path(config.__file__).read_text().splitlines() if "#" in line]
    figures = re.compile(r"\b20\d\d-\d\d-\d\d\b|\d\.\d{3}\b|→")
    assert not [c for c in comments + [d.spec.help for d in SCHEMA] if figures.search(c)]
