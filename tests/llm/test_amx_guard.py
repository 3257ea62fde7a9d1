"""llama.cpp built with AMX kernels crashes at the first decode on AMX CPUs (llama.cpp #20824): such a build is
recognised from its system info and the model is loaded without weight repacking, which keeps the AMX buffer out."""

from __future__ import annotations

from pathlib import Path

from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.llama_cpp import LlamaCppLLM, amx_kernels_built

# What llama_print_system_info() printed for llama-cpp-python 0.3.36 built with -march=native on two hosts.
XEON_AMX_BUILD = (
    b"CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX_VNNI = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | AVX512 = 1 "
    b"| AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | AMX_INT8 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)
XEON_BUILT_WITHOUT_AMX = XEON_AMX_BUILD.replace(b"AMX_INT8 = 1 | ", b"")
EPYC_AVX2_BUILD = (
    b"CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | LLAMAFILE = 1 | OPENMP = 1 "
    b"| REPACK = 1 | "
)


def test_a_build_with_amx_kernels_is_recognised_from_its_system_info() -> None:
    assert amx_kernels_built(XEON_AMX_BUILD)
    assert not amx_kernels_built(XEON_BUILT_WITHOUT_AMX)
    assert not amx_kernels_built(EPYC_AVX2_BUILD)


def test_a_model_loaded_without_weight_repacking_answers_and_the_default_is_restored(smollm2_path: Path) -> None:
    import llama_cpp

    llm = LlamaCppLLM(smollm2_path, n_ctx=256, n_threads=2, weight_repacking=False)
    try:
        assert llm.raw.model_params.use_extra_bufts is False
        reply = llm.complete((Message("user", "Name a colour."),), GenParams(tag="amx", max_tokens=8))
        assert reply.text.strip() and reply.completion_tokens >= 1
    finally:
        llm.close()
    assert llama_cpp.llama_cpp.llama_model_default_params().use_extra_bufts is True  # only that load was changed
