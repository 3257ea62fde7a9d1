"""`pikelocal review KB --requirements TENDER --against BID` as a user runs it, in-process with the hashing encoder
(the real encoder's run is tests/review/test_bid_check_real.py): the rows printed with both quotes, the JSON, the
XLSX export read back with openpyxl, and the one-line errors. The documents are the composed pair of
tests/data/review/against; each expectation is read off them (its README and gold.jsonl)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from openpyxl import load_workbook

from pikelocal import api
from pikelocal.cli.app import main
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb import knowledge_base

PAIR = Path(__file__).parents[1] / "data" / "review" / "against"
TENDER = "tender-hospital-equipment.md"
BID = "bid-hospital-equipment.md"
# tender line 68 against bid line 47 (grep -n): 3 days required, 7 offered
REPLACE = "验收中发现不合格设备的，中标人须在接到采购人书面通知后3日内更换。"
REPLACED = "验收中发现不合格设备的，我方在接到采购人书面通知后7日内更换。"
ISO = "投标人须具有有效的ISO9001质量管理体系认证证书。"  # the bid names no ISO certificate


@pytest.fixture(autouse=True)
def hashing_encoder(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(knowledge_base, "open_encoder", lambda _settings: HashEncoder())
    yield


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("against-cli") / "t.kb"
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge:
        assert knowledge.add([PAIR / TENDER, PAIR / BID]).ingest.count("ingested") == 2
    return path


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in err, err
    return lines[0]


def test_rows_with_both_quotes(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "review", kb, "--requirements", TENDER, "--against", BID)
    assert code == 0, err
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if REPLACE in line)
    assert lines[at].startswith("[differs]") and "p. 1, line 68" in lines[at]
    assert REPLACED in lines[at + 1] and lines[at + 1].lstrip().startswith("bid:") and "p. 1, line 47" in lines[at + 1]
    assert "required at most 3 days, offered 7 days" in lines[at + 2]
    iso = next(line for line in lines if ISO in line)
    assert iso.startswith("[not found]")
    assert not any("采购人应在" in line for line in lines)  # the purchaser's duties are no bid's to answer
    rows = [line for line in lines if line.startswith("[")]
    summary = lines[-1]
    assert summary.startswith(f"{len(rows)} requirements of the bid:")


def test_json_rows(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "review", kb, "--requirements", TENDER, "--against", BID, "--json")
    assert code == 0, err
    rows = json.loads(out)
    row = next(r for r in rows if r["requirement"]["clause"]["text"] == REPLACE)
    assert row["state"] == "differs" and row["answer"]["text"] == REPLACED
    assert [(f["required"]["normal"], f["bound"], f["offered"]["normal"], f["meets"]) for f in row["figures"]] == [
        ("3 days", "max", "7 days", False)
    ]
    iso = next(r for r in rows if r["requirement"]["clause"]["text"] == ISO)
    assert iso["state"] == "not_found" and iso["answer"] is None


def test_xlsx_export_read_back(kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bid.xlsx"
    code, printed, err = run(capsys, "review", kb, "--requirements", TENDER, "--against", BID, "--export", out)
    assert code == 0, err
    assert printed.strip() == f"Wrote {out}"
    book = load_workbook(out)
    assert book.sheetnames == ["against"]
    rows = list(book["against"].iter_rows(values_only=True))
    header = list(rows[0])
    row = dict(zip(header, next(r for r in rows if r[header.index("requirement")] == REPLACE), strict=True))
    assert (row["state"], row["tender page"], row["tender line_start"]) == ("differs", 1, 68)
    assert (row["bid quote"], row["bid page"], row["bid line_start"]) == (REPLACED, 1, 47)
    assert (row["required"], row["offered"]) == ("≤ 3 days", "7 days")


def test_requirements_of_one_document(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "review", kb, "--requirements", TENDER, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert rows and {r["clause"]["where"]["title"] for r in rows} == {
        "市第一人民医院医疗设备及信息化系统采购项目招标文件"
    }


def test_an_unknown_document_is_one_line(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "review", kb, "--requirements", TENDER, "--against", "no-such-bid.pdf")
    assert code != 0 and "no document 'no-such-bid.pdf'" in one_line_error(err)
    code, _out, err = run(capsys, "review", kb, "--requirements", "no-such-tender.pdf", "--against", BID)
    assert code != 0 and "no document 'no-such-tender.pdf'" in one_line_error(err)


def test_against_needs_the_tender(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "review", kb, "--requirements", "--against", BID)
    assert code != 0 and "--requirements TENDER_DOC --against BID_DOC" in one_line_error(err)
    code, _out, err = run(capsys, "review", kb, "--requirements", TENDER, "--against", TENDER)
    assert code != 0 and "one document" in one_line_error(err)
