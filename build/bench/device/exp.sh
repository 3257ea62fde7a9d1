#!/bin/bash
# Third step of the 2026-11-26 lease (after call1.sh and part.sh x18 on a fresh machine): crash.sh showed the
# SIGSEGV inside llama_model::print_info -> std::ostream::_M_insert<long>, resolved in libggml-cuda.so, whenever the
# model loads before onnxruntime. Try the load with libstdc++ preloaded RTLD_GLOBAL, and with onnxruntime imported
# first; with the first that works, the GPU ceiling and in-process answering.
for i in $(seq 150); do grep -qE "LIB-DONE|BUILD-END" /tmp/build.log && break; sleep 1; done
echo "waited $i s for the build"; grep -E "DONE|END" /tmp/build.log | tail -2
source build/bench/device/env.sh
trap 'tar czf $OUT/res.tgz -C /tmp res 2>/dev/null' EXIT
[ -f $M ] || cat /tmp/parts/part* > $M
echo "libggml-cuda exports of libstdc++ templates: $(nm -D --defined-only $LIB/libggml-cuda.so | c++filt | grep -c 'std::basic_ostream')"
nm -D --defined-only $LIB/libggml-cuda.so | c++filt | grep 'std::basic_ostream' | head -n 4
ldd $LIB/libllama.so | grep -E 'stdc|ggml'
try() { local name=$1; shift; FH_LOG=/tmp/res/$name.fh env "$@" timeout 60 python3 build/bench/device/fh.py build/bench/bench_llm_ceiling.py \
  --model $M --gpu-layers -1 --quant "" --no-contention --threads 16 --widths 1 --steps 8 > /tmp/res/$name.log 2>&1
  local rc=$?; echo "$name rc=$rc: $(grep 'generation tok/s' /tmp/res/$name.log)"; return $rc; }
try plain FH_PRELOAD=
try preload FH_PRELOAD=libstdc++.so.6 && export FH_PRELOAD=libstdc++.so.6
try ort FH_IMPORT=onnxruntime && [ -z "$FH_PRELOAD" ] && export FH_IMPORT=onnxruntime
echo "using FH_PRELOAD=$FH_PRELOAD FH_IMPORT=$FH_IMPORT"
stamp ceiling
FH_LOG=/tmp/res/ceiling.fh timeout 90 python3 build/bench/device/fh.py build/bench/bench_llm_ceiling.py --model $M --gpu-layers -1 --quant "" \
  --no-contention --threads 16 --widths 1,2,4,8,16 --json /tmp/res/ceiling-gpu.json --out /tmp/res/ceiling-gpu.md > /tmp/res/ceiling.log 2>&1
echo "ceiling rc=$?"; tar czf $OUT/res.tgz -C /tmp res; grep -v '^$' /tmp/res/ceiling.log | tail -n 4
export PIKELOCAL_LLM_MODEL=$M PIKELOCAL_LLM_GPU_LAYERS=-1
Q=/tmp/data/hotpotqa_dev500_questions.json
stamp build; timeout 90 python3 -m pikelocal eval qa $Q --kb /tmp/hp.kb --limit 10 --seed 7 --modes naive --take 1 --results /tmp/res/build.jsonl > /tmp/res/build.log 2>&1; echo "rc=$?"
stamp enrich; PIKELOCAL_LLM_BATCH=8 timeout 60 python3 -m pikelocal enrich /tmp/hp.kb > /tmp/res/enrich.log 2>&1; echo "rc=$?"; tail -n 3 /tmp/res/enrich.log
for w in 1 4; do stamp "qa batch $w"
  FH_LOG=/tmp/res/qa$w.fh PIKELOCAL_LLM_BATCH=$w timeout 55 python3 build/bench/device/fh.py pikelocal eval qa $Q --kb /tmp/hp.kb --limit 10 --seed 7 \
    --modes naive,decompose,hier --results /tmp/res/qa$w.jsonl --out /tmp/res/qa$w.md > /tmp/res/qa$w.log 2>&1
  echo "qa batch $w rc=$?"; tar czf $OUT/res.tgz -C /tmp res; tail -n 5 /tmp/res/qa$w.md 2>/dev/null; head -n 12 /tmp/res/qa$w.fh 2>/dev/null
done
stamp end
