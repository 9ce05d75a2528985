/**
 * The thin clients' bundles (dist/hook-client/*.cjs: the hook, the guarded
 * shell, the edit and the compile cache's folder check) read Node's
 * built-ins through a view whose prototype is the module (the build's
 * `lightBuiltins`, scripts/bundle-cli.mjs), not through esbuild's
 * `__toESM` copy of every export: each client starts on every hook,
 * guarded command and edit. The view reads like the module itself, for a
 * default import and a namespace import alike.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';

const CLIENTS = path.resolve(__dirname, '../../dist/hook-client');
const BUILTINS = ['node:fs', 'node:path', 'node:net', 'node:os', 'node:tty', 'node:child_process', 'node:module', 'node:url'];
const require = createRequire(import.meta.url);

describe('the thin clients read the built-ins through a view, not a copy', () => {
  const bundles = fs.readdirSync(CLIENTS).filter((name) => name.endsWith('.cjs'));

  it('no bundle copies a built-in module at load (no esbuild __toESM of a node: require)', () => {
    expect(bundles.sort()).toEqual(['code-cache.cjs', 'compile-cache.cjs', 'edit.cjs', 'hook.cjs', 'shell.cjs']);
    for (const name of bundles) {
      const text = fs.readFileSync(path.join(CLIENTS, name), 'utf8');
      expect(text, name).not.toMatch(/__toESM\(require\("node:/);
      expect(text, name).toMatch(/__builtin\(require\("node:[a-z_]+"\)\)/);
    }
  });

  it("the view reads every export as the module does, and its default is the module (each bundle's own helper)", () => {
    for (const name of bundles) {
      const text = fs.readFileSync(path.join(CLIENTS, name), 'utf8');
      const line = text.split('\n').find((l) => l.startsWith('var __builtin = '));
      expect(line, name).toBeDefined();
      const view = vm.runInThisContext(`(() => { ${line}; return __builtin; })()`) as (mod: object) => Record<string, unknown>;
      for (const id of BUILTINS) {
        const mod = require(id) as Record<string, unknown>;
        const seen = view(mod);
        expect(seen.default).toBe(mod);
        for (const key of Object.keys(mod)) expect(seen[key], `${name} ${id}.${key}`).toBe(mod[key]);
      }
    }
  });
});
