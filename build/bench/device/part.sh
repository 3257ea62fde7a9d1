#!/bin/bash
# move the carried model piece(s) out of the tree; report the build
mkdir -p /tmp/parts; for f in .gpu/p/part*; do [ -f "$f" ] && mv "$f" /tmp/parts/; done
[ -f .gpu/data.tgz ] && cp .gpu/data.tgz /tmp/
echo "parts: $(ls /tmp/parts | tr '\n' ' ')"; grep -E "DONE|END|rror" /tmp/build.log | tail -5; tail -1 /tmp/build.log
