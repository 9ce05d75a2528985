/**
 * The repository is untrusted until a person trusts it: every schema key is
 * classified (a new key cannot slip through), a repository file may tighten
 * freely, and a file that loosens is refused — unless the person trusted its
 * exact bytes, or the key comes from their own config. Real files, a real
 * trust store in a temp XDG folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { configSchema, defaultConfig } from '../../src/config/config.js';
import { inspectConfig, loadConfig } from '../../src/config/load.js';
import { isBound, TRUST_RULES, valueAt } from '../../src/config/trust-keys.js';
import { ignoredNotice } from '../../src/config/layers.js';
import { listTrusted, revokeFile, trustFile } from '../../src/config/trust-store.js';
import { codeOf } from '../error-code.js';
import { tempDir } from '../temp-dirs.js';

/** A private person (own XDG folders) and a repository root. */
function world(): { env: { HOME: string; XDG_CONFIG_HOME: string; XDG_DATA_HOME: string }; root: string; userConfig: string; write: (text: string) => string } {
  const home = tempDir('ew-trust-home-');
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data') };
  const root = path.join(home, 'repo');
  fs.mkdirSync(root);
  const write = (text: string) => {
    const file = path.join(root, '.editwarden.yml');
    fs.writeFileSync(file, text);
    return file;
  };
  return { env, root, userConfig: path.join(env.XDG_CONFIG_HOME, 'editwarden', 'config.yml'), write };
}

interface ZodNode {
  _zod: { def: { type: string; shape?: Record<string, unknown>; innerType?: unknown } };
}

/** Every leaf key of the schema, dotted (objects are walked, defaults and optionals unwrapped). */
function schemaLeaves(node: unknown, prefix = ''): string[] {
  let n = node as ZodNode;
  while (n._zod.def.type !== 'object' && n._zod.def.innerType !== undefined) n = n._zod.def.innerType as ZodNode;
  if (n._zod.def.type !== 'object') return [prefix];
  return Object.entries(n._zod.def.shape ?? {}).flatMap(([k, v]) => schemaLeaves(v, prefix ? `${prefix}.${k}` : k));
}

describe('every config key is classified once', () => {
  it('the trust table holds exactly the schema leaves', () => {
    expect(Object.keys(TRUST_RULES).sort()).toEqual(schemaLeaves(configSchema()).sort());
  });
});

/**
 * For each key: a value that tightens (or keeps) the guard and one that loosens it, against the defaults.
 * `free` keys have no loosening value. A key added to the table without a row here fails the coverage check.
 */
const SAMPLES: Record<string, { tight: unknown[]; loose: unknown[] }> = {
  'constraints.max_files': { tight: [0, 1, 10], loose: [11, 1000] },
  'constraints.max_lines_changed': { tight: [1, 500], loose: [501] },
  'constraints.allowed_patterns': { tight: [['src/**'], []], loose: [] },
  // Untrusted, a deny list adds to the person's: no value of it loosens (pinned on its own below).
  'constraints.denied_patterns': { tight: [[...defaultConfig().constraints.denied_patterns, 'secret/**'], ['secret/**'], []], loose: [] },
  'constraints.allowed_tools': { tight: [['read_file'], ['read_file', 'apply_diff']], loose: [['read_file', 'checkpoint_restore'], ['verify']] },
  'constraints.max_tokens': { tight: [100], loose: [50_001] },
  'constraints.timeout': { tight: [1, 300], loose: [301] },
  'constraints.on_violation': { tight: ['keep', 'rollback'], loose: [] },
  'verify.build': { tight: ['make'], loose: [] },
  'verify.test': { tight: ['make test'], loose: [] },
  'verify.timeout': { tight: [60], loose: [601] },
  'verify.on_completion': { tight: [true], loose: [false] },
  'edit.strict': { tight: [false, true], loose: [] },
  'edit.max_file_bytes': { tight: [1000], loose: [defaultConfig().edit.max_file_bytes + 1] },
  'edit.dramatic_reduction.min_lines': { tight: [5, 20], loose: [21] },
  'edit.dramatic_reduction.ratio': { tight: [0.5, 1], loose: [0.1, 0] },
  'edit.syntax_guard': { tight: ['refuse'], loose: ['warn', 'off'] },
  'reports.controlled_edit': { tight: ['out/report.md'], loose: [] },
  'checkpoints.keep_last': { tight: [500], loose: [1, 0, 10_000] },
  'checkpoints.max_file_bytes': { tight: [1024], loose: [defaultConfig().checkpoints.max_file_bytes + 1] },
  'checkpoints.max_total_bytes': { tight: [defaultConfig().checkpoints.max_total_bytes], loose: [1024] },
  // The default is the loosest (deferred): a repository can only ask for strict.
  'checkpoints.durability': { tight: ['strict', 'deferred'], loose: [] },
  'checkpoints.ignored.enabled': { tight: [true], loose: [false] },
  'checkpoints.ignored.max_file_bytes': { tight: [defaultConfig().checkpoints.ignored.max_file_bytes * 2], loose: [1024] },
  'checkpoints.ignored.max_total_bytes': { tight: [defaultConfig().checkpoints.ignored.max_total_bytes * 2], loose: [1024] },
  'checkpoints.ignored.rebuildable': { tight: [[]], loose: [['data/']] },
  'search.timeout': { tight: [5], loose: [31] },
  'scouts.model': { tight: [], loose: ['openai:gpt-4o'] },
  'sandbox.enabled': { tight: [true], loose: [false] },
  'sandbox.network': { tight: [false], loose: [true] },
  'sandbox.git_writable': { tight: [false], loose: [true] },
  'sandbox.allow_unsandboxed': { tight: [false], loose: [true] },
  'sandbox.env': { tight: [[]], loose: [['MY_TOOL_*']] },
  'sandbox.readable': { tight: [[]], loose: [['~/.gitconfig']] },
  'sandbox.writable': { tight: [[]], loose: [['/outside']] },
  'workspace.allow_hardlinks': { tight: [false], loose: [true] },
  active_edit_enabled: { tight: [false], loose: [true] },
};

