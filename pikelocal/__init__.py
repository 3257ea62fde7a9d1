"""pikelocal: local-first, air-gapped document question answering (PIKE-RAG) in one SQLite file.

Importing the package closes the libraries' own doors to the network before any of them loads: every way into
pikelocal (the CLI, the TUI, ``pikelocal.api``, the PDF reading child, the benchmarks) passes through here first.
onnxruntime sends usage telemetry over HTTPS unless ``ORT_DISABLE_TELEMETRY`` is set before its first session (its
Privacy.md; without it, ingest and ask looked up mobile.events.data.microsoft.com from the main process); the
Hugging Face libraries and the ``DO_NOT_TRACK`` convention get the same answer. The values are forced, not
defaulted: a user's environment cannot turn telemetry back on. ``tests/test_airgap.py`` runs the commands under
strace and fails on any internet socket.
"""

import os as _os

__version__ = "0.1.0"

# Each library's switch for "never phone home"; set before any of them is imported.
NO_PHONE_HOME = {
    "ORT_DISABLE_TELEMETRY": "1",  # onnxruntime (the encoder, and rapidocr's models in the PDF child)
    "HF_HUB_OFFLINE": "1",  # huggingface_hub, should any library reach for it: never a download
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",  # the cross-tool convention
}
_os.environ.update(NO_PHONE_HOME)
