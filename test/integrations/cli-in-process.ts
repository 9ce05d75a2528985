/**
 * The built CLI run in the test's own process, for a test's setup steps: an
 * edit that makes the history an undo test walks, the init that protects a
 * project a client then runs in, a look at the checkpoints a hook made. The
 * same code as `bin/editwarden` (the bundle `npm run build` makes), without
 * starting a process for it. Never for the call a test asserts on: that one
 * stays the real binary (`editwarden` in ./helpers.ts).
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { BIN, project, type Ran } from './helpers.js';

interface Cli {
  run(argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv }): Promise<number>;
}

let loaded: Promise<Cli> | undefined;
/**
 * Node's own import, which vitest's module transform does not rewrite: the bundle is compiled JavaScript already,
 * and run through the transform it costs more CPU than the processes it saves.
 */
const nativeImport = createRequire(import.meta.url)('./native-import.cjs') as (url: string) => Promise<unknown>;

/**
 * Runs `editwarden <args>` in this process; `--root` must name the project (the working folder is the test's). No
 * environment of its own: parts of the CLI read this process's (the XDG folders), so a step that needs another
 * environment runs the binary.
 */
export async function editwardenHere(args: string[], options: { input?: string } = {}): Promise<Ran> {
  loaded ??= nativeImport(pathToFileURL(path.join(path.dirname(path.dirname(BIN)), 'dist', 'cli-bundle', 'cli.mjs')).href) as Promise<Cli>;
  const cli = await loaded;
  const collect = (): { stream: PassThrough; text: () => Promise<string> } => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    // Ended after the run, so every chunk written has come through before the text is read.
    return {
      stream,
      text: async () => {
        const ended = once(stream, 'end');
        stream.end();
        await ended;
        return Buffer.concat(chunks).toString('utf8');
      },
    };
  };
  const out = collect();
  const err = collect();
  const code = await cli.run([process.execPath, BIN, ...args], { stdout: out.stream, stderr: err.stream, stdin: Readable.from([options.input ?? '']), env: process.env });
  return { code, stdout: await out.text(), stderr: await err.text() };
}

/**
 * A project `editwarden init claude` protects, as a person sets it up before starting Claude Code: the built CLI's
 * init, run in this process (setup; the binary's init is pinned in init.test.ts). Throws when init fails.
 */
export async function protectedProjectHere(files: Record<string, string>): Promise<string> {
  const root = project(files);
  const init = await editwardenHere(['init', 'claude', '--root', root]);
  if (init.code !== 0) throw new Error(`editwarden init claude exited ${init.code}: ${init.stderr}`);
  return root;
}
