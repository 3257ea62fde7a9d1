"""Run a script or module with Python's fault handler writing to $FH_LOG (device runs).

llama-cpp-python points file descriptor 2 at /dev/null while it loads a model (``verbose=False``), so a fault
handler on stderr can print nothing; this one writes to its own file.
Usage: python3 fh.py SCRIPT.py|MODULE [ARGS...]
FH_PRELOAD=LIB loads a shared library with RTLD_GLOBAL first; FH_IMPORT=MODULE imports a module first.
"""

import ctypes
import faulthandler
import importlib
import os
import runpy
import sys

log = open(os.environ.get("FH_LOG", "/tmp/fh.txt"), "a")  # noqa: SIM115 (open until the process ends)
faulthandler.enable(log, all_threads=True)
if os.environ.get("FH_PRELOAD"):
    ctypes.CDLL(os.environ["FH_PRELOAD"], mode=ctypes.RTLD_GLOBAL)
if os.environ.get("FH_IMPORT"):
    importlib.import_module(os.environ["FH_IMPORT"])
target = sys.argv[1]
sys.argv = sys.argv[1:]
if target.endswith(".py"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(target)))  # as `python3 SCRIPT.py` would
    runpy.run_path(target, run_name="__main__")
else:
    runpy.run_module(target, run_name="__main__", alter_sys=True)
