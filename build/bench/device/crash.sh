#!/bin/bash
# Second lease (2026-11-26), after call1.sh (BUILD_SERVER=0) and part.sh x18, carrying models/minilm-l6-v2:
# the GPU ceiling through the raw batch API, in-process enrichment at width 1 and on the batch engine at width 8,
# and in-process answering on the enriched KB, which died with SIGSEGV on 2026-11-23. Each step runs under fh.py;
# a step that dies of a signal runs again under cuda-gdb for the native stack. Everything lands in $OUT/res.tgz.
# Local dry run on a CPU build: PATH=.venv/bin:$PATH OUT=/tmp/o ENRICH_ARGS="--limit 3" QA_TAKE=1 bash build/bench/device/crash.sh
for i in $(seq 240); do grep -qE "LIB-DONE|BUILD-END" /tmp/build.log && break; sleep 1; done
echo "waited $i s for the build"; grep -E "DONE|END|rror" /tmp/build.log | tail -3
source build/bench/device/env.sh
trap 'tar czf $OUT/res.tgz -C /tmp res 2>/dev/null' EXIT
[ -f $M ] || cat /tmp/parts/part* > $M
sha256sum $M | tee /tmp/res/sha.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
step() {  # NAME TIMEOUT ARGS...: python3 fh.py ARGS under timeout; on a signal, again under cuda-gdb
  local name=$1 t=$2; shift 2
  stamp "$name"; local t0=$(date +%s.%N)
  FH_LOG=/tmp/res/$name.fh timeout $t python3 build/bench/device/fh.py "$@" > /tmp/res/$name.log 2>&1; local rc=$?
  echo "$name rc=$rc wall $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"; tail -n 8 /tmp/res/$name.log
  if [ -s /tmp/res/$name.fh ]; then echo "--- fault handler:"; head -n 60 /tmp/res/$name.fh; fi
  if [ $rc -gt 128 ] && [ $rc != 137 ]; then
    stamp "$name under cuda-gdb"
    timeout 90 cuda-gdb -q -batch -ex 'set pagination off' -ex 'set confirm off' -ex run -ex 'bt 40' \
      -ex 'info threads' --args python3 build/bench/device/fh.py "$@" > /tmp/res/$name.gdb 2>&1
    grep -n -A45 -E 'received signal|SIGSEGV|SIGABRT' /tmp/res/$name.gdb | head -n 80
  fi
  return $rc
}
step ceiling 60 build/bench/bench_llm_ceiling.py --model $M --gpu-layers -1 --quant "" --no-contention --threads 16 \
  --widths 1,2,4,8,16 --json /tmp/res/ceiling-gpu.json --out /tmp/res/ceiling-gpu.md
export PIKELOCAL_LLM_MODEL=$M PIKELOCAL_LLM_GPU_LAYERS=-1
Q=/tmp/data/hotpotqa_dev500_questions.json
step build 90 pikelocal eval qa $Q --kb /tmp/hp.kb --limit 10 --seed 7 --modes naive --take 1 --results /tmp/res/build.jsonl
cp /tmp/hp.kb /tmp/hp8.kb
step enrich1 90 pikelocal enrich /tmp/hp.kb $ENRICH_ARGS
export PIKELOCAL_LLM_BATCH=8; step enrich8 60 pikelocal enrich /tmp/hp8.kb $ENRICH_ARGS; unset PIKELOCAL_LLM_BATCH
python3 -m pikelocal stats /tmp/hp.kb 2>&1 | head -n 30 > /tmp/res/stats1.txt; python3 -m pikelocal stats /tmp/hp8.kb 2>&1 | head -n 30 > /tmp/res/stats8.txt
head -n 14 /tmp/res/stats1.txt
step qa 90 pikelocal eval qa $Q --kb /tmp/hp.kb --limit 10 --seed 7 --take ${QA_TAKE:-10} --modes naive,decompose,hier --results /tmp/res/qa.jsonl --out /tmp/res/qa.md
cat /tmp/res/qa.md 2>/dev/null | tail -n 6
export PIKELOCAL_LLM_BATCH=4  # answering on the batch engine, on the KB it enriched
step qab 75 pikelocal eval qa $Q --kb /tmp/hp8.kb --limit 10 --seed 7 --take ${QA_TAKE:-10} --modes naive,decompose,hier --results /tmp/res/qab.jsonl --out /tmp/res/qab.md
cat /tmp/res/qab.md 2>/dev/null | tail -n 6
stamp end
