/**
 * Imported for its effect: this test process compiles tree-sitter grammars with V8's baseline wasm compiler only
 * (--liftoff-only), as the CLI's one-shot commands do (bin/editwarden). The optimising tier changes how fast a
 * parse runs, never what it returns; in a test that parses a few files it is only cost — compiling the C++
 * grammar with it took ~2 s of CPU in a controlled-edit test.
 */
import v8 from 'node:v8';

v8.setFlagsFromString('--liftoff-only');
