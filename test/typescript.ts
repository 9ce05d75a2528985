/**
 * TypeScript's compiler for the tests that read source code, loaded through Node's require rather than `import`.
 * Imported, its 9 MB CommonJS file goes through Node's ES module loader: compiled once to tell whether it is an ES
 * module and scanned for its export names (cjs-module-lexer) before the CommonJS loader compiles it. In a bare Node 20
 * that is 0.63-0.79 s of CPU against 0.22-0.26 s required; in a vitest worker test/package/architecture.test.ts went
 * from 16.1 / 14.0 s to 11.3 / 10.4 s of CPU (two runs each, interleaved, load ~8-9). The types are the package's own
 * (`import type * as TS from 'typescript'`).
 */
import { createRequire } from 'node:module';
import type * as TS from 'typescript';

export const ts: typeof TS = createRequire(import.meta.url)('typescript');
