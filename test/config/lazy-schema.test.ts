/**
 * The config schema is built on first use: importing config.ts, or reading a
 * project with no config file of either kind, builds none of it; the first
 * file that sets something builds it. The modules are imported afresh
 * (vi.resetModules): a worker runs file after file in one process, and another
 * file may have built the schema already.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

let config: typeof import('../../src/config/config.js');
let load: typeof import('../../src/config/load.js');
let dir: string;

beforeAll(async () => {
  vi.resetModules();
  config = await import('../../src/config/config.js');
  load = await import('../../src/config/load.js');
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-lazy-schema-')));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the config schema is built on first use', () => {
  it('importing it, an empty config and a project without config files build nothing, and give fresh defaults', () => {
    expect(config.configSchemaBuilt()).toBe(false);
    const root = path.join(dir, 'bare');
    fs.mkdirSync(root);
    const env = { HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'xdg-config'), XDG_DATA_HOME: path.join(dir, 'xdg-data') };
    const first = load.loadConfig(root, undefined, env);
    const empty = config.parseConfig('');
    expect(config.configSchemaBuilt()).toBe(false);
    // Each a copy of its own: one changed leaves the next untouched.
    first.constraints.max_files = 1;
    first.constraints.denied_patterns.push('x/**');
    expect(empty.constraints.max_files).toBe(10);
    expect(load.loadConfig(root, undefined, env).constraints.denied_patterns).not.toContain('x/**');
    // Flags that set nothing (exec or run without a constraint flag) build nothing either, and give a copy of its own.
    const flagged = config.withOverrides(empty, { constraints: { max_files: undefined }, sandbox: {} } as unknown as Parameters<typeof config.withOverrides>[1]);
    expect(config.configSchemaBuilt()).toBe(false);
    expect(flagged).toStrictEqual(empty);
    flagged.constraints.allowed_patterns.push('y/**');
    expect(empty.constraints.allowed_patterns).not.toContain('y/**');
  });

  it('a config that sets something builds it, and the defaults it gives without it are the ones the schema gives', () => {
    expect(config.parseConfig('constraints:\n  max_files: 3\n').constraints.max_files).toBe(3);
    expect(config.configSchemaBuilt()).toBe(true);
    expect(config.validateConfig({})).toStrictEqual(config.configSchema().parse({}));
    expect(() => config.validateConfig([])).toThrow(/invalid value/);
  });

  it('flags that set nothing give what checking the merge gives (fast-check: nested overrides of undefined leaves, on configs as loaded)', () => {
    const loaded = [
      config.parseConfig(''),
      config.parseConfig('constraints:\n  max_files: 3\n  denied_patterns: ["secret/**"]\nverify:\n  build: make\n'),
      config.parseConfig('sandbox:\n  network: [registry.npmjs.org]\ncheckpoints:\n  durability: strict\n'),
    ];
    const nothing: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.constant(undefined), fc.dictionary(fc.constantFrom('constraints', 'sandbox', 'verify', 'max_files', 'network', 'checkpoints', 'x'), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(fc.constantFrom(...loaded), nothing, (base, overrides) => {
        const flags = (overrides ?? {}) as Parameters<typeof config.withOverrides>[1];
        // The same config, or the same refusal (an empty object under a key the config lacks, `x`, is one).
        const outcome = (f: () => unknown) => {
          try {
            return { value: f() };
          } catch (error) {
            return { refused: (error as Error).message };
          }
        };
        expect(outcome(() => config.withOverrides(base, flags))).toStrictEqual(outcome(() => config.validateConfig(config.mergeRaw(base, flags), 'command-line flags')));
      }),
      { numRuns: 200 },
    );
    // A flag that sets something is still checked: a value out of range is refused.
    expect(() => config.withOverrides(loaded[0] as ReturnType<typeof config.parseConfig>, { constraints: { max_files: -1 } })).toThrow();
  });
});
