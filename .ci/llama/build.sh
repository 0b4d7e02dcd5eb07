#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU, that target only) from the source the npm package
# node-llama-cpp ships (llama/gitRelease.bundle), and writes the test models with the bundle's own
# gguf-py and Qwen2 vocabulary. No weights are downloaded. The result is cached outside the clone
# (about 16 minutes to build on two cores), keyed by the pinned package version; a cached build is
# reused. Prints the cache directory: llama-server and model-*.gguf are in it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dependencies"]["node-llama-cpp"])' "$here/package.json")
cache="${SCV_CI_CACHE:-$HOME/.cache/scv-ci}/llama-$version"
# The models are rewritten when this script or make_model.py changes (their arguments live here).
models_rev=$(cat "$here/make_model.py" "$here/build.sh" | sha256sum | cut -c1-12)
if [ -x "$cache/llama-server" ] && [ -f "$cache/model-hello-$models_rev.gguf" ] &&
  [ -f "$cache/model-tool-$models_rev.gguf" ]; then
  echo "$cache"
  exit 0
fi
mkdir -p "$cache"
log="$cache/build.log"
: >"$log"
if [ ! -x "$cache/llama-server" ]; then
  echo "ci: building llama-server from node-llama-cpp $version (cached in $cache)" >&2
  npm install --prefix "$here" --ignore-scripts --omit=optional --no-audit --no-fund >>"$log" 2>&1
  rm -rf "$cache/src"
  git clone -q "$here/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$cache/src" >>"$log" 2>&1
  cmake -S "$cache/src" -B "$cache/src/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DBUILD_SHARED_LIBS=OFF >>"$log" 2>&1
  cmake --build "$cache/src/build" --target llama-server -j "$(nproc)" >>"$log" 2>&1
  cp "$cache/src/build/bin/llama-server" "$cache/llama-server.tmp"
  mv "$cache/llama-server.tmp" "$cache/llama-server"
fi
src="$cache/src"
if [ ! -d "$src/gguf-py" ]; then
  git clone -q "$here/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$src" >>"$log" 2>&1 ||
    { npm install --prefix "$here" --ignore-scripts --omit=optional --no-audit --no-fund >>"$log" 2>&1 &&
      git clone -q "$here/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$src" >>"$log" 2>&1; }
fi
# gguf-py needs numpy: the first Python that has it (the machine's pyenv one ships numpy), else
# Debian's python3-numpy.
py=""
for candidate in python3 "$HOME/.pyenv/shims/python3" /usr/local/bin/python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import numpy" >/dev/null 2>&1; then
    py="$candidate"
    break
  fi
done
if [ -z "$py" ]; then
  (apt-get update -qq && apt-get install -y -qq python3-numpy) >>"$log" 2>&1
  py=/usr/bin/python3
fi
rm -f "$cache"/model-*.gguf
PYTHONPATH="$src/gguf-py" "$py" "$here/make_model.py" "$src/models/ggml-vocab-qwen2.gguf" \
  "$cache/model-hello-$models_rev.gguf" >>"$log" 2>&1
ln -sf "model-hello-$models_rev.gguf" "$cache/model-hello.gguf"
# The tool-call model: Qwen2.5's chat template (it offers tools as Hermes-style <tool_call>
# JSON), answering a prompt with a read_file call and a tool's result with "Done".
PYTHONPATH="$src/gguf-py" "$py" "$here/make_model.py" "$src/models/ggml-vocab-qwen2.gguf" \
  "$cache/model-tool-$models_rev.gguf" \
  --template "$src/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" \
  --reply $'<tool_call>\n{"name":"read_file","arguments":{"path":"a.txt"}}\n</tool_call>' \
  --after 'ĊĊ=Done' >>"$log" 2>&1
ln -sf "model-tool-$models_rev.gguf" "$cache/model-tool.gguf"
echo "$cache"
