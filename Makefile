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
PYTEST := $(PY) -m pytest

.PHONY: setup deps models demo test test-fast test-slow lint bench clean

# build/setup.py prints one line per set-up stage (time, peak memory) and a summary with the disk used; the
# full output goes to build/setup.log. It skips what is already installed and verified.
SETUP := $(PYTHON) build/setup.py --jobs $(JOBS) $(if $(GPU),--gpu $(GPU))

setup:
	@$(SETUP)

deps:
	@$(SETUP) --only packages

models: deps
	@$(SETUP) --only models

demo: setup
	$(VENV)/bin/pikelocal demo

# Two tiers; pytest exits 5 when a tier selects no test, which is not a failure here.
test: setup
	$(PYTEST) -m "not slow" --durations=10 || [ $$? -eq 5 ]
	$(PYTEST) -m slow --durations=25 || [ $$? -eq 5 ]

test-fast: deps
	$(PYTEST) -m "not slow" || [ $$? -eq 5 ]

# ruff (style, bugs), mypy --strict (types) and the import contracts of pyproject.toml (layers).
lint: deps
	$(VENV)/bin/ruff check pikelocal tests build
	$(VENV)/bin/ruff format --check pikelocal tests build
	$(VENV)/bin/mypy pikelocal
	$(VENV)/bin/lint-imports

# The plots need matplotlib, the `bench` extra: installed here once, not by set-up (the product never imports it).
# Each script names docs/BENCHMARKS.md; its section is written in the topic file of docs/benchmarks/ that holds it
# (build/bench/sections.py). The headline table (there and in README.md) and the plots come last, from
# docs/results.json (build/bench/bench_headline.py).
bench: setup
	@$(PY) -c "import matplotlib" 2>/dev/null || $(PY) -m pip install -q --disable-pip-version-check -e ".[dev,bench]"
	$(PY) build/bench/bench.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_llm_ceiling.py --out docs/BENCHMARKS.md --json build/cache/ceiling.json
	$(PY) build/bench/bench_llm_ceiling.py --batched-contention-only --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_ingest.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_ingest_cost.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_enrich.py --out docs/BENCHMARKS.md
	for w in 1 0; do $(PY) build/bench/bench_enrich.py --batch $$w --no-http --label "llm.batch $$w" --section bench_enrich_batch --out docs/BENCHMARKS.md || exit 1; done
	$(PY) build/bench/bench_encryption.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_ocr.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_formats.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_graph.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_graph.py --dim 768 --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_bit_recall.py --out docs/BENCHMARKS.md
	$(PY) build/bench/bench_headline.py --json docs/results.json --out docs/BENCHMARKS.md --plots docs/plots

clean:
	rm -rf $(VENV) build/.venv-export build/cache
