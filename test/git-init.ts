/**
 * `git init -q` for a test's project without starting git for each one. The
 * first call in a process runs the real `git init -q` once, in a folder of its
 * own under os.tmpdir() (removed at once), and keeps what it wrote in memory;
 * every call then writes that tree into the project: the same names, bytes
 * and modes. What `git init` writes holds no path of the folder it was made
 * in (and the probe of the file system it records is of the same temp file
 * system), so the repository is the one git would have made there.
 *
 * Why: the suite makes hundreds of projects. Starting git cost ~11 ms of CPU
 * (plus the fork of a large test worker) per project; a copy of a prepared
 * `.git` with fs.cpSync cost more still (~14 ms, its per-entry checks); these
 * writes cost well under one.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Entry = { rel: string; dir: true; mode: number } | { rel: string; dir: false; mode: number; bytes: Buffer };

let template: Entry[] | undefined;

/** What `git init -q` writes in an empty folder, in the order to write it again (a folder before what it holds). */
function gitInitTree(): Entry[] {
  if (template) return template;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-git-init-'));
  try {
    const git = spawnSync('git', ['init', '-q'], { cwd: scratch, encoding: 'utf8' });
    if (git.status !== 0) throw new Error(`git init exited ${git.status ?? git.signal}: ${git.stderr}`);
    const entries: Entry[] = [];
    const walk = (rel: string): void => {
      for (const name of fs.readdirSync(path.join(scratch, rel)).sort()) {
        const child = path.join(rel, name);
        const stat = fs.lstatSync(path.join(scratch, child));
        if (stat.isDirectory()) {
          entries.push({ rel: child, dir: true, mode: stat.mode & 0o7777 });
          walk(child);
        } else if (stat.isFile()) entries.push({ rel: child, dir: false, mode: stat.mode & 0o7777, bytes: fs.readFileSync(path.join(scratch, child)) });
        else throw new Error(`git init wrote ${child}, neither a file nor a folder: the copy would not be what git writes`);
      }
    };
    entries.push({ rel: '.git', dir: true, mode: fs.statSync(path.join(scratch, '.git')).mode & 0o7777 });
    walk('.git');
    template = entries;
    return entries;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Makes `root` (an existing folder without a `.git`) a new, empty git repository, as `git init -q` there does. */
export function gitInit(root: string): void {
  for (const entry of gitInitTree()) {
    const target = path.join(root, entry.rel);
    if (entry.dir) fs.mkdirSync(target, { mode: entry.mode });
    else fs.writeFileSync(target, entry.bytes, { mode: entry.mode, flag: 'wx' });
  }
}
