#!/bin/bash
# QA per mode on the 50 + 50 pooled HotpotQA / 2Wiki subsets (seed 7), MiniLM encoder, LLM on the GPU.
for i in $(seq 400); do grep -qE "SERVER-DONE|BUILD-END" /tmp/build.log && break; sleep 1; done
(source build/bench/device/env.sh; timeout 100 python3 build/bench/bench_llm_ceiling.py --model $M --gpu-layers -1 --quant "" --no-contention --threads 16 --widths 1,2,4,8,16 --json /tmp/res/ceiling-gpu.json --out /tmp/res/ceiling-gpu.md 2>&1 | tail -8; cp /tmp/res/ceiling* $OUT/)
source build/bench/device/env.sh
D=/tmp/qa; mkdir -p $D; (sleep 520; pkill -f "pikelocal eval"; pkill -f "pikelocal enrich") &
trap 'cp $D/*.jsonl $D/*.md $D/*.log $OUT/ 2>/dev/null' EXIT
pgrep -f llama-server >/dev/null || setsid nohup $LIB/llama-server -m $M -ngl 99 -fa on -c 131072 -np 16 --host 127.0.0.1 --port 8080 --no-webui > /tmp/server.log 2>&1 < /dev/null &
run_set() {
  set=$1; short=$2; q=/tmp/data/${set}_dev500_questions.json
  [ -f $D/$set.built ] || { $GPU python3 -m pikelocal eval qa $q --kb $D/$set.kb --limit 50 --seed 7 --modes naive --take 1 --results $D/$set.build.jsonl > $D/$set.build.log 2>&1 && touch $D/$set.built; }
  stamp $set built
  for i in $(seq 60); do curl -sf 127.0.0.1:8080/health >/dev/null && break; sleep 1; done
  t0=$(date +%s); $SRV PIKELOCAL_LLM_PARALLEL=8 python3 -m pikelocal enrich $D/$set.kb > $D/$set.enrich.log 2>&1; echo "$set enrich rc=$? $(( $(date +%s) - t0 )) s" | tee -a $D/$set.enrich.log
  python3 build/bench/eval_atoms.py $D/$set.kb --data /tmp/data --set $short --out $D/$set.atoms.md > $D/$set.atoms.log 2>&1
  stamp $set enriched
  for mode in naive decompose hier; do
    $GPU python3 -m pikelocal eval qa $q --kb $D/$set.kb --limit 50 --seed 7 --modes $mode --results $D/$set.$mode.jsonl --out $D/$set.$mode.md > $D/$set.$mode.log 2>&1 &
  done
  wait
  stamp $set answered
}
run_set hotpotqa hotpotqa & run_set 2wikimultihopqa 2wiki & wait
tail -3 $D/*.enrich.log; cat $D/*.md
