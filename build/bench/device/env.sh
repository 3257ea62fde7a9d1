# sourced by the measure scripts on the device
R=$PWD
M=/tmp/model.gguf
LIB=$(dirname "$(find /tmp/lcb -name 'libllama.so' | head -1)")
export LLAMA_CPP_LIB_PATH=$LIB LD_LIBRARY_PATH=$LIB:${LD_LIBRARY_PATH:-} PYTHONPATH=/tmp/site:$R HOME=/tmp/home PYTHONUNBUFFERED=1
export PIKELOCAL_ENCODER_MODEL=/tmp/minilm
mkdir -p /tmp/home /tmp/data /tmp/res
[ -f /tmp/data/.unpacked ] || { tar xzf /tmp/data.tgz -C /tmp/data && touch /tmp/data/.unpacked; }
[ -d /tmp/minilm ] || cp -r models/minilm-l6-v2 /tmp/minilm
GPU="env PIKELOCAL_LLM_MODEL=$M PIKELOCAL_LLM_GPU_LAYERS=-1"
SRV="env PIKELOCAL_LLM_BACKEND=openai PIKELOCAL_LLM_BASE_URL=http://127.0.0.1:8080/v1 PIKELOCAL_LLM_MODEL=qwen2.5-coder-1.5b-instruct-q4_k_m"
stamp() { echo "=== $(date +%T) $*"; }
