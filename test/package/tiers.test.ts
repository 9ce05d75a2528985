/**
 * The test tiers (docs/architecture.md, "Test tiers"). The rule of
 * test/tiers.ts: how a file's imports and name decide its tier, on made-up
 * trees; over this repository, every test file in exactly one tier and no
 * unit file that starts a process; the run order. Then through vitest
 * itself: the projects it runs are those tiers, and in nested runs of the
 * real configuration on a made-up tree, the global setup runs once per run
 * and the temp check fails a run whichever tier leaves a file, the run ends
 * with a line of counts by tier, a unit-only run skips the build, and a unit
 * test that starts a process fails.
 * (This file spawns vitest, so it is an integration test.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runNeedsBuild } from '../global-setup.js';
import { tempDir } from '../temp-dirs.js';
import { classifyTests, E2E_PATTERNS, importsOf, longestFirst, type RunFacts, type SourceTree, TIERS, type Tier, TierClassifier } from '../tiers.js';
import { ts } from '../typescript.js';

const REPO = path.resolve(import.meta.dirname, '../..');

/** A tree of files held in memory, by repository-relative path. */
function tree(files: Record<string, string>): SourceTree {
  return {
    read: (file) => {
      const text = files[file];
      if (text === undefined) throw new Error(`no file ${file}`);
      return text;
    },
    exists: (file) => file in files,
  };
}

function tierIn(files: Record<string, string>, testFile = 'test/a.test.ts') {
  return new TierClassifier(tree(files)).tierOf(testFile);
}

