"""``build/bench/sections.py``: a benchmark script names docs/BENCHMARKS.md as its ``--out`` and its section is
written in the topic file under docs/benchmarks/ that holds its marker (a new one in its marker name's topic file),
and the headline page's index lists every section of the topic files."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.build_scripts import load_build_script

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "BENCHMARKS.md"


@pytest.fixture(scope="module")
def sections() -> ModuleType:
    return load_build_script("bench/sections")


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def pages(tmp_path: Path) -> Path:
    """A headline page with an index and two topic files; the page's path."""
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "search.md").write_text(
        "# Search and retrieval\n\n<!-- tune_fusion:begin -->\n## Fusion\nold\n<!-- tune_fusion:end -->\n\nkept\n",
        encoding="utf-8",
    )
    (tmp_path / "benchmarks" / "answering.md").write_text("# Answering questions\n", encoding="utf-8")
    page = tmp_path / "BENCHMARKS.md"
    page.write_text("# Benchmarks\n\n<!-- index:begin -->\n<!-- index:end -->\n", encoding="utf-8")
    return page


def test_a_section_is_rewritten_in_the_topic_file_that_holds_it(sections: ModuleType, tmp_path: Path) -> None:
    page = pages(tmp_path)
    begin, end = markers("tune_fusion")
    written = sections.write_section(page, begin, end, f"{begin}\n## Fusion\nnew\n{end}")
    search = tmp_path / "benchmarks" / "search.md"
    assert written == search
    assert search.read_text(encoding="utf-8") == (
        "# Search and retrieval\n\n<!-- tune_fusion:begin -->\n## Fusion\nnew\n<!-- tune_fusion:end -->\n\nkept\n"
    )
    assert "tune_fusion" not in page.read_text(encoding="utf-8").split("<!-- index:begin -->")[0]
    assert "- [Fusion](benchmarks/search.md#fusion)" in page.read_text(encoding="utf-8")  # the index, made anew


def test_a_new_section_goes_to_its_topic_file(sections: ModuleType, tmp_path: Path) -> None:
    page = pages(tmp_path)
    begin, end = markers("honesty_new_run")
    assert sections.write_section(page, begin, end, f"{begin}\n### Honesty set\n{end}") == (
        tmp_path / "benchmarks" / "answering.md"
    )
    begin, end = markers("bench_review_contract_zh")  # no topic file of that name yet: made with its title
    reviewing = sections.write_section(page, begin, end, f"{begin}\n### Review\n{end}")
    assert reviewing.read_text(encoding="utf-8").startswith("# Reviewing documents\n\n<!-- bench_review_contract_zh")
    begin, end = markers("anything")
    named = sections.write_section(page, begin, end, f"{begin}\n## Named\n{end}", topic="search")
    assert named == tmp_path / "benchmarks" / "search.md"
    begin, end = markers("unheard_of")  # no home known: the end of the page, to be moved by hand
    assert sections.write_section(page, begin, end, f"{begin}\n## Unheard of\n{end}") == page
    assert page.read_text(encoding="utf-8").endswith(f"{begin}\n## Unheard of\n{end}\n")


def test_without_topic_files_the_page_itself_is_written(sections: ModuleType, tmp_path: Path) -> None:
    page = tmp_path / "BENCHMARKS.md"
    begin, end = markers("bench_ocr")
    assert sections.write_section(page, begin, end, f"{begin}\nfirst\n{end}") == page
    sections.write_section(page, begin, end, f"{begin}\nsecond\n{end}")
    assert page.read_text(encoding="utf-8") == f"# Benchmarks\n\n{begin}\nsecond\n{end}\n"


def test_every_section_of_the_topic_files_would_be_made_again_in_its_own_file(sections: ModuleType) -> None:
    files = sections.topic_files(PAGE)
    assert [p.stem for p in files] == list(sections.TOPICS)
    for path in files:
        for name in re.findall(r"<!-- (.+?):begin -->", path.read_text(encoding="utf-8")):
            assert sections.home(PAGE, f"<!-- {name}:begin -->") == path, name


def test_the_index_of_the_headline_page_is_in_step(sections: ModuleType) -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert sections.with_index(text, sections.read_pages(PAGE)) == text, "run: python build/bench/sections.py"
