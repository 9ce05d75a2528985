// Replay of real history: clone this repository (git clone /work/main, or
// EW_REPLAY_REPO) into a temp dir, take its last up to 300 commits, express
// each commit's change in every format, apply it to the parent's files with
// `editwarden apply`'s pipeline (applyReply) and compare every touched file
// byte for byte with the commit. The root commit is replayed against the
// empty tree. Unified diffs are git's own output (`git diff -M`); the other
// formats are written by formats/render.ts. A change a format cannot express
// (deletions and renames in JSON / active edit / SEARCH/REPLACE, binary
// files) is counted apart, not as a failure. Goal: 100% byte-exact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openWorkspace } from '../dist/workspace/open.js';
import { FORMAT_NAMES, renderChange } from '../dist/formats/index.js';
import { InexpressibleChange } from '../dist/formats/render.js';
import { applyReply } from '../dist/apply/apply-reply.js';
import { median, ms } from './stats.mjs';

const SOURCE = process.env.EW_REPLAY_REPO ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX_COMMITS = 300;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

const git = (cwd, args, encoding = 'utf8') => execFileSync('git', args, { cwd, encoding, maxBuffer: 256 * 1024 * 1024 });

function blob(repo, rev, file) {
  if (rev === EMPTY_TREE) return null;
  try {
    return git(repo, ['show', `${rev}:${file}`], 'buffer');
  } catch {
    return null;
  }
}

/** The commit's file changes: [{path, moveTo?, before: Buffer|null, after: Buffer|null}]. */
function commitChanges(repo, parent, commit) {
  const renames = git(repo, ['diff', '--name-status', '-M', '-z', parent, commit]).split('\0').filter(Boolean);
  const changes = [];
  for (let i = 0; i < renames.length; ) {
    const status = renames[i++];
    if (status.startsWith('R')) {
      const from = renames[i++];
      const to = renames[i++];
      changes.push({ path: from, moveTo: to, before: blob(repo, parent, from), after: blob(repo, commit, to) });
    } else {
      const file = renames[i++];
      changes.push({ path: file, before: status === 'A' ? null : blob(repo, parent, file), after: status === 'D' ? null : blob(repo, commit, file) });
    }
  }
  return changes;
}

const isBinary = (b) => b !== null && (b.includes(0) || !isUtf8(b));
function isUtf8(b) {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

export async function run() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-replay-'));
  const repo = path.join(tmp, 'repo');
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', SOURCE, repo]);
  const commits = git(repo, ['log', '--format=%H %P', `-n${MAX_COMMITS}`, 'HEAD'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '));
  const stats = Object.fromEntries(FORMAT_NAMES.map((f) => [f, { exact: 0, failed: 0, inexpressible: 0, times: [], failures: [] }]));
  let binaryFiles = 0;
  let filesTotal = 0;
  for (const [commit, parentOrNone] of commits) {
    const parent = parentOrNone ?? EMPTY_TREE;
    const all = commitChanges(repo, parent, commit);
    const text = all.filter((c) => !isBinary(c.before) && !isBinary(c.after));
    binaryFiles += all.length - text.length;
    filesTotal += text.length;
    if (text.length === 0) continue;
    const changes = text.map((c) => ({ path: c.path, ...(c.moveTo ? { moveTo: c.moveTo } : {}), before: c.before?.toString('utf8') ?? null, after: c.after?.toString('utf8') ?? null }));
    for (const format of FORMAT_NAMES) {
      const s = stats[format];
      let reply;
      try {
        reply = format === 'udiff' ? gitDiff(repo, parent, commit, text) : renderChange(format, changes);
      } catch (error) {
        if (error instanceof InexpressibleChange) {
          s.inexpressible++;
          continue;
        }
        throw error;
      }
      const root = path.join(tmp, `work-${format}`);
      fs.rmSync(root, { recursive: true, force: true });
      fs.mkdirSync(root);
      for (const c of text) {
        if (c.before === null) continue;
        fs.mkdirSync(path.dirname(path.join(root, c.path)), { recursive: true });
        fs.writeFileSync(path.join(root, c.path), c.before);
      }
      const t0 = process.hrtime.bigint();
      const outcome = await applyReply(openWorkspace(root).ws, reply, { format, edit: { dramaticMinLines: Number.POSITIVE_INFINITY } });
      s.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      const exact =
        outcome.ok &&
        text.every((c) => {
          const target = path.join(root, c.moveTo ?? c.path);
          if (c.moveTo && c.moveTo !== c.path && fs.existsSync(path.join(root, c.path))) return false;
          if (c.after === null) return !fs.existsSync(target);
          return fs.existsSync(target) && fs.readFileSync(target).equals(c.after);
        });
      if (exact) s.exact++;
      else {
        s.failed++;
        s.failures.push(`${commit.slice(0, 8)}: ${outcome.results.find((r) => r.error)?.error?.message ?? 'bytes differ'}`);
      }
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  const rows = [];
  for (const format of FORMAT_NAMES) {
    const s = stats[format];
    const tried = s.exact + s.failed;
    rows.push({
      case: `${format}: byte-exact commits`,
      value: tried === 0 ? 'n/a' : `${((100 * s.exact) / tried).toFixed(1)}% (${s.exact}/${tried})`,
      goal: '100%',
      note: `${commits.length} commits replayed (${filesTotal} text file changes, ${binaryFiles} binary skipped); ${s.inexpressible} commit(s) not expressible in this format${s.failures.length ? `; first failure ${s.failures[0]}` : ''}`,
    });
    rows.push({ case: `${format}: median parse + apply per commit`, value: s.times.length ? ms(median(s.times)) : 'n/a', note: 'in process, temp dir with the touched files' });
  }
  return rows;
}

/** git's own unified diff of the commit, limited to its text files. */
function gitDiff(repo, parent, commit, text) {
  const paths = [...new Set(text.flatMap((c) => (c.moveTo ? [c.path, c.moveTo] : [c.path])))];
  return git(repo, ['diff', '--no-color', '--no-ext-diff', '-M', parent, commit, '--', ...paths]);
}
