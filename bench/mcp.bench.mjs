// edit_file over MCP, end to end: the SDK's own Client talks over stdio to a
// real `editwarden mcp` process and to @modelcontextprotocol/server-filesystem
// (the reference server, a devDependency), and sends both the same edit —
// replace the unique middle line of a file of 100, 10k and 100k lines, back
// and forth — then the same as a dry run. Calls alternate between the two
// servers so both see the same disk. Medians; ratio = ours / theirs.
// Goals (issue 21, real writes with every crash-safety promise kept): .txt
// ≤ 1.0× at 100 lines, ≤ 0.5× at 10k; .ts (ours also runs the syntax guard)
// ≤ 1.2× at 100 lines, ≤ 0.7× at 10k; ≥ 3× faster at 100k (≤ 0.33×); dry
// runs never slower (≤ 1.0×). `met` is computed from this run's ratio.
// Each size runs on a .txt file (like for like) and a .ts file (ours also runs
// the tree-sitter syntax guard). EW_BENCH_N / EW_BENCH_EXT / EW_BENCH_SIZES (e.g. "100") shrink a run.
//
// Our server runs with the project's constraints in force (a config raises
// only the line budget and the run's timeout, which hundreds of benchmark
// edits would otherwise exhaust): every call goes through the ToolRunner,
// the constraint gate, a checkpoint and the journal, as in real use.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { durableFloor, median, ms, ratio } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const require = createRequire(import.meta.url);

const SIZES = process.env.EW_BENCH_SIZES ? process.env.EW_BENCH_SIZES.split(',').map(Number) : [100, 10_000, 100_000];
const ITERATIONS = { 100: Number(process.env.EW_BENCH_N ?? 60), 10000: Number(process.env.EW_BENCH_N ?? 40), 100000: Number(process.env.EW_BENCH_N ?? 16) };
const WARMUP = 4;
// Untimed time between one call's answer and the next call, as a model takes (hundreds of ms in real use): what a
// server does after its answer (checkpoints.durability: deferred) is then not charged to the next call, as it is not
// in an agent's session. 0 measures back-to-back calls.
const PAUSE_MS = Number(process.env.EW_BENCH_PAUSE_MS ?? 25);
const pause = () => (PAUSE_MS > 0 ? new Promise((r) => setTimeout(r, PAUSE_MS)) : Promise.resolve());
// .txt: like for like (exact replace, diff, write). .ts: ours also runs the tree-sitter syntax guard, which server-filesystem lacks.
const EXTS = process.env.EW_BENCH_EXT ? [process.env.EW_BENCH_EXT] : ['txt', 'ts'];

/** The goal ratio (ours / server-filesystem) of a row. */
function goalOf(lines, ext, dryRun) {
  if (lines >= 100_000) return 0.33;
  if (dryRun) return 1.0;
  if (lines >= 10_000) return ext === 'ts' ? 0.7 : 0.5;
  return ext === 'ts' ? 1.2 : 1.0;
}

function makeFile(lines) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(`    const value_${i} = compute(${i}, "some text to make the line realistic");`);
  return out.join('\n') + '\n';
}

/** `editwarden mcp` through the real binary. */
function ourServerArgs(root) {
  return [path.join(repo, 'bin/editwarden'), 'mcp', '--root', root];
}

function theirServerArgs(root) {
  const pkg = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
  return [path.join(path.dirname(pkg), 'dist/index.js'), root];
}

async function connect(args, env) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore', ...(env ? { env } : {}) });
  const client = new Client({ name: 'editwarden-bench', version: '0' });
  await client.connect(transport);
  return client;
}

async function timed(client, name, args) {
  const t0 = process.hrtime.bigint();
  const result = await client.callTool({ name, arguments: args });
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e6;
  if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
  return elapsed;
}

