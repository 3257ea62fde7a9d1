#!/bin/bash
# Background CUDA build of the llama.cpp that llama-cpp-python 0.3.36 vendors (sm_90), plus llama-server
# unless BUILD_SERVER=0.
set -x
R=$1
cd /tmp && tar xzf $R/.gpu/src.tgz
S=/tmp/llama_cpp_python-0.3.36
mkdir -p /tmp/site && cp -r $S/llama_cpp /tmp/site/
cd $S/vendor/llama.cpp
T0=$(date +%s)
cmake -S . -B /tmp/lcb -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DBUILD_SHARED_LIBS=ON -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
  && cmake --build /tmp/lcb -j 16 --target llama && echo "LIB-DONE $(( $(date +%s) - T0 )) s" \
  && [ "${BUILD_SERVER:-1}" = 1 ] && cmake --build /tmp/lcb -j 16 --target llama-server && echo "SERVER-DONE $(( $(date +%s) - T0 )) s"
echo BUILD-END
