"""build/bench/bench_readers.py: the readers alone, over a real gold sheet's document, scored against its gold; a
document that cannot be ingested stops the script with its name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.build_scripts import load_build_script


def test_the_signage_tender_s_rows_are_read_and_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_build_script("bench/bench_readers")
    out = tmp_path / "rows.json"
    assert bench.main(["--kbs", str(tmp_path), "--sheet", "cn-tender-yinchuan-signage", "--json", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))
    read = {(r["item"], r["reader"]): r["outcome"] for r in rows}
    # read by hand from its gold sheet (p. 2): 「每逾期1天，按合同总价0.5%支付违约金」 and 「不允许分包、转包」
    assert read[("liquidated_damages", "damages for delay")] == "right"
    assert read[("subcontracting", "subcontracting forbidden")] == "right"
    assert all(r["sheet"] == "cn-tender-yinchuan-signage" and not r["held_out"] for r in rows)
    assert "| damages for delay | no | 1 | 1 | 0 | 0 |" in capsys.readouterr().out
    assert (tmp_path / "cn-tender-yinchuan-signage.kb").is_file()  # kept for the next run


def test_a_document_that_cannot_be_ingested_is_named(tmp_path: Path) -> None:
    bench = load_build_script("bench/bench_readers")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 not really")
    with pytest.raises(SystemExit, match="broken.pdf: could not be ingested"):
        bench.read_rows(tmp_path / "broken.kb", broken)
