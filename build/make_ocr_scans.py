"""Write the traditional-Chinese test scans of the OCR benchmark (tests/data/ocr/zh_hant_tender_*.pdf).

    .venv/bin/python build/make_ocr_scans.py [FONT]   # default: AR PL UMing (Debian: fonts-arphic-uming)

No traditional-Chinese PDF is in ../shared, so one is made: our tender text (tests/data/tender_rfp_zh_hant.txt,
the ground truth) drawn with AR PL UMing TW on an A4 page at 300 dpi, once in horizontal lines of 44 characters and
once in vertical columns of 60 characters read right to left, then thresholded to black and white and saved by
Pillow as an image-only PDF (CCITT G4, as a fax-mode scanner writes it). The PDFs are committed, so the benchmark
and the tests need no CJK font.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
FONT = Path("/usr/share/fonts/truetype/arphic/uming.ttc")


def make(font: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    text = (DATA / "tender_rfp_zh_hant.txt").read_text(encoding="utf-8")
    face = ImageFont.truetype(str(font), 42, index=2)  # the collection's third face: AR PL UMing TW
    assert face.getname()[0].endswith("TW"), face.getname()
    for layout in ("horizontal", "vertical"):
        img = Image.new("L", (2480, 3508), 255)  # A4 at 300 dpi
        draw, x, y = ImageDraw.Draw(img), (250 if layout == "horizontal" else 2188), 250
        per = 44 if layout == "horizontal" else 60
        for para in (p for p in text.split("\n") if p.strip()):
            for i in range(0, len(para), per):
                if layout == "horizontal":
                    draw.text((x, y), para[i : i + per], font=face, fill=0)
                    y += 64
                else:
                    for k, ch in enumerate(para[i : i + per]):
                        draw.text((x, 250 + 48 * k), ch, font=face, fill=0)
                    x -= 70
        scan = img.point(lambda v: 255 if v > 160 else 0).convert("1")
        scan.save(DATA / "ocr" / f"zh_hant_tender_{layout}.pdf", "PDF", resolution=300)
        print(DATA / "ocr" / f"zh_hant_tender_{layout}.pdf")


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else FONT)
