"""What importing the front ends' objects loads: the CLI starts without numpy or SQLite, and the KnowledgeBase
the TUI holds loads no model runtime until a model is asked for."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numpy", "apsw", "sqlite_vec", "llama_cpp", "onnxruntime", "tokenizers")
MODEL_RUNTIMES = ("llama_cpp", "onnxruntime")


def loaded_after(code: str) -> set[str]:
    """The top-level modules a fresh interpreter has loaded after running ``code``."""
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_the_cli_and_the_api_import_nothing_heavy() -> None:
    loaded = loaded_after("import pikelocal.cli, pikelocal.api, pikelocal.domain")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_knowledge_base_object_loads_no_model_runtime_until_asked() -> None:
    code = (
        "import tempfile, pathlib\n"
        "from pikelocal import api\n"
        "kb = api.open_kb(pathlib.Path(tempfile.mkdtemp()) / 'x.kb', api.load_settings(environ={}))\n"
        "assert isinstance(kb, api.KnowledgeBase) and not kb.exists()\n"
    )
    loaded = loaded_after(code)
    assert not loaded & set(MODEL_RUNTIMES), sorted(loaded & set(MODEL_RUNTIMES))


def test_the_probe_sees_what_it_imports() -> None:
    """The check above can fail: a module that is imported shows up."""
    assert "llama_cpp" in loaded_after("import llama_cpp")