export async function run() {
  const ourRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-mcp-ours-'));
  const theirRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-mcp-fs-')));
  const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-mcp-floor-'));
  // Raised limits loosen the guard: they come from the person's own config (a repository's may only tighten, config/trust-keys.ts).
  const userConfig = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-mcp-xdg-'));
  fs.mkdirSync(path.join(userConfig, 'editwarden'));
  fs.writeFileSync(path.join(userConfig, 'editwarden', 'config.yml'), 'constraints:\n  max_lines_changed: 100000000\n  timeout: 86400\n');
  for (const lines of SIZES) {
    const text = makeFile(lines);
    for (const ext of EXTS) {
      fs.writeFileSync(path.join(ourRoot, `f${lines}.${ext}`), text);
      fs.writeFileSync(path.join(theirRoot, `f${lines}.${ext}`), text);
    }
  }
  // The same server with checkpoints.durability: strict (everything on disk before the answer; docs/checkpoints.md), in its own root.
  const strictRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-mcp-strict-'));
  const strictConfig = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-mcp-xdg-strict-'));
  fs.mkdirSync(path.join(strictConfig, 'editwarden'));
  fs.writeFileSync(path.join(strictConfig, 'editwarden', 'config.yml'), 'constraints:\n  max_lines_changed: 100000000\n  timeout: 86400\ncheckpoints:\n  durability: strict\n');
  for (const lines of SIZES) for (const ext of EXTS) fs.writeFileSync(path.join(strictRoot, `f${lines}.${ext}`), makeFile(lines));
  const ours = await connect(ourServerArgs(ourRoot), { ...process.env, XDG_CONFIG_HOME: userConfig });
  const oursStrict = await connect(ourServerArgs(strictRoot), { ...process.env, XDG_CONFIG_HOME: strictConfig });
  const theirs = await connect(theirServerArgs(theirRoot));
  const rows = [];
  try {
    for (const ext of EXTS) {
      for (const dryRun of [false, true]) {
        for (const lines of SIZES) {
          const mid = Math.floor(lines / 2);
          const a = `    const value_${mid} = compute(${mid}, "some text to make the line realistic");`;
          const b = `    const value_${mid} = recompute(${mid}, "some text to make the line realistic");`;
          const file = `f${lines}.${ext}`;
          const text = makeFile(lines);
          const oursMs = [];
          const theirsMs = [];
          const floorMs = [];
          const strictMs = [];
          const n = ITERATIONS[lines] ?? Number(process.env.EW_BENCH_N ?? 40);
          for (let i = 0; i < WARMUP + n; i++) {
            // A real edit flips the line back and forth; a dry run asks for the same change every time.
            const [from, to] = dryRun || i % 2 === 0 ? [a, b] : [b, a];
            const callOurs = () => timed(ours, 'edit_file', { path: file, old_text: from, new_text: to, dry_run: dryRun });
            const callTheirs = () => timed(theirs, 'edit_file', { path: path.join(theirRoot, file), edits: [{ oldText: from, newText: to }], dryRun });
            // Alternate who goes first so neither always meets a cold or a warm page cache.
            let o;
            let t;
            if (i % 2 === 0) {
              o = await callOurs();
              await pause();
              t = await callTheirs();
            } else {
              t = await callTheirs();
              await pause();
              o = await callOurs();
            }
            await pause();
            const st = dryRun ? 0 : await timed(oursStrict, 'edit_file', { path: file, old_text: from, new_text: to });
            await pause();
            // The durable floor at this same moment: the bytes written the way a durable replace must (temp, fsync, rename, folder fsync).
            const f = dryRun ? 0 : durableFloor(floorDir, text);
            if (i < WARMUP) continue;
            oursMs.push(o);
            theirsMs.push(t);
            floorMs.push(f);
            strictMs.push(st);
          }
          const mo = median(oursMs);
          const mt = median(theirsMs);
          const goal = goalOf(lines, ext, dryRun);
          if (!dryRun) {
            const ms2 = median(strictMs);
            rows.push({
              case: `edit_file, ${lines}-line .${ext}, checkpoints.durability: strict (median of ${n})`,
              value: ms(ms2),
              baseline: `${ms(mt)} (server-filesystem)`,
              ratio: ratio(ms2, mt),
              note: `deferred (the default, the row below) / strict = ${(mo / ms2).toFixed(2)}×: what answering before the checkpoint's fsync saves; load ${os.loadavg()[0].toFixed(1)}`,
            });
            const mf = median(floorMs);
            rows.push({
              case: `durable floor of that write: temp + fsync + rename + folder fsync, in process (median of ${n})`,
              value: ms(mf),
              baseline: `${ms(mt)} (server-filesystem edit_file, no fsync)`,
              ratio: ratio(mf, mt),
              note: `the least any durable write costs here and now: a goal below this ratio cannot be met by a server that fsyncs; ours / floor = ${(mo / mf).toFixed(2)}×`,
            });
          }
          rows.push({
            case: `edit_file${dryRun ? ' dry-run' : ''}, ${lines}-line .${ext} (median of ${n})`,
            value: ms(mo),
            baseline: `${ms(mt)} (server-filesystem)`,
            ratio: ratio(mo, mt),
            goal: `≤ ${goal.toFixed(2)}×`,
            met: mo / mt <= goal ? 'met' : 'not met',
            note: `${mt >= mo ? `${(mt / mo).toFixed(1)}× faster` : `${(mo / mt).toFixed(1)}× slower`}${ext === 'ts' ? '; ours runs the syntax guard' : ''}; ${PAUSE_MS} ms between calls; load ${os.loadavg()[0].toFixed(1)}`,
          });
        }
      }
    }
  } finally {
    await ours.close();
    await oursStrict.close();
    await theirs.close();
    fs.rmSync(strictRoot, { recursive: true, force: true });
    fs.rmSync(strictConfig, { recursive: true, force: true });
    fs.rmSync(ourRoot, { recursive: true, force: true });
    fs.rmSync(theirRoot, { recursive: true, force: true });
    fs.rmSync(floorDir, { recursive: true, force: true });
    fs.rmSync(userConfig, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
