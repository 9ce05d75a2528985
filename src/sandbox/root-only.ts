/**
 * What only root may read, masked when editwarden itself runs as root.
 *
 * Defends against: a sandboxed command reading `/etc/shadow`, host keys,
 * `/etc/ssl/private`, debconf passwords … because editwarden runs as root
 * (CI containers, many dev boxes). bwrap drops every capability, but a file
 * owned by uid 0 with mode 0600/0640 is still readable through its OWNER
 * bits: no capability is involved. Mapping the command to another uid inside
 * its user namespace does not help either — the kernel checks the uid the
 * namespace maps to, which is still 0 (seen here: `--unshare-user --uid
 * 65534` still reads /etc/shadow) — and a truly unprivileged uid could not
 * write the project's root-owned files. So the files are hidden instead: the
 * system folders where root keeps its secrets are scanned once per process
 * for entries that are owned by root (user or group) and closed to others,
 * and each one is masked (`/dev/null` over a file, an empty tmpfs over a
 * folder, whose contents are then not scanned). The scan is bounded in depth
 * per folder (secrets sit near the top: `/etc/ssh/ssh_host_*_key`,
 * `/var/lib/private`); a folder closed to others hides its whole subtree.
 *
 * Limits (docs/sandbox.md): a root-only file created after the scan, or
 * deeper than the scan goes, is not masked; a root-only folder that holds the
 * project (or a `readable`/`writable` path) is left visible, since masking it
 * would hide the project too.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The folders scanned, each to a depth (1: its direct entries). `/root` and the homes are hidden whole by the policy. */
const ROOT_ONLY_SCAN: readonly { dir: string; depth: number }[] = [
  { dir: '/etc', depth: 8 },
  { dir: '/var', depth: 3 },
  { dir: '/boot', depth: 2 },
  { dir: '/srv', depth: 3 },
  { dir: '/opt', depth: 2 },
  { dir: '/mnt', depth: 2 },
  { dir: '/media', depth: 2 },
  { dir: '/usr/local/etc', depth: 4 },
];

export interface RootOnlyEntry {
  path: string;
  dir: boolean;
}

/** Owned by root (user or group) and not open to others: readable by a uid-0 process through its owner or group bits. */
export function isRootOnly(st: fs.Stats): boolean {
  if (st.uid !== 0 && st.gid !== 0) return false;
  // A folder others cannot both list and enter; a file others cannot read.
  return st.isDirectory() ? (st.mode & 0o005) !== 0o005 : (st.mode & 0o004) === 0;
}

/** The root-only entries under `scan` (symbolic links are never followed nor masked: their target is what counts). */
export function scanRootOnly(scan: readonly { dir: string; depth: number }[] = ROOT_ONLY_SCAN): RootOnlyEntry[] {
  const out: RootOnlyEntry[] = [];
  const walk = (dir: string, depth: number): void => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) continue;
      if (isRootOnly(st)) out.push({ path: p, dir: st.isDirectory() });
      else if (st.isDirectory() && depth > 1) walk(p, depth - 1);
    }
  };
  for (const { dir, depth } of scan) {
    try {
      const st = fs.lstatSync(dir);
      if (st.isSymbolicLink()) continue;
      if (isRootOnly(st)) out.push({ path: dir, dir: st.isDirectory() });
      else if (st.isDirectory()) walk(dir, depth);
    } catch {
      // Not on this machine.
    }
  }
  return out;
}

function related(a: string, b: string): boolean {
  const inside = (child: string, parent: string) => {
    const rel = path.relative(parent, child);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  return inside(a, b) || inside(b, a);
}

let cached: RootOnlyEntry[] | null = null;

/**
 * The masks for a command run as root: every root-only entry except those inside, or holding, a path the
 * policy exposes (the root, `readable`, `writable`). Scanned once per process; each entry is checked to
 * still exist, since bwrap cannot mount over a path that vanished.
 */
export function rootOnlyMasks(exposed: readonly string[], scan: () => RootOnlyEntry[] = () => (cached ??= scanRootOnly())): RootOnlyEntry[] {
  return scan().filter((e) => !exposed.some((x) => related(e.path, x)) && fs.existsSync(e.path));
}
