// A hooked client's native edit costs a pre-tool and a post-tool hook, each
// its own process; a hooked shell command costs the pre-tool hook (the
// rewrite) plus the guarded runner around the command. Measured side by side
// with `node -e 0`, interleaved round by round so load hits every variant
// alike; wall time and CPU (user + sys, from bash's `time`), medians of N
// rounds (EW_BENCH_HOOK_N, default 15).
//   hook pre+post (Edit):   `editwarden hook claude pre-tool-use` then
//                           `post-tool-use` for an Edit of a 2-line .txt, through
//                           the command init writes (the POSIX sh wrapper included).
//                           Goal (issue 44): wall ≤ 2.0× one `node -e 0`; CPU ≤ 2.5×. Two Node
//                           starts are the floor of a command hook: HTTP hooks, which would have
//                           none, fail open in Claude Code (docs/integrations.md). The hooks
//                           talk to a warm hook server (started by a warm-up edit);
//                           its own CPU per pre+post is a row of its own.
//   hook pre, post async:   what the tool call waits for with the settings init writes now (issue 44): the
//                           PreToolUse alone — Claude Code runs the PostToolUse in the background
//                           (`"async": true`). Measured the hard way: the previous call's post hook is
//                           started in the background right before, so the pre shares the CPU with it
//                           (the model's next call coming at once); and the pre alone (the post done before
//                           the next call, as a model's turn outlasts it). Goal: wall ≤ 2.0× one `node -e 0`.
//   Stop hook:              once per turn (not per edit): records a call whose post never came.
//   wrapper alone:          the sh wrapper's own cost (`command -v`, the exit-code
//                           test) around `true` instead of editwarden.
//   shell `true` (bare):    `true` as the client would run it (sh -c true).
//   shell `true` (guarded): the same through `editwarden shell` in a 5k-file
//                           project (sandbox, checkpoint before, effects after).
//                           Goal: ≤ 50 ms added over the bare command.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const N = Number(process.env.EW_BENCH_HOOK_N ?? 15);
const HOOK_GOAL = { wall: 2.0, cpu: 2.5 };
const SHELL_GOAL_MS = 50;

