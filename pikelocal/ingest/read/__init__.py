"""Reading files: discovery, one parser per format (text, PDF, Word, Excel) with page and line positions, the PDF
reading child process and its limits, OCR of scanned pages, tables as Markdown and the garble check. Imports no
other part of ``ingest``."""
