"""Write docs/settings.md's settings table from the settings' declarations (pikelocal/config.py), between its markers.

    .venv/bin/python build/settings_table.py          # rewrite the table in docs/settings.md
    .venv/bin/python build/settings_table.py --check  # exit 1 when docs/settings.md's table differs from the schema

tests/cli/test_settings_table.py fails when the two differ, so a setting is documented where it is declared. A
setting's ``docs=`` (the benchmark section that justifies its default) links to the heading of docs/benchmarks/
that begins with it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))  # sections.py, also when a test loads this file by path

from sections import heading_link, read_pages  # noqa: E402

from pikelocal.config import BENCHMARKS, SCHEMA, Declared  # noqa: E402

PAGE = ROOT / "docs" / "settings.md"
BEGIN, END = "<!-- settings:begin -->", "<!-- settings:end -->"


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return f"{value:_}" if isinstance(value, int) and abs(value) >= 100_000 else str(value)


def _bound(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def allowed(d: Declared) -> str:
    """What the declaration allows, in words: its choices or bounds."""
    s = d.spec
    unit = f" {s.unit}" if s.unit else ""
    if s.choices:
        return " \\| ".join(s.choices)
    if s.gt is not None:
        return f"> {_bound(s.gt)}{unit}"
    if s.ge is not None and s.le is not None:
        return f"{_bound(s.ge)} to {_bound(s.le)}{unit}"
    if s.ge is not None:
        return f"≥ {_bound(s.ge)}{unit}"
    return ""


def row(d: Declared, pages: dict[str, str]) -> str:
    """One setting's row; its benchmark section linked from docs/ (``pages``: the benchmark pages by their path
    there), or named as before where no heading begins with it."""
    what = d.spec.help.replace("|", "\\|")
    if d.spec.docs:
        found = heading_link(d.spec.docs, pages)
        what += f" (measured: [{d.spec.docs}]({found[1]}))" if found else f' ({BENCHMARKS}, "{d.spec.docs}")'
    reasks = "yes" if d.spec.answers else ""
    return f"| `{d.key}` | `{_literal(d.default)}` | {allowed(d)} | {reasks} | {what} |"


def settings_table() -> str:
    """The marked block: every declared setting with its default, what it allows, whether a change asks stored
    review rows again (it can change an answer) and what it does."""
    pages = read_pages(ROOT / "docs" / "BENCHMARKS.md")
    lines = [BEGIN, "| setting | default | allowed | re-asks | what it does |", "|---|---|---|---|---|"]
    lines += [row(d, pages) for d in SCHEMA]
    return "\n".join([*lines, END])


def with_table(page: str) -> str:
    """``page`` with the text between the markers replaced by :func:`settings_table`."""
    head, rest = page.split(BEGIN, 1)
    return head + settings_table() + rest.split(END, 1)[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether docs/settings.md is in step")
    args = parser.parse_args()
    text = PAGE.read_text(encoding="utf-8")
    if args.check:
        return 0 if with_table(text) == text else 1
    PAGE.write_text(with_table(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
