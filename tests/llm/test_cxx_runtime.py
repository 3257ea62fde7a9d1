"""A CUDA build of llama.cpp exports weak copies of libstdc++ templates from libggml-cuda.so; unless libstdc++ is in
the process's global symbol scope before llama.cpp loads, libllama.so binds to them and loading a model dies with
SIGSEGV (seen on an H100 and an H200, build/bench/device/README.md). Every first import of ``llama_cpp`` in pikelocal
goes through ``load_llama_cpp``, which puts it there. No GPU is needed to check that it does: each case runs in a
fresh interpreter, where nothing has made libstdc++ global yet (the "before" line shows the check can fail)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# std::ostream::_M_insert<long>, the call the crash was in; defined by libstdc++ alone.
SYMBOL = "_ZNSo9_M_insertIlEERSoT_"

PROBE = """
import ctypes, sys
def global_scope_has_libstdcxx():
    return hasattr(ctypes.CDLL(None), {symbol!r})
print("before", global_scope_has_libstdcxx())
{action}
print("after", global_scope_has_libstdcxx(), "llama_cpp" in sys.modules)
"""


def probe(action: str) -> list[str]:
    code = PROBE.format(symbol=SYMBOL, action=action)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.split("\n")[:2]


def test_a_plain_import_of_llama_cpp_leaves_libstdcxx_out_of_the_global_scope() -> None:
    """The condition of the crash: what ``load_llama_cpp`` exists to change."""
    assert probe("import llama_cpp") == ["before False", "after False True"]


@pytest.mark.parametrize(
    "action",
    [
        "from pikelocal.llm.llama_cpp import load_llama_cpp; load_llama_cpp()",
        "from pikelocal.llm.llama_cpp import gpu_offload_supported; gpu_offload_supported()",
    ],
)
def test_loading_llama_cpp_through_pikelocal_makes_libstdcxx_global_first(action: str) -> None:
    assert probe(action) == ["before False", "after True True"]


def test_the_backend_loads_its_model_after_making_libstdcxx_global(smollm2_path: Path) -> None:
    action = (
        "from pikelocal.llm.llama_cpp import LlamaCppLLM\n"
        f"LlamaCppLLM(__import__('pathlib').Path({str(smollm2_path)!r}), n_ctx=64, n_threads=1).close()"
    )
    assert probe(action) == ["before False", "after True True"]


def test_without_a_findable_cxx_runtime_llama_cpp_still_loads() -> None:
    """Not glibc (or no libstdc++ on the path): nothing to preload, and the import goes on."""
    action = "import pikelocal.llm.llama_cpp as b\nb.CXX_RUNTIME = 'libno-such-runtime.so.0'\nb.load_llama_cpp()"
    assert probe(action) == ["before False", "after False True"]
