/**
 * TypeScript's compiler for the tests that read source code, loaded through Node's require rather than `import`.
 * Imported, its 9 MB CommonJS file goes through Node's ES module loader: compiled once to tell whether it is an ES
 * module and scanned for its export names (cjs-module-lexer) before the CommonJS loader compiles it: 0.55-0.76 s of
 * CPU against 0.18-0.27 s required, in a vitest worker as in a bare Node 20. The rest of what this saves shows in the
 * calls: test/package/architecture.test.ts's tests (the same walks and checker questions) took 5.2 s imported and
 * 3.4 s required, its whole file 9.9 → 7.5 s (10.3 / 10.7 → 7.4 / 8.2 s in-file, two runs each, interleaved, load
 * ~2); in a bare loop of 3 million `ts.isIdentifier` calls the two forms cost the same, so the cause there is not
 * pinned down. The types are the package's own (`import type * as TS from 'typescript'`).
 */
import { createRequire } from 'node:module';
import type * as TS from 'typescript';

export const ts: typeof TS = createRequire(import.meta.url)('typescript');
