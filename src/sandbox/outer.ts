/**
 * An outer sandbox: editwarden itself runs inside another one where
 * bubblewrap cannot start (Codex's `workspace-write` sandbox: its own
 * bubblewrap + seccomp, which forbids new namespaces), and the command can
 * run under that one instead — checkpointed, its effects counted and
 * recorded as ever — but only when what the kernel shows this process
 * proves that writes are confined to the project and the temp folders:
 *
 * - no capabilities (CapEff 0), no_new_privs, a seccomp filter in force
 *   (/proc/self/status): nothing can remount or gain rights back;
 * - the file system root mounted read-only, and every writable mount of
 *   this mount namespace (/proc/self/mountinfo; a mount hidden by one on
 *   the same point is left out) at or under the project root, /tmp,
 *   /var/tmp, or a virtual file system under /dev or /proc — a read-only
 *   mount cannot be made writable from inside (no CAP_SYS_ADMIN, and a
 *   locked mount stays read-only even in a new namespace);
 * - every process this one can see in the same mount namespace (another
 *   one's /proc/<pid>/root would reach that namespace's writable mounts);
 * - no network interface but loopback when editwarden's own policy has the
 *   network off (/proc/self/net/dev).
 *
 * The reason for each rule is named beside it. What it cannot give: the
 * protected set read-only during the command (Codex keeps `.git/`,
 * `.codex/`, `.agents/` read-only; editwarden's state folder, its config
 * and other clients' settings are writable under it, and only the command
 * effects' put-back brings the config files back after it), a private
 * /tmp, the write witness (its log would be in the command's reach), and
 * editwarden's own network policy beyond "off" (docs/integrations.md,
 * Codex).
 *
 * It must never report an outer sandbox it has not proved from the
 * kernel's own files; the environment (CODEX_*) only names it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One line of /proc/self/mountinfo (proc(5)): what the rules read. */
export interface MountEntry {
  id: number;
  parent: number;
  /** The mount point, octal escapes (`\040`) decoded. */
  point: string;
  /** Per-mount options say `ro`: no write through this mount, whatever the file system allows. */
  readOnly: boolean;
  fsType: string;
}

/** What the kernel showed, as text (tests hand in their own). */
export interface OuterSandboxInput {
  root: string;
  /** /proc/self/status */
  status: string;
  /** /proc/self/mountinfo */
  mountinfo: string;
  /** /proc/self/net/dev */
  netDev: string;
  /** Our mount namespace (readlink /proc/self/ns/mnt) and every visible process's, or null where unreadable. */
  mountNs: string | null;
  otherMountNs: ReadonlyArray<string | null>;
  /** The network editwarden's policy allows (false: none). */
  network: boolean;
  /** The protected set's existing members (absolute): which of them the outer sandbox leaves writable is reported. */
  protectedPaths?: readonly string[];
  /** Names the sandbox for the record; never decides. */
  env: NodeJS.ProcessEnv;
}

interface OuterSandbox {
  /** "Codex's sandbox" or "an outer sandbox". */
  name: string;
  /** The writable mounts (absolute), for the record and the note. */
  writable: string[];
  /** Interfaces other than loopback exist (the outer sandbox lets commands reach the network). */
  network: boolean;
  /** Members of the protected set a command can write under it (the mount that reaches them is writable). */
  writableProtected: string[];
}

export type OuterVerdict = { ok: true; sandbox: OuterSandbox } | { ok: false; why: string };

/** Folders whose mounts may stay writable: temp folders (as the outer sandbox's own policy allows). */
const TEMP_ROOTS = ['/tmp', '/var/tmp'];
/** Virtual file systems (devices, process information): no file of the person's lives there. */
const VIRTUAL_ROOTS = ['/dev', '/proc'];

function decodeMountField(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/** proc(5): `id parent major:minor root point options [optional…] - type source super-options`. Unreadable lines: null (the caller fails closed). */
export function parseMountinfo(text: string): MountEntry[] | null {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (dash < 6 || fields.length < dash + 2) return null;
    const id = Number(fields[0]);
    const parent = Number(fields[1]);
    const point = fields[4];
    const options = fields[5];
    const fsType = fields[dash + 1];
    if (!Number.isInteger(id) || !Number.isInteger(parent) || point === undefined || options === undefined || fsType === undefined) return null;
    out.push({ id, parent, point: decodeMountField(point), readOnly: options.split(',').includes('ro'), fsType });
  }
  return out;
}

function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/** Field `name:` of /proc/self/status, or null. */
function statusField(status: string, name: string): string | null {
  const m = new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(status);
  return m?.[1] ?? null;
}

/** The rules read from /proc/self/status: why they fail, or null when they hold. */
function statusRule(status: string): string | null {
  // Capabilities would let the command remount read-only mounts writable.
  const capEff = statusField(status, 'CapEff');
  if (capEff === null || !/^0+$/.test(capEff)) return 'this process holds capabilities (CapEff is not 0)';
  // Without no_new_privs a setuid program could run with more rights than the sandbox gave.
  if (statusField(status, 'NoNewPrivs') !== '1') return 'no_new_privs is not set';
  // Seccomp mode 2 (a filter): what keeps new namespaces, and with them bubblewrap, from starting.
  if (statusField(status, 'Seccomp') !== '2') return 'no seccomp filter is in force';
  return null;
}

