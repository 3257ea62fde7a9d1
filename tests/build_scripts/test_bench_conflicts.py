"""build/bench/bench_conflicts.py: the conflict check alone over a real gold sheet's document, with the gold's
answers in hand: the document's true conflicts caught, the rows shown conflicting written out, the KB kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.build_scripts import load_build_script


def test_the_supply_agreement_s_two_true_conflicts_are_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_build_script("bench/bench_conflicts")
    out = tmp_path / "shown.json"
    assert bench.main(["--kbs", str(tmp_path), "--sheet", "contract-en", "--no-meaning", "--json", str(out)]) == 0
    shown = {r["item"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    # the gold sheet's two conflicts (clause 12.1 against schedule row 9; the Initial Term's two end dates)
    assert shown["warranty_duration"]["expected"] and set(shown["warranty_duration"]["values"]) == {
        "24 months",
        "36 months",
    }
    assert shown["expiration_date"]["expected"]
    assert {"2030-02-28", "2029-02-28"} <= set(shown["expiration_date"]["values"])
    table = capsys.readouterr().out
    assert "| contract-en | no | 6 |" in table and "| 2/2 |" in table
    assert (tmp_path / "contract-en.kb").is_file()
