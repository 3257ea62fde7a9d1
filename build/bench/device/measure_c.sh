#!/bin/bash
source build/bench/device/env.sh
D=/tmp/qa
trap 'cp $D/*.gpu.* $D/*.srv.* $OUT/ 2>/dev/null' EXIT
(sleep 430; pkill -f "pikelocal eval") &
hp() { q=/tmp/data/hotpotqa_dev500_questions.json
  $GPU python3 -X faulthandler -m pikelocal eval qa $q --kb $D/hotpotqa.kb --limit 50 --seed 7 --modes naive,decompose,hier --results $D/hotpotqa.gpu.jsonl --out $D/hotpotqa.gpu.md > $D/hotpotqa.gpu.log 2>&1
  rc=$?; echo "hotpotqa in-process rc=$rc"; tail -n 25 $D/hotpotqa.gpu.log
  if [ $rc != 0 ]; then $SRV python3 -m pikelocal eval qa $q --kb $D/hotpotqa.kb --limit 50 --seed 7 --modes naive,decompose,hier --results $D/hotpotqa.srv.jsonl --out $D/hotpotqa.srv.md > $D/hotpotqa.srv.log 2>&1; echo "hotpotqa server rc=$?"; fi; }
tw() { q=/tmp/data/2wikimultihopqa_dev500_questions.json
  $SRV python3 -m pikelocal eval qa $q --kb $D/2wikimultihopqa.kb --limit 50 --seed 7 --modes naive,decompose,hier --results $D/2wikimultihopqa.srv.jsonl --out $D/2wikimultihopqa.srv.md > $D/2wikimultihopqa.srv.log 2>&1; echo "2wiki server rc=$?"; }
hp & tw & wait
cat $D/*.gpu.md $D/*.srv.md 2>/dev/null