describe('importsOf reads every way a module is loaded', () => {
  it('static, bare, re-export, type-only, dynamic and require; a computed name is unknown (null)', () => {
    const text = [
      "import fs from 'node:fs';",
      "import { a, b } from './a.js';",
      "import type { T } from '../t.js';",
      "import './side-effect.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      'const f = await import(name);',
      "const g = require('node:child_process');",
      'const h = require(other);',
      'import {',
      '  multi,',
      '  line,',
      "} from './multi.js';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['node:fs', './a.js', '../t.js', './side-effect.js', './c.js', './d.js', './multi.js', './e.js', null, 'node:child_process', null]);
  });

  it('prose about `import()` in a comment is not a call', () => {
    expect(importsOf('// found by `import()` and `require()` calls\nconst x = 1;')).toEqual([]);
  });
});

describe('the tier of a file follows from its name and what its imports reach', () => {
  it('a test of a pure module, through a test helper, is unit', () => {
    expect(
      tierIn({
        'test/a.test.ts': "import { it } from 'vitest';\nimport { plan } from '../src/edit/plan.js';\nimport { fixture } from './helpers.js';",
        'test/helpers.ts': "import fs from 'node:fs';\nexport const fixture = fs.readFileSync('x');",
        'src/edit/plan.ts': "import { diff } from 'diff';\nimport { E } from '../errors.js';",
        'src/errors.ts': 'export class E {}',
      }),
    ).toEqual({ tier: 'unit', reasons: [] });
  });

  it('a process module reached through a helper, or deep in src/, makes it integration, naming the file that imports it', () => {
    expect(tierIn({ 'test/a.test.ts': "import { run } from './helpers/bin.js';", 'test/helpers/bin.ts': "import { spawnSync } from 'node:child_process';" })).toEqual({
      tier: 'integration',
      reasons: ['test/helpers/bin.ts imports node:child_process'],
    });
    for (const module of ['node:worker_threads', 'node:http', 'node:net', 'child_process']) {
      const result = tierIn({ 'test/a.test.ts': "import { x } from '../src/x.js';", 'src/x.ts': "import { y } from './y.js';", 'src/y.ts': `import m from '${module}';` });
      expect(result).toEqual({ tier: 'integration', reasons: [`src/y.ts imports ${module}`] });
    }
  });

  it('a temp tree made by the test code is integration; node:os used by the product is not a temp tree', () => {
    expect(tierIn({ 'test/a.test.ts': "import os from 'node:os';" }).tier).toBe('integration');
    expect(tierIn({ 'test/a.test.ts': "import { tempDir } from './temp-dirs.js';", 'test/temp-dirs.ts': "import fs from 'node:fs';" }).reasons).toContain('test/temp-dirs.ts makes temp folders');
    expect(tierIn({ 'test/a.test.ts': "import fs from 'node:fs';\nconst d = fs.mkdtempSync(process.env.TMPDIR + '/x');" }).reasons).toEqual(['test/a.test.ts makes a temp folder (mkdtemp)']);
    expect(tierIn({ 'test/a.test.ts': "import { home } from '../src/config/home.js';", 'src/config/home.ts': "import os from 'node:os';" }).tier).toBe('unit');
  });

  it('fails closed: the built package, a computed import and an unresolvable relative import are integration', () => {
    expect(tierIn({ 'test/a.test.ts': "import { parseEdits } from 'editwarden';" }).reasons).toEqual(['test/a.test.ts imports the built package (editwarden)']);
    expect(tierIn({ 'test/a.test.ts': "import { McpSession } from 'editwarden/mcp';" }).tier).toBe('integration');
    expect(tierIn({ 'test/a.test.ts': 'const m = await import(name);' }).reasons).toEqual(['test/a.test.ts imports a computed module name']);
    // The product's own computed loads (a fresh copy of a resolved package) are not the build: not followed, not counted.
    expect(tierIn({ 'test/a.test.ts': "import { p } from '../src/p.js';", 'src/p.ts': 'const mod = require(entry);' }).tier).toBe('unit');
    expect(tierIn({ 'test/a.test.ts': "import { x } from './gone.js';" }).reasons).toEqual(['test/a.test.ts imports ./gone.js, which does not resolve']);
  });

  it('an import cycle ends', () => {
    expect(tierIn({ 'test/a.test.ts': "import './b.js';", 'test/b.ts': "import './c.js';", 'test/c.ts': "import './b.js';\nimport './a.test.js';" }).tier).toBe('unit');
  });

  it('the end-to-end tier is chosen by name, whatever the imports, new files of the same names included', () => {
    const e2e = [
      'test/package/pack-install.test.ts',
      'test/package/pack-install-peers.test.ts',
      'test/package/fresh-machine.test.ts',
      'test/package/action.test.ts',
      'test/package/docs-commands.test.ts',
      'test/cli/demo.test.ts',
      'test/cli/demo-tour.test.ts',
      'test/integrations/claude-code.test.ts',
      'test/integrations/claude-code-log.test.ts',
      'test/integrations/gemini-cli.test.ts',
      'test/integrations/codex-cli.test.ts',
    ];
    for (const file of e2e) expect(tierIn({ [file]: "import { it } from 'vitest';" }, file).tier, file).toBe('e2e');
    // Near names are not end-to-end: the demo's in-process renderers, the hook tests, a package test of another name.
    for (const file of ['test/cli/demo/agent-demo.test.ts', 'test/integrations/hooks.test.ts', 'test/package/manifest.test.ts', 'test/action.test.ts']) {
      expect(
        E2E_PATTERNS.some((p) => p.test(file)),
        file,
      ).toBe(false);
    }
  });
});

/** Every *.test.ts under test/, listed independently of test/tiers.ts's own walk. */
function allTestFiles(): string[] {
  return (fs.readdirSync(path.join(REPO, 'test'), { recursive: true }) as string[])
    .map((f) => `test/${f.split(path.sep).join('/')}`)
    .filter((f) => f.endsWith('.test.ts') && !f.includes('/node_modules/'))
    .sort();
}

describe('this repository', () => {
  const byTier = classifyTests(REPO);

  it('puts every test file in exactly one tier, and each tier has files', () => {
    const all = TIERS.flatMap((tier) => byTier[tier]);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual(allTestFiles());
    for (const tier of TIERS) expect(byTier[tier].length, tier).toBeGreaterThan(0);
  });

  it("has no unit file that reaches a process module, by TypeScript's own reading of the imports, nor names the binary", () => {
    // An independent reading: TypeScript's pre-processor (comments and strings are not imports), through every local file.
    const reached = (file: string, seen = new Set<string>()): string[] => {
      if (seen.has(file)) return [];
      seen.add(file);
      const info = ts.preProcessFile(fs.readFileSync(path.join(REPO, file), 'utf8'), true, true);
      return info.importedFiles.flatMap(({ fileName }) => {
        if (!fileName.startsWith('.')) return [fileName];
        const target = path.posix
          .join(path.posix.dirname(file), fileName)
          .replace(/\.js$/, '.ts')
          .replace(/\.mjs$/, '.mts');
        return fs.existsSync(path.join(REPO, target)) ? reached(target, seen) : [fileName];
      });
    };
    for (const file of byTier.unit) {
      expect(
        reached(file).filter((m) => /^(node:)?(child_process|worker_threads|net|http|https)$/.test(m) || m.startsWith('editwarden')),
        file,
      ).toEqual([]);
      expect(fs.readFileSync(path.join(REPO, file), 'utf8'), file).not.toMatch(/bin\/editwarden|process\.execPath/);
    }
  });
});

describe('the run order: longest first', () => {
  const facts = (tier: Tier, duration: number | undefined, size = 0): RunFacts => ({ tier, duration, size });

  it('recorded durations decide; a file never run goes first; unknown files by tier, e2e first, then by size', () => {
    const files = [facts('unit', 50), facts('e2e', 90_000), facts('integration', 4_000), facts('unit', undefined, 900), facts('integration', undefined, 100), facts('e2e', undefined, 10), facts('e2e', undefined, 20)];
    expect([...files].sort(longestFirst)).toEqual([
      facts('e2e', undefined, 20),
      facts('e2e', undefined, 10),
      facts('integration', undefined, 100),
      facts('unit', undefined, 900),
      facts('e2e', 90_000),
      facts('integration', 4_000),
      facts('unit', 50),
    ]);
  });

  it('is a consistent order: sorting any mix puts unknown files first and known ones longest first', () => {
    const fact = fc.record({ tier: fc.constantFrom<Tier>(...TIERS), duration: fc.option(fc.nat(100_000), { nil: undefined }), size: fc.nat(50_000) });
    fc.assert(
      fc.property(fc.array(fact, { maxLength: 40 }), (files) => {
        const sorted = [...files].sort(longestFirst);
        const firstKnown = sorted.findIndex((f) => f.duration !== undefined);
        const unknown = firstKnown === -1 ? sorted : sorted.slice(0, firstKnown);
        const known = firstKnown === -1 ? [] : sorted.slice(firstKnown);
        expect(known.every((f) => f.duration !== undefined)).toBe(true);
        for (let i = 1; i < known.length; i++) expect(known[i - 1]!.duration!).toBeGreaterThanOrEqual(known[i]!.duration!);
        const rank = (t: Tier) => ['e2e', 'integration', 'unit'].indexOf(t);
        for (let i = 1; i < unknown.length; i++) {
          const [a, b] = [unknown[i - 1]!, unknown[i]!];
          expect(rank(a.tier) < rank(b.tier) || (rank(a.tier) === rank(b.tier) && a.size >= b.size)).toBe(true);
        }
      }),
    );
  });
});

const VITEST = path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs');

function vitest(root: string, args: string[], tmp: string) {
  const r = spawnSync(process.execPath, [VITEST, ...args], { cwd: root, env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1', CI: '1' }, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: r.stdout + r.stderr, stdout: r.stdout };
}

describe('vitest runs the tiers as its projects', () => {
  it('lists each test file of this repository once, in the project of its tier', () => {
    const r = vitest(REPO, ['list', '--filesOnly', '--json'], tempDir('ew-tiers-list-'));
    expect(r.status, r.output).toBe(0);
    const listed = (JSON.parse(r.stdout) as Array<{ file: string; projectName: string }>).map((f) => `${f.projectName} ${path.relative(REPO, f.file)}`).sort();
    const byTier = classifyTests(REPO);
    expect(listed).toEqual(TIERS.flatMap((tier) => byTier[tier].map((file) => `${tier} ${file}`)).sort());
  });

  it('builds dist/ for every run but one of the unit tier alone', () => {
    expect(runNeedsBuild(['unit'])).toBe(false);
    expect(runNeedsBuild(['unit', 'integration', 'e2e'])).toBe(true);
    expect(runNeedsBuild(['e2e'])).toBe(true);
    // A configuration without tiers (a nested run of another test) has one project with no name: it builds.
    expect(runNeedsBuild([''])).toBe(true);
  });

  /**
   * A made-up repository with this repository's real test configuration: vitest.config.ts and the test/ files it
   * names, vitest from this checkout, and a package that starts a process when called (what an import graph
   * cannot see). dist/ is fresh unless `staleDist`; with no dist/ at all, the build the global setup starts fails
   * (there is nothing to build), which is how a run shows that it tried.
   */
  function madeUpRepo(staleDist: boolean): string {
    const root = tempDir('ew-tiers-repo-');
    for (const file of ['vitest.config.ts', 'test/tiers.ts', 'test/tier-summary.ts', 'test/unit-guard.ts', 'test/global-setup.ts', 'test/global-temp.ts', 'test/temp-dirs.ts', 'test/temp-dirs-setup.ts']) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.copyFileSync(path.join(REPO, file), path.join(root, file));
    }
    fs.mkdirSync(path.join(root, 'node_modules', 'spawner'), { recursive: true });
    fs.symlinkSync(path.join(REPO, 'node_modules', 'vitest'), path.join(root, 'node_modules', 'vitest'));
    fs.writeFileSync(path.join(root, 'node_modules', 'spawner', 'package.json'), JSON.stringify({ name: 'spawner', main: 'index.js' }));
    fs.writeFileSync(path.join(root, 'node_modules', 'spawner', 'index.js'), "exports.run = () => require('child' + '_process').spawnSync('true').status;\n");
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'made-up', private: true, type: 'module' }));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(root, 'src', 'a.ts'), past, past);
    if (!staleDist) {
      fs.mkdirSync(path.join(root, 'dist', 'cli-bundle'), { recursive: true });
      fs.writeFileSync(path.join(root, 'dist', 'build.tsbuildinfo'), '{}');
      fs.writeFileSync(path.join(root, 'dist', 'cli-bundle', 'cli.mjs'), '');
    }
    const probe = (file: string, imports: string[], body: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), `${[...imports, "import { it } from 'vitest';"].join('\n')}\nit('probe', () => {\n  ${body}\n});\n`);
    };
    const fsImports = ["import fs from 'node:fs';", "import path from 'node:path';"];
    // One stray file from each tier: process.env.TMPDIR in the unit file, which a temp tree would move to integration.
    probe('test/stray/unit.test.ts', fsImports, "fs.writeFileSync(path.join(process.env.TMPDIR ?? '', 'stray-from-unit'), 'x');");
    probe('test/stray/integration.test.ts', [...fsImports, "import os from 'node:os';"], "fs.writeFileSync(path.join(os.tmpdir(), 'stray-from-integration'), 'x');");
    probe('test/cli/demo-stray.test.ts', [...fsImports, "import os from 'node:os';"], "fs.writeFileSync(path.join(os.tmpdir(), 'stray-from-e2e'), 'x');");
    // A test skipped with a reason (test/needs-root.ts): counted in its tier and once more by its reason.
    fs.writeFileSync(path.join(root, 'test/stray/skipped.test.ts'), "import { it } from 'vitest';\nit('probe', (context) => {\n  context.skip('needs root: made up');\n});\n");
    probe('test/clean/unit.test.ts', [], '');
    probe('test/clean/integration.test.ts', ["import os from 'node:os';"], 'os.tmpdir();');
    probe('test/clean/spawns.test.ts', ["import { run } from 'spawner';"], 'run();');
    // Integration files that each make a temp folder outside their tests (test/temp-dirs.ts), run one after another in one worker.
    for (const name of ['a', 'b', 'c']) {
      const file = path.join(root, 'test', 'shared', `${name}.test.ts`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(
        file,
        `import fs from 'node:fs';\nimport path from 'node:path';\nimport { it } from 'vitest';\nimport { tempDir } from '../temp-dirs.js';\nconst dir = tempDir('made-by-${name}-');\nit('probe', () => {\n  fs.writeFileSync(path.join(dir, 'x'), 'x');\n});\n`,
      );
    }
    return root;
  }

  // One nested run for two rules (each vitest start costs ~0.7 s of CPU): the stray files of every tier, and the
  // integration files that make temp folders outside their tests, in one worker (--maxWorkers 1).
  it("a file left in the temp folder fails the run whichever tier left it, the check runs once after every tier; integration files share a worker, and each file's temp folders made outside its tests are gone when it ends", () => {
    const root = madeUpRepo(false);
    const r = vitest(root, ['run', '--maxWorkers', '1', 'test/stray', 'test/cli/demo-stray', 'test/shared'], tempDir('ew-tiers-tmp-'));
    expect(r.output).toMatch(/\|unit\| test\/stray\/unit\.test\.ts/);
    expect(r.output).toMatch(/\|integration\| test\/stray\/integration\.test\.ts/);
    expect(r.output).toMatch(/\|e2e\| test\/cli\/demo-stray\.test\.ts/);
    for (const name of ['a', 'b', 'c']) expect(r.output).toMatch(new RegExp(`\\|integration\\| test/shared/${name}\\.test\\.ts`));
    expect(r.output).toMatch(/Tests +6 passed \| 1 skipped \(7\)/);
    // The line after vitest's summary that .ci/run prints: each tier's counts, in tier order, then the skips by reason.
    expect(r.output).toMatch(/\n {3}Tiers {2}unit 1 passed, 1 skipped \(2 files, \d+ s\) · integration 4 passed \(4 files, \d+ s\) · e2e 1 passed \(1 file, \d+ s\) · skipped 1 \(needs root\)\n/);
    // The strays, and nothing of the shared files: their folders went when each file ended.
    expect(r.output.match(/tests left 3 entries in the temp folder/g)).toHaveLength(1);
    for (const stray of ['stray-from-unit', 'stray-from-integ*', 'stray-from-e2e']) expect(r.output).toContain(`${stray}  ×1`);
    expect(r.output).not.toContain('made-by-');
    expect(r.status).toBe(1);
  }, 150_000);

  it('a run of the unit tier alone does not build, and a unit test that starts a process (through a dependency) fails, told why', () => {
    const root = madeUpRepo(true);
    // One worker for both files (a second costs a process start): the guard is a setup file, run before each file.
    const unit = vitest(root, ['run', '--maxWorkers', '1', '--project', 'unit', 'test/clean/unit', 'test/clean/spawns'], tempDir('ew-tiers-tmp-'));
    expect(unit.output).not.toContain('build failed');
    expect(unit.output).toMatch(/Tests +1 failed \| 1 passed \(2\)/);
    expect(unit.output).toMatch(/FAIL +\|unit\| test\/clean\/spawns\.test\.ts/);
    expect(unit.output).toContain('a unit test started a process (child_process.spawnSync)');
    expect(unit.status).toBe(1);
  }, 150_000);

  it('a run that includes another tier builds first, once', () => {
    const root = madeUpRepo(true);
    const run = vitest(root, ['run', 'test/clean/unit', 'test/clean/integration'], tempDir('ew-tiers-tmp-'));
    expect(run.output.match(/dist\/ is older than src\/ and the build failed/g), run.output).toHaveLength(1);
    expect(run.status).toBe(1);
  }, 150_000);
});
