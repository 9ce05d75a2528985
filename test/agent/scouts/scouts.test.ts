import { openWorkspace } from '../../../src/workspace/open.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceSource } from '../../../src/agent/editor/file-source.js';
import { OverlayView } from '../../../src/workspace/overlay.js';
import { queryTerms, scoutCodebase } from '../../../src/agent/scouts/codebase.js';
import { interpretRun, scoutEnvironment } from '../../../src/agent/scouts/environment.js';
import { runVerification } from '../../../src/agent/editor/verification.js';
import { defaultConfig, withOverrides } from '../../../src/config/config.js';
import { loadConfig } from '../../../src/config/load.js';
import { cleanup, copyFixture, makeProject } from '../editor/helpers.js';

afterEach(cleanup);

function codebase(root: string, query: string, paths?: string[]) {
  return scoutCodebase(workspaceSource(openWorkspace(root).ws), { query, ...(paths ? { paths } : {}) });
}

describe('Scout A: relevant files', () => {
  it('ranks by path and content, then follows the import graph', () => {
    const p = codebase(copyFixture('ts-app'), 'Change how the greeting welcomes a visitor');
    const paths = p.relevant.map((r) => r.path);
    expect(paths[0]).toBe('src/greeting.ts');
    expect(paths.slice(0, 3)).toContain('src/greeting.spec.ts');
    expect(p.relevant[0]?.reasons).toContain('file name matches "greeting"');
    // Found through the graph alone: greeting.ts imports it, nothing in it mentions the query.
    const util = p.relevant.find((r) => r.path === 'src/util/string-case.ts');
    expect(util?.reasons).toEqual(['imported by src/greeting.ts']);
    expect(p.relevant.find((r) => r.path === 'src/cli-main.ts')?.reasons).toContain('imports src/greeting.ts');
  });

  it('a path named in the query ranks first; identifiers are split into words', () => {
    const p = codebase(copyFixture('ts-app'), 'In src/http-server.ts, make loadConfig default the port to 3000');
    expect(p.relevant[0]?.path).toBe('src/http-server.ts');
    expect(p.relevant[0]?.reasons).toContain('named in the query');
    expect(p.relevant.map((r) => r.path)).toContain('src/config.ts');
    expect(queryTerms('loadConfig default_port')).toEqual(['config', 'default', 'defaultport', 'load', 'loadconfig', 'port']);
  });

  it('is deterministic: the same repository gives the same payload', () => {
    const root = copyFixture('ts-app');
    expect(codebase(root, 'config port')).toEqual(codebase(root, 'config port'));
  });

  it('follows Python relative imports and Go module imports', () => {
    const py = codebase(copyFixture('py-lib'), 'unit price');
    expect(py.relevant[0]?.path).toBe('inventory/pricing.py');
    expect(py.relevant.find((r) => r.path === 'inventory/stock_level.py')?.reasons).toContain('imported by inventory/pricing.py');
    const go = codebase(copyFixture('go-svc'), 'main entry');
    expect(go.relevant.find((r) => r.path === 'internal/store/store.go')?.reasons).toContain('imported by main.go');
  });
});

describe('Scout A: risk zones', () => {
  it('hubs, generated and vendored files, public API surfaces, relevant files without tests', () => {
    const p = codebase(copyFixture('ts-app'), 'titleCase string case');
    const by = (kind: string): string[] => p.risk_zones.filter((r) => r.kind === kind).map((r) => r.path);
    expect(by('hub')).toEqual(['src/config.ts']);
    expect(p.risk_zones.find((r) => r.kind === 'hub')?.detail).toContain('imported by 4 files');
    expect(by('generated')).toEqual(['src/proto/messages_generated.ts']);
    expect(by('vendored')).toEqual(['vendor/']);
    expect(by('public-api')).toEqual(['src/index.ts']);
    expect(p.risk_zones.find((r) => r.kind === 'public-api')?.detail).toContain('named in package.json as "dist/index.js"');
    expect(by('untested')).toContain('src/util/string-case.ts');
    expect(by('untested')).not.toContain('src/greeting.ts');
  });

  it('Python: __init__.py is the public interface; a module with a test named after it is not untested', () => {
    const p = codebase(copyFixture('py-lib'), 'pricing stock level');
    expect(p.risk_zones.filter((r) => r.kind === 'public-api').map((r) => r.path)).toEqual(['inventory/__init__.py']);
    const untested = p.risk_zones.filter((r) => r.kind === 'untested').map((r) => r.path);
    expect(untested).toContain('inventory/stock_level.py');
    expect(untested).not.toContain('inventory/pricing.py');
  });
});

describe('Scout A: conventions sampled from existing files', () => {
  it('TypeScript: 2 spaces, single quotes, semicolons, camelCase, kebab-case files, tests beside sources', () => {
    const c = codebase(copyFixture('ts-app'), 'greeting').conventions;
    expect(c.indentation).toMatchObject({ style: 'spaces', width: 2 });
    expect(c.quotes?.value).toBe('single');
    expect(c.semicolons?.value).toBe('always');
    expect(c.function_names?.value).toBe('camelCase');
    expect(c.file_names?.value).toBe('kebab-case');
    expect(c.line_endings.value).toBe('lf');
    expect(c.tests).toMatchObject({ files: 1, layout: 'beside-sources', naming: '*.spec.ts', examples: ['src/greeting.spec.ts'] });
  });

  it('Python: 4 spaces, double quotes, snake_case, tests in a folder named test_*.py', () => {
    const c = codebase(copyFixture('py-lib'), 'stock').conventions;
    expect(c.indentation).toMatchObject({ style: 'spaces', width: 4 });
    expect(c.quotes?.value).toBe('double');
    expect(c.semicolons).toBeNull();
    expect(c.function_names?.value).toBe('snake_case');
    expect(c.tests).toMatchObject({ layout: 'test-folder', naming: 'test_*.py' });
  });

  it('Go: tabs; CRLF files are noticed', () => {
    const root = copyFixture('go-svc');
    expect(codebase(root, 'store').conventions.indentation.style).toBe('tabs');
    const crlf = makeProject({ 'a.js': 'const a = 1;\r\nconst b = 2;\r\n', 'b.js': 'const c = 3;\r\n' });
    expect(codebase(crlf, 'a').conventions.line_endings.value).toBe('crlf');
  });
});