/** A nested object with `value` at the dotted `key`. */
function setAt(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts.at(-1) as string] = value;
}

describe('an untrusted repository config may only tighten', () => {
  it('the samples cover every key, and the free keys have no loosening value', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(TRUST_RULES).sort());
    for (const [key, rule] of Object.entries(TRUST_RULES)) if (rule.kind === 'free') expect(SAMPLES[key]?.loose).toEqual([]);
  });

  it('property: a generated config is accepted untrusted iff every key it sets tightens; the refusal names exactly the loosening keys', () => {
    const { env, root, write } = world();
    const choice = fc.record(
      Object.fromEntries(
        Object.entries(SAMPLES).map(([key, s]) => {
          const options: fc.Arbitrary<{ loose: boolean; value: unknown } | null>[] = [fc.constant(null)];
          if (s.tight.length > 0) options.push(fc.constantFrom(...s.tight).map((value) => ({ loose: false, value })));
          if (s.loose.length > 0) options.push(fc.constantFrom(...s.loose).map((value) => ({ loose: true, value })));
          return [key, fc.oneof(...options)];
        }),
      ),
    );
    fc.assert(
      fc.property(choice, (picked) => {
        const data: Record<string, unknown> = {};
        const loose: string[] = [];
        for (const [key, pick] of Object.entries(picked)) {
          if (pick === null) continue;
          setAt(data, key, pick.value);
          if (pick.loose) loose.push(key);
        }
        write(YAML.stringify(data));
        const inspection = inspectConfig(root, undefined, env);
        expect(inspection.loosenings.map((l) => l.key).sort()).toEqual(loose.sort());
        // A loosened bound (a limit, a timeout, a size) is not applied — the person's value stands, named in a notice;
        // any other loosening key is refused, and the refusal names exactly those.
        const bounds = loose.filter(isBound);
        const refused = loose.filter((k) => !isBound(k));
        expect(inspection.layers.ignored.map((l) => l.key).sort()).toEqual(bounds.sort());
        for (const key of bounds) expect(valueAt(inspection.config, key)).toEqual(valueAt(defaultConfig(), key));
        if (refused.length === 0) {
          expect(inspection.refusal).toBeNull();
        } else {
          expect(inspection.refusal?.code).toBe('E_UNTRUSTED_CONFIG');
          for (const key of refused) expect(inspection.refusal?.message).toContain(`${key}:`);
          for (const key of bounds) expect(inspection.refusal?.message).not.toContain(`${key}:`);
          expect(inspection.refusal?.hint).toContain(`editwarden trust --root ${root}`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('tightening keys are obeyed untrusted', () => {
    const { env, root, write } = world();
    write('constraints:\n  max_files: 2\n  denied_patterns: [".git/**", "vendor/**", "node_modules/**", "**/*_generated.*", "secret/**"]\nedit:\n  syntax_guard: refuse\n');
    const config = loadConfig(root, undefined, env);
    expect(config.constraints.max_files).toBe(2);
    expect(config.constraints.denied_patterns).toContain('secret/**');
  });
});

describe('deny lists from an untrusted file', () => {
  it("add to the person's (the ADR's example lists three of the four defaults); trusted, the file's list replaces them", () => {
    const { env, root, write } = world();
    const file = write('constraints:\n  denied_patterns: ["vendor/**", ".git/**", "**/*_generated.go", "secret/**"]\n');
    const untrusted = inspectConfig(root, undefined, env);
    expect(untrusted.refusal).toBeNull();
    expect(untrusted.config.constraints.denied_patterns).toEqual(['vendor/**', '.git/**', '**/*_generated.go', 'secret/**', 'node_modules/**', '**/*_generated.*']);
    trustFile(file, env);
    const trusted = inspectConfig(root, undefined, env);
    expect(trusted.config.constraints.denied_patterns).toEqual(['vendor/**', '.git/**', '**/*_generated.go', 'secret/**']);
    expect(trusted.loosenings.map((l) => l.key)).toEqual(['constraints.denied_patterns']);
  });
});

describe('trust by content hash', () => {
  it('a trusted file is obeyed; one changed byte makes it untrusted again ("changed"), and revoking forgets it', () => {
    const { env, root, write } = world();
    const file = write('sandbox:\n  enabled: false\n  allow_unsandboxed: true\n');
    expect(codeOf(() => loadConfig(root, undefined, env))).toBe('E_UNTRUSTED_CONFIG');
    trustFile(file, env);
    expect(loadConfig(root, undefined, env).sandbox).toMatchObject({ enabled: false, allow_unsandboxed: true });
    expect(inspectConfig(root, undefined, env).repository?.trust).toBe('trusted');
    write('sandbox:\n  enabled: false\n  allow_unsandboxed: true \n');
    const changed = inspectConfig(root, undefined, env);
    expect(changed.repository?.trust).toBe('changed');
    expect(changed.refusal?.message).toContain('changed since you trusted it');
    expect(listTrusted(env)).toEqual([expect.objectContaining({ path: file, state: 'changed' })]);
    trustFile(file, env);
    expect(loadConfig(root, undefined, env).sandbox.enabled).toBe(false);
    expect(revokeFile(file, env)).toBe(true);
    expect(codeOf(() => loadConfig(root, undefined, env))).toBe('E_UNTRUSTED_CONFIG');
    expect(revokeFile(file, env)).toBe(false);
  });

  it('records are 0600 in a 0700 folder; a folder others may write is not believed', () => {
    const { env, root, write } = world();
    const file = write('sandbox:\n  network: true\n');
    trustFile(file, env);
    const dir = path.join(env.XDG_DATA_HOME, 'editwarden', 'trust');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);
    expect(loadConfig(root, undefined, env).sandbox.network).toBe('on');
    fs.chmodSync(dir, 0o777);
    expect(codeOf(() => loadConfig(root, undefined, env))).toBe('E_UNTRUSTED_CONFIG');
    expect(() => trustFile(file, env)).toThrow(/not yours alone/);
    fs.chmodSync(dir, 0o700);
  });

  it('records kept inside the root (XDG_DATA_HOME in the project) are not believed: the repository could write them', () => {
    const { env, root, write } = world();
    const inside = { ...env, XDG_DATA_HOME: path.join(root, '.local', 'share') };
    const file = write('sandbox:\n  network: true\n');
    trustFile(file, inside);
    expect(codeOf(() => loadConfig(root, undefined, inside))).toBe('E_UNTRUSTED_CONFIG');
    trustFile(file, env);
    expect(loadConfig(root, undefined, env).sandbox.network).toBe('on');
  });

  it('a record for another file (same content) does not trust this one', () => {
    const { env, root, write } = world();
    const other = path.join(env.HOME, 'other.yml');
    fs.writeFileSync(other, 'sandbox:\n  network: true\n');
    trustFile(other, env);
    write('sandbox:\n  network: true\n');
    expect(codeOf(() => loadConfig(root, undefined, env))).toBe('E_UNTRUSTED_CONFIG');
  });
});

describe("the person's own config", () => {
  it('loosens freely, and is the baseline a repository file may only tighten from', () => {
    const { env, root, userConfig, write } = world();
    fs.mkdirSync(path.dirname(userConfig), { recursive: true });
    fs.writeFileSync(userConfig, 'constraints:\n  max_files: 50\nsandbox:\n  network: true\n');
    expect(loadConfig(root, undefined, env)).toMatchObject({ constraints: { max_files: 50 }, sandbox: { network: 'on' } });
    // A bound the person set is theirs: the repository's lower value does not apply to them (doctor says so)…
    write('constraints:\n  max_files: 30\n  max_lines_changed: 40\n');
    const lower = inspectConfig(root, undefined, env);
    expect(lower.config).toMatchObject({ constraints: { max_files: 50, max_lines_changed: 40 }, sandbox: { network: 'on' } });
    expect(lower.layers.yoursOver).toEqual([{ key: 'constraints.max_files', yours: '50', repository: '30' }]);
    expect(lower.layers.setBy).toMatchObject({ 'constraints.max_files': 'yours', 'constraints.max_lines_changed': 'repository' });
    // …nor does a higher one, and nothing is refused for it.
    write('constraints:\n  max_files: 60\n');
    expect(inspectConfig(root, undefined, env)).toMatchObject({ refusal: null, config: { constraints: { max_files: 50 } } });
    // A loosening that is not a bound is still refused, naming the person's own file as the other way.
    write('sandbox:\n  writable: ["/outside"]\n');
    const refused = inspectConfig(root, undefined, env).refusal;
    expect(refused?.message).toContain('sandbox.writable: ["/outside"] (yours: [])');
    expect(refused?.hint).toContain(userConfig);
  });

  it('a raise of an untrusted repository file is not applied and is named in a notice; trusted, it applies', () => {
    const { env, root, write } = world();
    write('constraints:\n  max_files: 60\n  max_lines_changed: 100\n');
    const untrusted = inspectConfig(root, undefined, env);
    expect(untrusted.refusal).toBeNull();
    expect(untrusted.config.constraints).toMatchObject({ max_files: 10, max_lines_changed: 100 });
    expect(untrusted.layers.ignored).toEqual([{ key: 'constraints.max_files', value: '60', baseline: '10' }]);
    // Not applied, so not "set": an interactive session stays without a file cap; the tightening is set.
    expect(untrusted.layers.setBy).toEqual({ 'constraints.max_lines_changed': 'repository' });
    expect(ignoredNotice(untrusted.layers)).toContain(`constraints.max_files: 60 (in force: 10)`);
    expect(ignoredNotice(untrusted.layers)).toContain(`editwarden trust --root ${root}`);
    expect(loadConfig(root, undefined, env).constraints.max_files).toBe(10);
    trustFile(path.join(root, '.editwarden.yml'), env);
    const trusted = inspectConfig(root, undefined, env);
    expect(trusted.config.constraints.max_files).toBe(60);
    expect(trusted.layers.ignored).toEqual([]);
    expect(ignoredNotice(trusted.layers)).toBeNull();
  });

  it('an invalid user config is refused naming its own path', () => {
    const { env, root, userConfig } = world();
    fs.mkdirSync(path.dirname(userConfig), { recursive: true });
    fs.writeFileSync(userConfig, 'constraints:\n  max_file: 3\n');
    expect(() => loadConfig(root, undefined, env)).toThrow(userConfig);
  });

  it("a --config file outside the root is the person's own; inside the root it is the repository's", () => {
    const { env, root } = world();
    const outside = path.join(env.HOME, 'mine.yml');
    fs.writeFileSync(outside, 'sandbox:\n  writable: [/outside]\n');
    expect(loadConfig(root, outside, env).sandbox.writable).toEqual(['/outside']);
    expect(inspectConfig(root, outside, env).repository?.trust).toBe('own');
    const inside = path.join(root, 'ci.yml');
    fs.writeFileSync(inside, 'sandbox:\n  writable: [/outside]\n');
    const refused = inspectConfig(root, inside, env).refusal;
    expect(refused?.code).toBe('E_UNTRUSTED_CONFIG');
    expect(refused?.hint).toContain(`editwarden trust --root ${root} ${inside}`);
  });
});
