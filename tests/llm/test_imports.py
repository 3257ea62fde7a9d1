"""Importing the LLM layer stays cheap: llama_cpp loads only when a model is opened."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_llm_modules_do_not_import_llama_cpp() -> None:
    code = (
        "import sys\n"
        "import pikelocal.llm.llama_cpp, pikelocal.llm.openai_compat, pikelocal.llm.cached\n"
        "import pikelocal.llm.parallel, pikelocal.llm.fake\n"
        "print(sorted(m for m in ('llama_cpp', 'numpy', 'jinja2') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
