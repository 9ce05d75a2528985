/**
 * A second real OS user for a test, and what that user runs, put where it can
 * reach it.
 *
 * A user made with useradd may enter nothing private of ours: not the clone
 * (a person clones into a 0700 `mktemp -d`, or an Ubuntu home, 0750), not the
 * run's TMPDIR (mkdtemp: 0700, test/global-temp.ts), not a Node installed
 * under a home folder (nvm). So it is never handed a path into those: the
 * program it runs is an esbuild bundle (the program and every module it
 * imports, one file) written into a fresh 0755 folder under a temp folder
 * every user may enter, and the Node that runs it is this process's own Node
 * where every user may reach it, else a copy beside the bundle. Where the
 * clone is, and its parents' modes, then do not matter.
 *
 * Every mode is set with chmod, not at creation: a person's umask (077) would
 * otherwise close what must be open. Creating a user needs root: tests that
 * use this skip elsewhere, saying so (test/needs-root.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

const REPO = path.resolve(__dirname, '..');

/** Where a folder for every user may go: the run's TMPDIR is 0700, so usually /tmp. */
const SHARED_BASES = () => [os.tmpdir(), '/tmp', '/var/tmp', '/dev/shm'];

/** Whether a user who is neither owner nor in the group can reach `p`: every folder above it searchable by others, and `p` itself allowing `bits` (of the others' rwx). */
export function othersMayReach(p: string, bits: number): boolean {
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    return false;
  }
  if ((fs.statSync(real).mode & bits) !== bits) return false;
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return false;
    if (dir === path.dirname(dir)) return true;
  }
}

/** A fresh 0755 folder every user may enter: in the first temp folder they may all reach (the caller removes it). */
export function sharedFolder(prefix: string): string {
  const base = SHARED_BASES().find((dir) => fs.existsSync(dir) && othersMayReach(dir, 0o001));
  if (!base) throw new Error(`no temp folder every user may enter (tried ${SHARED_BASES().join(', ')}): a second user could reach nothing`);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
  fs.chmodSync(dir, 0o755);
  return dir;
}

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface OtherUser {
  readonly name: string;
  /** A fresh 0755 folder the user may enter; removed by remove(). What the test puts here is what the user may reach. */
  readonly shared: string;
  /**
   * Runs `source` (an ES module whose bare imports resolve from the repository's node_modules) as the user, with
   * a Node it can reach: the module is bundled into `shared` first. cwd is `/`; the environment is only `env`
   * (with PATH and HOME=/).
   */
  runModule(source: string, env: Record<string, string>, timeoutMs?: number): Promise<Outcome>;
  /** Removes the user and the shared folder. */
  remove(): void;
}

/** This process's Node if every user may run it; else a copy in `dir` (a Node under a 0700 home, or in a mktemp folder). */
function reachableNode(dir: string): string {
  const own = fs.realpathSync(process.execPath);
  if (othersMayReach(own, 0o005)) return own;
  const copy = path.join(dir, 'node');
  fs.copyFileSync(own, copy);
  fs.chmodSync(copy, 0o755);
  return copy;
}

/** One ES module file holding `source` and all it imports; CommonJS dependencies get a real `require`. */
async function bundle(source: string, outfile: string): Promise<void> {
  const result = await build({
    stdin: { contents: source, resolveDir: REPO, sourcefile: 'other-user-program.mjs', loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    banner: { js: "import { createRequire as __ewRequire } from 'node:module'; const require = __ewRequire(import.meta.url);" },
  });
  fs.writeFileSync(outfile, (result.outputFiles[0] as { contents: Uint8Array }).contents);
  fs.chmodSync(outfile, 0o644);
}

/** Creates a system user (no home, no login shell) named `prefix` + 8 hex digits. Needs root. */
export function createOtherUser(prefix: string): OtherUser {
  const name = `${prefix}${randomBytes(4).toString('hex')}`;
  const added = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], { encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`useradd ${name}: ${added.stderr}`);
  const shared = sharedFolder('editwarden-other-user-');
  let node: string | undefined;
  let programs = 0;
  return {
    name,
    shared,
    async runModule(source, env, timeoutMs = 60_000) {
      node ??= reachableNode(shared);
      const program = path.join(shared, `program-${++programs}.mjs`);
      await bundle(source, program);
      const child = spawn('runuser', ['-u', name, '--', node, program], { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/', ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const status = await new Promise<number | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code) => resolve(code));
      });
      return { status, stdout, stderr };
    },
    remove() {
      fs.rmSync(shared, { recursive: true, force: true });
      spawnSync('userdel', [name]);
    },
  };
}
