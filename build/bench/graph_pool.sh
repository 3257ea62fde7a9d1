#!/usr/bin/env bash
# The entity-graph evaluation of issue 20 on a pooled multi-hop set, resumable step by step (each step skips when
# its output file exists; enrichment resumes by itself after a kill).
#
#   SET=2wiki N=20 build/bench/graph_pool.sh          (SET: 2wiki | hotpotqa; OUT: where KB and results go;
#                                                      SEED: which N questions, 0 by default)
#
# 1. `eval retrieval --pool` builds the pool of the N questions' paragraphs (seed SEED) and scores it before enrichment;
# 2. `enrich` adds atomic questions and entities (one LLM call a paragraph; no summaries);
# 3. the eval again, with graph alone, and hybrid with the graph at weight 0, 0.3 and 1.0 (`search.graph_weight`);
# 4. build/bench/bench_graph_variants.py's seeding variants, into OUT/SET-N-variants.md.
# Late vectors are off (as in every pooled run since issue 19's measurements). Results go to
# ~/.cache/pikelocal-eval/ by default: outside the work tree, which a new session lays anew.
set -euo pipefail
cd "$(dirname "$0")/../.."
SET=${SET:-2wiki}
N=${N:-20}
SEED=${SEED:-0}
OUT=${OUT:-$HOME/.cache/pikelocal-eval}
PY=${PY:-.venv/bin/python}
mkdir -p "$OUT"
SUFFIX=$([ "$SEED" = 0 ] && echo "" || echo "-seed$SEED")  # seed 0 keeps the names of the first runs
KB="$OUT/$SET-pool$N$SUFFIX.kb"
TAG="$OUT/$SET$N$SUFFIX"
export PIKELOCAL_INGEST_LATE=false PIKELOCAL_SEARCH_LATE_WEIGHT=0
evaluate() { # $1: output file, $2: modes; env: graph weight
  [ -s "$1" ] && return 0
  "$PY" -m pikelocal eval retrieval ../shared/data/multihop --set "$SET" --pool --limit "$N" --seed "$SEED" \
    --k 2,5,10 --modes "$2" --kb "$KB" > "$1.part" 2>&1
  mv "$1.part" "$1"
}
echo "[graph_pool] $(date -u +%H:%M) $SET-$N$SUFFIX: pool and score before enrichment"
evaluate "$TAG-before.txt" bm25,dense,hybrid
echo "[graph_pool] $(date -u +%H:%M) $SET-$N$SUFFIX: enrich (entities on, summaries off)"
if [ ! -e "$TAG-enriched" ]; then
  PIKELOCAL_ENRICH_ENTITIES=true PIKELOCAL_ENRICH_SUMMARIES=false "$PY" -m pikelocal enrich "$KB" \
    >> "$TAG-enrich.log" 2>&1
  touch "$TAG-enriched"
fi
for w in 0 0.3 1.0; do
  echo "[graph_pool] $(date -u +%H:%M) $SET-$N$SUFFIX: score, graph weight $w"
  PIKELOCAL_SEARCH_GRAPH_WEIGHT=$w evaluate "$TAG-w$w.txt" bm25,dense,graph,hybrid
done
echo "[graph_pool] $(date -u +%H:%M) $SET-$N$SUFFIX: seeding variants"
[ -s "$TAG-variants.md" ] || "$PY" build/bench/bench_graph_variants.py --kb "$KB" --set "$SET" --limit "$N" --seed "$SEED" \
  --out "$TAG-variants.md" > "$TAG-variants.log" 2>&1
echo "[graph_pool] $(date -u +%H:%M) $SET-$N$SUFFIX: done"
touch "$TAG-done"
