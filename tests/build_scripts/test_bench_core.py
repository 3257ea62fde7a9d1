"""`make bench`'s first script rewrites only its own section of docs/BENCHMARKS.md: it used to rebuild the file from
the sections whose marker names were plain words, dropping every unmarked section and names such as
``bench_fact_hops:2wiki-50-seed0``."""

from __future__ import annotations

from pathlib import Path

from tests.support.build_scripts import load_build_script

FILE = """# Benchmarks

<!-- headline:begin -->
## Headline results
<!-- headline:end -->

<!-- bench_core:begin -->
Measured long ago.
<!-- bench_core:end -->

## A section without markers

Its figures stay.

<!-- bench_fact_hops:2wiki-50-seed0:begin -->
Fact hops on 2Wiki.
<!-- bench_fact_hops:2wiki-50-seed0:end -->
"""


def test_only_the_core_section_is_rewritten(tmp_path: Path) -> None:
    bench = load_build_script("bench/bench")
    path = tmp_path / "BENCHMARKS.md"
    path.write_text(FILE, encoding="utf-8")
    bench.write_core(path, [bench.BEGIN, "Measured now.", "", "## LLM layer overhead"])
    text = path.read_text(encoding="utf-8")
    assert "Measured now." in text and "Measured long ago." not in text
    assert text == FILE.replace("Measured long ago.", "Measured now.\n\n## LLM layer overhead")
