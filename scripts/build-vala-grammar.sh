#!/usr/bin/env bash
# Rebuilds grammars/vala/ (tree-sitter-vala.wasm, COPYING, grammar.js) from a
# checkout of vala-lang/tree-sitter-vala.
#
# No npm package ships a Vala grammar, so editwarden ships this one (LGPL-2.1,
# its licence and its source beside it). The wasm is committed: installing
# editwarden never compiles anything. This script is how it was made, for
# whoever updates it; grammars/vala/README.md records the commit and checksum.
#
# Needs: emscripten (Debian 12: `apt-get install emscripten`, 3.1.6 was used).
# Usage: scripts/build-vala-grammar.sh PATH/TO/tree-sitter-vala
# It builds the parser the way tree-sitter CLI 0.20 built wasm grammars (an
# emscripten SIDE_MODULE exporting tree_sitter_vala), the shape web-tree-sitter
# 0.25 loads; the grammar has no external scanner, so parser.c is all of it.
set -euo pipefail
SRC="${1:?usage: $0 PATH/TO/tree-sitter-vala (a checkout at the commit in grammars/vala/README.md)}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
(cd "$SRC" && emcc -o "$OUT/tree-sitter-vala.wasm" -Os -s WASM=1 -s SIDE_MODULE=2 -s TOTAL_MEMORY=33554432 -s NODEJS_CATCH_EXIT=0 \
  -s 'EXPORTED_FUNCTIONS=["_tree_sitter_vala"]' -fno-exceptions -I src src/parser.c)
install -m 0644 "$OUT/tree-sitter-vala.wasm" "$ROOT/grammars/vala/tree-sitter-vala.wasm"
install -m 0644 "$SRC/COPYING" "$ROOT/grammars/vala/COPYING"
install -m 0644 "$SRC/grammar.js" "$ROOT/grammars/vala/grammar.js"
sha256sum "$ROOT/grammars/vala/tree-sitter-vala.wasm"