/** Starts `sh -c line` with `input` on stdin in the background (as a client runs an async hook); resolves when it ends. */
function background(line, cwd, input, env) {
  const child = spawn('sh', ['-c', line], { cwd, env, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', resolve));
}

/** Wall and CPU ms of one `sh -c line` with `input` on stdin; it must exit 0. */
function measure(line, cwd, input, env) {
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', 'TIMEFORMAT="%3U %3S"; { time sh -c "$1" >/dev/null 2>/dev/null; } 2>&1; exit ${PIPESTATUS[0]}', 'bash', line], { cwd, input, encoding: 'utf8', env });
  const wall = performance.now() - t0;
  const m = r.stdout
    .trim()
    .split('\n')
    .pop()
    .match(/^([\d.]+) ([\d.]+)$/);
  if (r.status !== 0 || !m) throw new Error(`${line} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return { wall, cpu: (Number(m[1]) + Number(m[2])) * 1000 };
}

export async function run() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-hookbench-'));
  try {
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(path.join(repo, 'bin', 'editwarden'), path.join(bin, 'editwarden'));
    // The hook's `#!/usr/bin/env node` finds the Node running this bench first (node@22, node@24 from the registry).
    const env = { ...process.env, PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}` };
    const loadBefore = os.loadavg()[0];
    const small = path.join(tmp, 'small');
    fs.mkdirSync(small);
    spawnSync('git', ['init', '-q'], { cwd: small });
    fs.writeFileSync(path.join(small, 'a.txt'), 'hello\nworld\n');
    const big = path.join(tmp, 'big');
    for (let d = 0; d < 50; d++) {
      fs.mkdirSync(path.join(big, `d${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(big, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`);
    }
    spawnSync('git', ['init', '-q'], { cwd: big });

    const { guardedHookCommand, noticeHookCommand } = await import(path.join(repo, 'dist', 'integrations', 'client.js'));
    const pre = guardedHookCommand('claude', 'pre-tool-use', '${CLAUDE_PROJECT_DIR:-.}');
    const post = guardedHookCommand('claude', 'post-tool-use', '${CLAUDE_PROJECT_DIR:-.}');
    const wrapperOnly = pre.replace('"$ew" hook claude pre-tool-use', 'true');
    let flip = false;
    const editInput = () => {
      flip = !flip;
      const [o, n] = flip ? ['world', 'there'] : ['there', 'world'];
      return JSON.stringify({ session_id: 'bench', tool_name: 'Edit', tool_use_id: `t${flip}`, tool_input: { file_path: path.join(small, 'a.txt'), old_string: o, new_string: n }, cwd: small });
    };
    const { shellRunnerLine } = await import(path.join(repo, 'dist', 'integrations', 'client.js'));
    const guarded = shellRunnerLine([process.execPath, path.join(repo, 'bin', 'editwarden')], { root: big, client: 'claude', tool: 'Bash', session: 'bench' }, 'true');

    // The hooks hand each call to a warm server (src/cli/hook-server.ts) in a private runtime folder of this bench;
    // its CPU is not the hook process's, so it is read from the server itself (a ping) and reported on its own row.
    const runtime = path.join(tmp, 'run');
    fs.mkdirSync(runtime, { mode: 0o700 });
    env.XDG_RUNTIME_DIR = runtime;
    env.EDITWARDEN_HOOK_SERVER_IDLE_MS = '600000';
    const { buildId, socketPath } = await import(path.join(repo, 'dist', 'cli', 'hook-socket.js'));
    const { askServer } = await import(path.join(repo, 'dist', 'cli', 'hook-client.js'));
    const build = buildId();
    const socket = socketPath(env, build);
    const serverCpu = async () => (await askServer(socket, { build, ping: true }, 5000)) ?? { cpu: Number.NaN, pid: 0 };
    // One warm-up edit starts the server (that hook decides by itself, as any hook that finds none does).
    measure(pre, small, editInput(), { ...env, CLAUDE_PROJECT_DIR: small });
    for (let t = 0; t < 50 && !fs.existsSync(socket); t++) await new Promise((r) => setTimeout(r, 100));
    flip = false;
    const stop = noticeHookCommand('claude', 'stop', '${CLAUDE_PROJECT_DIR:-.}');
    const withShell = process.env.EW_BENCH_HOOK_SHELL !== '0';
    const s = { node: [], hook: [], pre: [], asyncPre: [], stop: [], alone: [], wrapper: [], bare: [], shell: [], server: [] };
    let previousPost = null;
    for (let i = 0; i < N; i++) {
      s.node.push(measure(`${JSON.stringify(process.execPath)} -e 0`, small, '', env));
      const input = editInput();
      const before = await serverCpu();
      const a = measure(pre, small, input, { ...env, CLAUDE_PROJECT_DIR: small });
      // The client writes between the hooks: the post hook records a real change.
      const text = fs.readFileSync(path.join(small, 'a.txt'), 'utf8');
      const { old_string: o, new_string: n } = JSON.parse(input).tool_input;
      fs.writeFileSync(path.join(small, 'a.txt'), text.replace(o, n));
      const b = measure(post, small, input, { ...env, CLAUDE_PROJECT_DIR: small });
      s.hook.push({ wall: a.wall + b.wall, cpu: a.cpu + b.cpu });
      // With the post hook async and done before the model's next call (a model's turn takes longer than a post):
      // what the Edit waits for is this pre alone.
      s.pre.push(a);
      s.server.push({ cpu: ((await serverCpu()).cpu - before.cpu) / 1000 });
      // With the post hook async: the tool call waits for the pre alone, while the previous call's post runs beside it.
      const input3 = editInput();
      const running = previousPost === null ? Promise.resolve() : background(post, small, previousPost, { ...env, CLAUDE_PROJECT_DIR: small });
      s.asyncPre.push(measure(pre, small, input3, { ...env, CLAUDE_PROJECT_DIR: small }));
      await running;
      const t3 = fs.readFileSync(path.join(small, 'a.txt'), 'utf8');
      const e3 = JSON.parse(input3).tool_input;
      fs.writeFileSync(path.join(small, 'a.txt'), t3.replace(e3.old_string, e3.new_string));
      previousPost = input3;
      s.stop.push(measure(stop, small, JSON.stringify({ session_id: 'bench', hook_event_name: 'Stop', cwd: small }), { ...env, CLAUDE_PROJECT_DIR: small }));
      // The same edit decided in the hook's own process (no server: the first hook, or a server that cannot be believed).
      const input2 = editInput();
      const own = { ...env, CLAUDE_PROJECT_DIR: small, EDITWARDEN_HOOK_SERVER: 'off' };
      const c = measure(pre, small, input2, own);
      const t2 = fs.readFileSync(path.join(small, 'a.txt'), 'utf8');
      const e2 = JSON.parse(input2).tool_input;
      fs.writeFileSync(path.join(small, 'a.txt'), t2.replace(e2.old_string, e2.new_string));
      const d = measure(post, small, input2, own);
      s.alone.push({ wall: c.wall + d.wall, cpu: c.cpu + d.cpu });
      s.wrapper.push(measure(wrapperOnly, small, '', env));
      if (withShell) {
        s.bare.push(measure('true', big, '', env));
        s.shell.push(measure(guarded, big, '', env));
      }
    }
    const med = (k, f) => median(s[k].map((x) => x[f]));
    const rows = [];
    for (const f of ['wall', 'cpu']) {
      const node = med('node', f);
      const hook = med('hook', f);
      rows.push({
        case: `hook pre+post both blocking (Edit, before the async post), ${f}`,
        value: `${hook.toFixed(1)} ms`,
        baseline: `node -e 0: ${node.toFixed(1)} ms`,
        ratio: `${(hook / node).toFixed(2)}x`,
        note: `load ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}, Node ${process.version}`,
      });
    }
    for (const f of ['wall', 'cpu']) {
      const node = med('node', f);
      const alone1 = med('pre', f);
      rows.push({
        case: `hook pre, post async and done before the next call (what the Edit waits for), ${f}`,
        value: `${alone1.toFixed(1)} ms`,
        baseline: `node -e 0: ${node.toFixed(1)} ms`,
        ratio: `${(alone1 / node).toFixed(2)}x`,
        goal: `<= ${HOOK_GOAL[f]}x`,
        met: alone1 / node <= HOOK_GOAL[f],
        note: 'the settings init writes: PostToolUse "async": true',
      });
      const pre1 = med('asyncPre', f);
      rows.push({
        case: `hook pre, the previous post still running (the next call at once), ${f}`,
        value: `${pre1.toFixed(1)} ms`,
        baseline: `node -e 0: ${node.toFixed(1)} ms`,
        ratio: `${(pre1 / node).toFixed(2)}x`,
        goal: `<= ${HOOK_GOAL[f]}x`,
        met: pre1 / node <= HOOK_GOAL[f],
        note: 'the settings init writes: PostToolUse "async": true; the previous call’s post runs beside this pre',
      });
    }
    rows.push({ case: 'Stop hook (once per turn), wall', value: `${med('stop', 'wall').toFixed(1)} ms`, baseline: `node -e 0: ${med('node', 'wall').toFixed(1)} ms`, ratio: `${(med('stop', 'wall') / med('node', 'wall')).toFixed(2)}x` });
    for (const f of ['wall', 'cpu']) {
      const node = med('node', f);
      const alone = med('alone', f);
      rows.push({
        case: `hook pre+post deciding by itself (no server), ${f}`,
        value: `${alone.toFixed(1)} ms`,
        baseline: `node -e 0: ${node.toFixed(1)} ms`,
        ratio: `${(alone / node).toFixed(2)}x`,
        note: 'EDITWARDEN_HOOK_SERVER=off: the whole CLI loaded in each hook',
      });
    }
    rows.push({ case: 'hook server CPU per pre+post', value: `${med('server', 'cpu').toFixed(1)} ms CPU`, note: 'the warm server’s own CPU for the two calls (not in the rows above: another process)' });
    const last = await serverCpu();
    if (last.pid) process.kill(last.pid);
    rows.push({ case: 'hook sh wrapper alone', value: `${med('wrapper', 'cpu').toFixed(1)} ms CPU, ${med('wrapper', 'wall').toFixed(1)} ms wall`, note: 'sh, command -v and the exit-code test around `true`' });
    const added = med('shell', 'wall') - med('bare', 'wall');
    if (withShell)
      rows.push({
        case: 'shell `true` guarded (5k files), wall',
        value: `${med('shell', 'wall').toFixed(1)} ms`,
        baseline: `bare: ${med('bare', 'wall').toFixed(1)} ms`,
        ratio: `+${added.toFixed(1)} ms`,
        goal: `<= +${SHELL_GOAL_MS} ms`,
        met: added <= SHELL_GOAL_MS,
      });
    return rows;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
