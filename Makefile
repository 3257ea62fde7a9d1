# pikelocal — set-up, demo, tests, benchmarks.  `make demo` and `make test` do whatever set-up is missing.
#
#   make setup            .venv + package + dev tools + models (reuses what is built and verified)
#   make setup GPU=cuda   same, with llama.cpp built with CUDA (needs nvcc on PATH)
#   make demo             run the main job on the bundled default models
#   make test             all test tiers (fast, then slow on the real models)
#   make lint | bench

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
GPU    ?=
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
DEPS   := $(VENV)/.deps-installed$(if $(GPU),-$(GPU))
PYTEST := $(PY) -m pytest

.PHONY: setup deps models demo test test-fast test-slow lint bench clean

setup: deps models

deps: $(DEPS)

# GPU=cuda installs llama.cpp with CUDA first, bypassing pip's wheel cache (a cached CPU wheel of the same
# version would be reused); the package install after it then finds llama-cpp-python satisfied.
LLAMA_REQ := $(shell grep -o 'llama-cpp-python==[0-9.]*' pyproject.toml)

$(DEPS): pyproject.toml
	@case "$(GPU)" in ""|cuda) ;; *) echo "Error: GPU=$(GPU) is not supported (use GPU=cuda or leave it empty)" >&2; exit 2;; esac
	@if [ "$(GPU)" = cuda ] && ! command -v nvcc >/dev/null; then \
	    echo "Error: GPU=cuda needs the CUDA compiler nvcc on PATH" >&2; exit 2; fi
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
ifeq ($(GPU),cuda)
	CMAKE_ARGS="-DGGML_CUDA=on" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install -q --no-deps \
	    --force-reinstall --no-cache-dir "$(LLAMA_REQ)"
endif
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	@rm -f $(VENV)/.deps-installed*
	touch $@

# build/models.py skips every artifact that is already installed and verified.
models: $(DEPS)
	$(PY) build/models.py

demo: setup
	$(VENV)/bin/pikelocal demo

# Two tiers; pytest exits 5 when a tier selects no test, which is not a failure here.
test: setup
	$(PYTEST) -m "not slow" || [ $$? -eq 5 ]
	$(PYTEST) -m slow || [ $$? -eq 5 ]

test-fast: deps
	$(PYTEST) -m "not slow" || [ $$? -eq 5 ]

lint: deps
	$(VENV)/bin/ruff check pikelocal tests build
	$(VENV)/bin/ruff format --check pikelocal tests build

bench: setup
	$(PY) build/bench.py --out docs/BENCHMARKS.md
	$(PY) build/bench_ingest.py --out docs/BENCHMARKS.md
	$(PY) build/bench_enrich.py --out docs/BENCHMARKS.md

clean:
	rm -rf $(VENV) build/.venv-export build/cache
