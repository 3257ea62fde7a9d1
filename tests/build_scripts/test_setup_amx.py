"""build/setup.py keeps llama.cpp's AMX kernels out on CPUs with AMX (their first decode crashed: llama.cpp #20824)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.build_scripts import load_build_script


def test_amx_is_read_from_the_cpu_flags(tmp_path: Path) -> None:
    setup = load_build_script("setup")
    xeon = tmp_path / "xeon"
    xeon.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512f avx512_vnni amx_bf16 amx_tile amx_int8\n\n")
    epyc = tmp_path / "epyc"
    epyc.write_text("processor\t: 0\nflags\t\t: fpu avx avx2 fma f16c\nbugs\t\t: amx_int8_is_not_a_flag_here\n")
    assert setup.cpu_has_amx(xeon)
    assert not setup.cpu_has_amx(epyc)
    assert not setup.cpu_has_amx(tmp_path / "absent")  # no /proc: no AMX build flags


def test_the_flags_are_added_to_the_callers_own() -> None:
    setup = load_build_script("setup")
    env = setup.without_amx({"CFLAGS": "-O2", "PATH": "/bin"})
    assert env["CFLAGS"] == f"-O2 {setup.NO_AMX_FLAGS}" and env["CXXFLAGS"] == setup.NO_AMX_FLAGS
    assert env["PATH"] == "/bin"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc on PATH (set-up needs one to build llama.cpp)")
def test_the_flags_win_over_a_later_march_that_has_amx() -> None:
    """As CMake orders them: CFLAGS first, then ggml's -march=native (here a named AMX CPU, so any host can check)."""
    setup = load_build_script("setup")

    def macros(*flags: str) -> str:
        cmd = ["gcc", *flags, "-dM", "-E", "-x", "c", "/dev/null"]
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout

    try:
        assert "__AMX_INT8__" in macros("-march=sapphirerapids")
    except subprocess.CalledProcessError:
        pytest.skip("this gcc does not know -march=sapphirerapids (gcc < 11)")
    kept_out = macros(*setup.NO_AMX_FLAGS.split(), "-march=sapphirerapids")
    assert "__AMX_INT8__" not in kept_out and "__AMX_TILE__" not in kept_out
    assert "__AVX512VNNI__" in kept_out  # the rest of the CPU's instructions stay
