#!/bin/bash
R=$PWD
mkdir -p /tmp/parts /tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .gpu/whl/*.whl 2>&1 | tail -3
cp .gpu/data.tgz /tmp/ 2>/dev/null
BUILD_SERVER=${BUILD_SERVER:-1} setsid nohup bash build/bench/device/build.sh $R > /tmp/build.log 2>&1 < /dev/null &
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; python3 -V; which nvcc cmake ninja; nvcc --version | tail -2
sleep 15; tail -5 /tmp/build.log
