// What checking a project-local editwarden costs a hook (issue 38.1,
// src/integrations/guard-install.ts). A project-local install runs only
// through the person's launcher, which compares the install's stat identity
// with the recorded one before it loads any of its code. Measured side by
// side, interleaved round by round so load hits each variant alike, medians
// of N rounds (argv[2], default 15), each a process of its own:
//   direct:    `node <project>/node_modules/editwarden/bin/editwarden hook claude pre-tool-use`
//              (what today's main ran: no check at all);
//   launcher:  `node <guard dir>/launch.cjs <project> hook claude pre-tool-use`
//              (the check, then the same hook in the same process);
//   node -e 0: the floor.
// Both hooks answer an Edit of a small file through the same warm hook server.
// Also the check alone, in process (verifyGuard, warm): the stat walk and the record.
//   node bench/guard-launch.bench.mjs [N]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.argv[2] ?? 15);

function wall(args, input, env, cwd) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { input, env, cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.status} ${r.stderr}`);
  return performance.now() - t0;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-guardbench-'));
try {
  const root = path.join(tmp, 'p');
  const pkg = path.join(root, 'node_modules', 'editwarden');
  fs.mkdirSync(pkg, { recursive: true });
  for (const part of ['bin', 'dist', 'grammars', 'package.json']) fs.cpSync(path.join(repo, part), path.join(pkg, part), { recursive: true });
  for (const name of ['web-tree-sitter', 'tree-sitter-wasms']) fs.cpSync(path.join(repo, 'node_modules', name), path.join(root, 'node_modules', name), { recursive: true });
  fs.mkdirSync(path.join(root, 'node_modules', '.bin'));
  fs.symlinkSync('../editwarden/bin/editwarden', path.join(root, 'node_modules', '.bin', 'editwarden'));
  spawnSync('git', ['init', '-q'], { cwd: root });
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello\nworld\n');
  const runtime = path.join(tmp, 'run');
  fs.mkdirSync(runtime, { mode: 0o700 });
  const env = { ...process.env, HOME: tmp, XDG_DATA_HOME: path.join(tmp, 'data'), XDG_RUNTIME_DIR: runtime, EDITWARDEN_HOOK_SERVER_IDLE_MS: '60000' };
  const rec = spawnSync(process.execPath, [path.join(pkg, 'bin', 'editwarden'), 'trust', '--guard', '--root', root], { env, encoding: 'utf8' });
  if (rec.status !== 0) throw new Error(rec.stderr);
  const launcher = path.join(tmp, 'data', 'editwarden', 'guard', 'launch.cjs');
  let flip = false;
  const input = () => {
    flip = !flip;
    const [o, n] = flip ? ['world', 'there'] : ['there', 'world'];
    return JSON.stringify({ session_id: 'bench', tool_name: 'Edit', tool_input: { file_path: path.join(root, 'a.txt'), old_string: o, new_string: n }, cwd: root });
  };
  const direct = [path.join(pkg, 'bin', 'editwarden'), 'hook', 'claude', 'pre-tool-use'];
  const launched = [launcher, root, 'hook', 'claude', 'pre-tool-use'];
  // Warm-up: starts the hook server and fills the file cache.
  for (let i = 0; i < 3; i++) {
    wall(direct, input(), env, root);
    wall(launched, input(), env, root);
  }
  const rows = { direct: [], launcher: [], node: [] };
  for (let i = 0; i < N; i++) {
    rows.direct.push(wall(direct, input(), env, root));
    rows.launcher.push(wall(launched, input(), env, root));
    rows.node.push(wall(['-e', '0'], '', env, root));
  }
  const { verifyGuard } = await import(path.join(repo, 'dist', 'integrations', 'guard-install.js'));
  const check = [];
  for (let i = 0; i < Math.max(N, 30); i++) {
    const t0 = performance.now();
    if (!verifyGuard(root, env).ok) throw new Error('verifyGuard refused');
    check.push(performance.now() - t0);
  }
  const m = (a) => median(a).toFixed(1);
  console.log(`load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores, ${N} rounds`);
  console.log(`pre-tool-use hook, direct (no check):   ${m(rows.direct)} ms wall`);
  console.log(`pre-tool-use hook, through launcher:    ${m(rows.launcher)} ms wall (added ${(median(rows.launcher) - median(rows.direct)).toFixed(1)} ms)`);
  console.log(`node -e 0:                              ${m(rows.node)} ms wall`);
  console.log(`verifyGuard in process (warm):          ${m(check)} ms (min ${Math.min(...check).toFixed(1)})`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