describe('Scout A through the dry-run overlay', () => {
  it('sees proposed files and proposed content, and not proposed deletions', () => {
    const root = copyFixture('ts-app');
    const ws = openWorkspace(root).ws;
    const overlay = new OverlayView(ws);
    overlay.transact((tx) =>
      overlay.commit(tx, [
        { kind: 'write', path: 'src/discount.ts', bytes: Buffer.from("import { loadConfig } from './config.js';\nexport const discount = 0.1;\n") },
        { kind: 'delete', path: 'src/http-server.ts' },
      ]),
    );
    const p = scoutCodebase(workspaceSource(overlay, overlay), { query: 'discount' });
    expect(p.relevant[0]?.path).toBe('src/discount.ts');
    expect(workspaceSource(overlay, overlay).files()).not.toContain('src/http-server.ts');
    expect(fs.existsSync(path.join(root, 'src/discount.ts'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'src/http-server.ts'))).toBe(true);
  });
});

describe('Scout B: environment', () => {
  it('commands, framework and package manager from detection; toolchain versions probed; baseline skipped when asked', async () => {
    const root = copyFixture('ts-app');
    const files = workspaceSource(openWorkspace(root).ws).files();
    const { payload, baseline } = await scoutEnvironment(openWorkspace(root).ws, { config: defaultConfig(), files, baseline: 'dry run' });
    expect(payload.kinds).toEqual(['node', 'typescript']);
    expect(payload.build).toEqual({ command: 'npm run build', source: 'detected' });
    expect(payload.test).toEqual({ command: 'npm test', source: 'detected' });
    expect(payload.framework).toBe('vitest');
    expect(payload.package_manager).toBe('npm');
    expect(payload.has_test_suite).toBe(true);
    expect(payload.toolchain.find((t) => t.tool === 'node')?.version).toBe(process.version);
    expect(payload.toolchain.find((t) => t.tool === 'tsc')).toEqual({ tool: 'tsc', version: null });
    expect(payload.baseline).toEqual({ skipped: 'dry run' });
    expect(baseline).toBeNull();
  });

  it('no test suite: suggests the framework from the package files', async () => {
    const root = makeProject({ 'package.json': '{"name": "x", "devDependencies": {"jest": "29"}}\n', 'src/a.js': 'export const a = 1;\n' });
    const ws = openWorkspace(root).ws;
    const { payload } = await scoutEnvironment(ws, { config: defaultConfig(), files: workspaceSource(ws).files(), baseline: false });
    expect(payload.has_test_suite).toBe(false);
    expect(payload.suggested_framework).toBe('jest');
    const py = copyFixture('py-lib');
    fs.rmSync(path.join(py, 'tests'), { recursive: true });
    const pyWs = openWorkspace(py).ws;
    const pyEnv = await scoutEnvironment(pyWs, { config: defaultConfig(), files: workspaceSource(pyWs).files(), baseline: false });
    expect(pyEnv.payload.has_test_suite).toBe(false);
    expect(pyEnv.payload.suggested_framework).toBe('pytest');
  });

  it('the baseline before any edit, then a run interpreted: new failures vs old ones, the log tail', async () => {
    const build = (errors: string[]): string => `${errors.map((e) => `console.error(${JSON.stringify(e)});`).join('\n')}\nprocess.exit(${errors.length > 0 ? 1 : 0});\n`;
    const root = makeProject({
      '.editwarden.yml': 'verify:\n  build: "node build.js"\n',
      'build.js': build(['src/a.ts(3,5): error TS2322: Type "string" is not assignable to type "number".']),
      'src/a.ts': 'x\n',
    });
    const ws = openWorkspace(root).ws;
    const config = loadConfig(root);
    const { payload, baseline } = await scoutEnvironment(ws, { config, files: workspaceSource(ws).files(), baseline: true });
    expect(baseline?.passed).toBe(false);
    expect('skipped' in payload.baseline).toBe(false);
    expect(payload.baseline).toMatchObject({ passed: false, steps: [{ kind: 'build', command: 'node build.js', errors: 1 }] });
    fs.writeFileSync(path.join(root, 'build.js'), build(['src/a.ts(3,5): error TS2322: Type "string" is not assignable to type "number".', 'src/b.ts(1,1): error TS2304: Cannot find name "y".']));
    const run = await runVerification(ws, { config, baseline: 'compare' });
    const seen = interpretRun(ws, run.run_id, 5);
    expect(seen.steps).toHaveLength(1);
    expect(seen.steps[0]).toMatchObject({ kind: 'build', passed: false, old_failures: 1, new_failures: ['src/b.ts:1:1 error TS2304: Cannot find name "y".'] });
    expect(seen.steps[0]?.log_tail).toContain('Cannot find name');
    expect(() => interpretRun(ws, '../../x')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('config commands win over detection', async () => {
    const root = copyFixture('ts-app');
    const ws = openWorkspace(root).ws;
    const config = withOverrides(defaultConfig(), { verify: { build: 'make all' } });
    const { payload } = await scoutEnvironment(ws, { config, files: [], baseline: false, toolchain: [] });
    expect(payload.build).toEqual({ command: 'make all', source: 'config' });
  });
});