/** The rules of the module comment, on what the kernel showed. */
export function judgeOuterSandbox(input: OuterSandboxInput): OuterVerdict {
  const no = (why: string): OuterVerdict => ({ ok: false, why });
  const held = statusRule(input.status);
  if (held !== null) return no(held);
  const mounts = parseMountinfo(input.mountinfo);
  if (mounts === null || mounts.length === 0) return no('the mount table could not be read');
  // A mount covered by another on the same point is not reached by any path.
  const covered = new Set(mounts.filter((m) => mounts.some((o) => o.parent === m.id && o.point === m.point)).map((m) => m.id));
  const visible = mounts.filter((m) => !covered.has(m.id));
  const slash = visible.filter((m) => m.point === '/');
  if (slash.length === 0 || slash.some((m) => !m.readOnly)) return no('the file system root is not mounted read-only');
  const root = path.resolve(input.root);
  const writable = visible.filter((m) => !m.readOnly).map((m) => m.point);
  for (const point of writable) {
    if (within(point, root)) continue;
    if (TEMP_ROOTS.some((t) => within(point, t))) continue;
    if (VIRTUAL_ROOTS.some((v) => within(point, v))) continue;
    // A writable mount anywhere else (a home folder, another project): writes are not confined.
    return no(`${point} is mounted writable`);
  }
  if (!writable.some((p) => within(root, p))) return no(`the project root ${root} is not writable here`);
  // Another mount namespace's process: its /proc/<pid>/root leads to that namespace's writable mounts.
  if (input.mountNs === null) return no('the mount namespace could not be read');
  if (input.otherMountNs.some((ns) => ns !== input.mountNs)) return no('a process of another mount namespace is visible');
  const interfaces = input.netDev
    .split('\n')
    .slice(2)
    .map((l) => l.split(':')[0]?.trim() ?? '')
    .filter((n) => n !== '');
  const network = interfaces.some((n) => n !== 'lo');
  // editwarden's policy says no network, and it cannot take the network away from inside: not confined enough.
  if (network && !input.network) return no(`commands can reach the network here (${interfaces.filter((n) => n !== 'lo').join(', ')}), and sandbox.network is off`);
  const codex = input.env.CODEX_SANDBOX_NETWORK_DISABLED !== undefined || input.env.CODEX_THREAD_ID !== undefined;
  // The mount that reaches a path is the deepest visible one holding it (the later one when two share a point).
  const reaching = (p: string): MountEntry | undefined => visible.filter((m) => within(p, m.point)).reduce<MountEntry | undefined>((best, m) => (best === undefined || m.point.length >= best.point.length ? m : best), undefined);
  const writableProtected = (input.protectedPaths ?? []).filter((p) => reaching(p)?.readOnly !== true);
  return { ok: true, sandbox: { name: codex ? "Codex's sandbox" : 'an outer sandbox', writable, network, writableProtected } };
}

function read(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

function mountNsOf(pid: string): string | null {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return null;
  }
}

/** A process that has ended (gone, or a zombie: no namespaces, no root to reach) since /proc was listed. */
function ended(pid: string): boolean {
  const status = read(`/proc/${pid}/status`);
  return status === '' || /^State:\s*[ZX]/m.test(status);
}

/**
 * no_new_privs and a seccomp filter on this process: the marks of a sandbox around it (where bubblewrap
 * cannot start). Only a sign, never a proof (judgeOuterSandbox is that): it decides who looks, not what runs.
 */
export function nestedSandboxSigns(): boolean {
  const status = read('/proc/self/status');
  return /^NoNewPrivs:\s*1$/m.test(status) && /^Seccomp:\s*2$/m.test(status);
}

/** The outer sandbox this process runs in, judged from /proc (Linux only; elsewhere none). */
export function detectOuterSandbox(root: string, network: boolean, platform: NodeJS.Platform = process.platform, protectedPaths: readonly string[] = []): OuterVerdict {
  if (platform !== 'linux') return { ok: false, why: `no outer sandbox is recognised on ${platform}` };
  const status = read('/proc/self/status');
  // Outside a sandbox (the usual case when bubblewrap is missing) the status rules fail first: no walk of /proc for that.
  const held = statusRule(status);
  if (held !== null) return { ok: false, why: held };
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n) && n !== String(process.pid));
  } catch {
    return { ok: false, why: '/proc could not be read' };
  }
  return judgeOuterSandbox({
    root,
    status,
    network,
    protectedPaths,
    mountinfo: read('/proc/self/mountinfo'),
    netDev: read('/proc/self/net/dev'),
    mountNs: mountNsOf('self'),
    // A process that ended between the listing and the look (or a zombie) is not one that can be reached.
    otherMountNs: pids
      .map((pid) => ({ pid, ns: mountNsOf(pid) }))
      .filter((p) => p.ns !== null || !ended(p.pid))
      .map((p) => p.ns),
    env: process.env,
  });
}
