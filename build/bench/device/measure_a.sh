#!/bin/bash
# GPU path: ceiling, in-process enrichment, llama-server enrichment with parallel requests, answering per mode.
for i in $(seq 400); do grep -qE "SERVER-DONE|BUILD-END" /tmp/build.log && break; sleep 1; done; echo "waited $i s"; tail -2 /tmp/build.log
source build/bench/device/env.sh
trap 'cp /tmp/res/* $OUT/ 2>/dev/null; cp /tmp/server.log $OUT/ 2>/dev/null' EXIT
[ -f $M ] || cat /tmp/parts/part* > $M
stamp assembled; sha256sum $M | tee /tmp/res/sha.txt
grep -E "DONE|END" /tmp/build.log; echo "LIB=$LIB"; ls $LIB | head -20
if ! pgrep -f llama-server >/dev/null; then
  setsid nohup $LIB/llama-server -m $M -ngl 99 -fa on -c 131072 -np 16 --host 127.0.0.1 --port 8080 --no-webui > /tmp/server.log 2>&1 < /dev/null &
fi
stamp ceiling
timeout 150 python3 build/bench/bench_llm_ceiling.py --model $M --gpu-layers -1 --quant "" --no-contention --threads 16 --widths 1,2,4,8,16 --json /tmp/res/ceiling-gpu.json --out /tmp/res/ceiling-gpu.md 2>&1 | grep -v '^$' | tail -12
stamp bench_enrich in-process
timeout 240 $GPU python3 build/bench/bench_enrich.py --pdf /tmp/data/tender.pdf --chunks 48 --parallel 8 --kb /tmp/be.kb --label "H100 in-process (-ngl all)" --json /tmp/res/enrich.json --ceiling /tmp/res/ceiling-gpu.json --out /tmp/res/enrich.md > /tmp/res/bench_enrich.log 2>&1; echo rc=$?; tail -40 /tmp/res/bench_enrich.log
stamp server
for i in $(seq 90); do curl -sf 127.0.0.1:8080/health >/dev/null && break; sleep 1; done; curl -s 127.0.0.1:8080/health; echo
for p in 16 1; do
  kb=/tmp/srv$p.kb; rm -f $kb*
  python3 -m pikelocal ingest $kb /tmp/data/tender.pdf --no-late 2>&1 | tail -1
  lim=""; [ $p = 1 ] && lim="--limit 48"
  t0=$(date +%s.%N); timeout 150 $SRV PIKELOCAL_LLM_PARALLEL=$p python3 -m pikelocal enrich $kb $lim > /tmp/res/server-p$p.log 2>&1; echo "rc=$? server parallel=$p wall $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
  tail -2 /tmp/res/server-p$p.log; python3 -m pikelocal stats $kb > /tmp/res/stats-p$p.txt 2>&1; head -25 /tmp/res/stats-p$p.txt
done
stamp ask
for mode in naive hier decompose; do
  t0=$(date +%s.%N); timeout 120 $GPU python3 -m pikelocal ask /tmp/srv16.kb "投标保证金是多少，提交截止时间是什么时候？" --mode $mode > /tmp/res/ask-$mode.txt 2>&1; echo "rc=$? ask $mode wall $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"; tail -4 /tmp/res/ask-$mode.txt
done
stamp end
