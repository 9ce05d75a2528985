/**
 * The package as a user meets it: `import … from 'editwarden'` through
 * package.json "exports" against the built dist/ (the global setup rebuilds a
 * stale one). Pins the exported names to an explicit list, so an internal
 * exported by accident fails here; runs the documented flow (edit applied →
 * checkpoint exists → undo restores the bytes); and compiles and runs the
 * library examples of README.md and docs/library.md verbatim.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..', '..');

/** Every name `import * from 'editwarden'` gives a user. Adding one is a decision: add it here and to docs/library.md. */
const PUBLIC_NAMES = [
  'ActiveEditStreamParser',
  'BUILTIN_TOOLS',
  'ControlledEditSession',
  'DEFAULT_EDIT_OPTIONS',
  'EDIT_MODES',
  'EditwardenError',
  'ErrorCode',
  'FORMAT_NAMES',
  'OverlayView',
  'openProject',
  'runProfile',
  'Run',
  'editorFlavour',
  'ToolRunner',
  'UndoHistory',
  'undoSelected',
  'redoSelected',
  'groupSteps',
  'applyHunks',
  'applyProposal',
  'applyReply',
  'applyRequests',
  'plan',
  'commit',
  'planReply',
  'approveAll',
  'beginTransaction',
  'createProvider',
  'decodeText',
  'defaultConfig',
  'detectFormat',
  'detectProject',
  'editRequestFromArgs',
  'exportToolSchemas',
  'isEditwardenError',
  'inspectConfig',
  'listTrusted',
  'loadConfig',
  'openReadOnly',
  'openWorkspace',
  'parseConfig',
  'parseDuration',
  'parseEditRequestJson',
  'parseEdits',
  'parseFormat',
  'parseModelSpec',
  'planFile',
  'renderChange',
  'revokeFile',
  'runAgent',
  'runCommand',
  'runEditor',
  'toErrorInfo',
  'trustFile',
  'unifiedDiff',
  'verify',
  'verifyFailure',
];

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Runs an ES module with node from `cwd`; 'editwarden' resolves by the package's own name. */
function runModule(cwd: string, file: string, args: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [file, ...args], { cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A user's project folder: node_modules/editwarden is this package (as `npm install` would link it). */
function userProject(files: Record<string, string>): string {
  const dir = tempDir('ew-user-');
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'editwarden'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/**
 * One user's project and one node process (importing the package is most of its cost) give the exported names and
 * the documented flow's outcome; each test below reads its own part.
 */
interface Probed {
  stderr: string;
  names: string[];
  flow: { ok: boolean; edited: string; checkpoint: string | null; listed: string[]; undone: string };
}
let probed: Probed | undefined;
const FLOW_ORIGINAL = 'export function main() {\n  return foo();\n}\n';
function probe(): Probed {
  if (probed) return probed;
  const script = `
import fs from 'node:fs';
const m = await import('editwarden');
const names = Object.keys(m).sort();
const { openWorkspace, applyRequests, UndoHistory } = m;
const { ws, transactions } = openWorkspace('.');
const out = await applyRequests(ws, [{ path: 'src/a.ts', action: 'edit', oldText: 'foo()', newText: 'bar()' }]);
const edited = fs.readFileSync('src/a.ts', 'utf8');
const checkpoint = transactions.lastCheckpoint;
const listed = transactions.checkpoints.list().map((c) => c.id);
new UndoHistory(transactions.checkpoints).undo();
console.log(JSON.stringify({ names, flow: { ok: out.ok, edited, checkpoint, listed, undone: fs.readFileSync('src/a.ts', 'utf8') } }));
`;
  const dir = userProject({ 'src/a.ts': FLOW_ORIGINAL, 'probe.mjs': script });
  const r = runModule(dir, 'probe.mjs');
  const result: Probed = { stderr: r.stderr, ...(JSON.parse(r.stdout) as Omit<Probed, 'stderr'>) };
  probed = result;
  return result;
}

describe('the public API', () => {
  it('exports exactly the curated names, and no internal (atomic, lock, journal, matcher, exclusive, OFFSET_WINDOW)', () => {
    const { stderr, names } = probe();
    expect(stderr).toBe('');
    expect(names).toEqual([...PUBLIC_NAMES].sort());
    for (const internal of ['atomicWriteFile', 'RootLock', 'Journal', 'findMatches', 'exclusive', 'OFFSET_WINDOW', 'Workspace', 'DiskWriter', 'installTransactions']) expect(names).not.toContain(internal);
  });

  it('the documented flow: an edit is applied, its checkpoint exists, undo restores the bytes', () => {
    const { stderr, flow: result } = probe();
    expect(stderr).toBe('');
    expect(result.ok).toBe(true);
    expect(result.edited).toBe(FLOW_ORIGINAL.replace('foo()', 'bar()'));
    expect(result.checkpoint).not.toBeNull();
    expect(result.listed).toContain(result.checkpoint);
    expect(result.undone).toBe(FLOW_ORIGINAL);
  });

  it("README.md's and docs/library.md's library examples compile against the built types and run", () => {
    const docs = { readme: 'README.md', library: 'docs/library.md' };
    const original = 'export const a = foo();\n';
    const files: Record<string, string> = {};
    for (const [name, doc] of Object.entries(docs)) {
      const example = /```ts\n([\s\S]*?)```/.exec(fs.readFileSync(path.join(REPO, doc), 'utf8'))?.[1];
      expect(example, `${doc} has a \`\`\`ts block`).toContain("from 'editwarden'");
      files[`${name}/example.ts`] = example ?? '';
      files[`${name}/src/a.ts`] = original;
    }
    const dir = userProject(files);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(REPO, 'node_modules', '@types')] },
        files: Object.keys(docs).map((name) => `${name}/example.ts`),
      }),
    );
    // One compile for both (tsc's start-up is most of the cost), by TypeScript 5.9 (the package `typescript`): a consumer
    // on TypeScript 5 compiles against the declarations TypeScript 7 emitted (pack-install.test.ts checks them with 7).
    const tsc = spawnSync(process.execPath, [path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    for (const name of Object.keys(docs)) {
      const r = runModule(path.join(dir, name), 'example.js');
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      // The README's example leaves the edit; the library page's undoes it at the end.
      expect(fs.readFileSync(path.join(dir, name, 'src/a.ts'), 'utf8')).toBe(name === 'readme' ? original.replace('foo()', 'bar()') : original);
      expect(fs.existsSync(path.join(dir, name, '.editwarden', 'checkpoints'))).toBe(true);
    }
  });
});
