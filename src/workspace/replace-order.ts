/**
 * Whether a rename that replaces an existing regular file on a given file
 * system reaches the disk only after the renamed file's data: then a write
 * that replaces a file is "old or new" after a power loss without the temp
 * file's fsync before the rename, and a long-lived server in deferred
 * durability may run that fsync after its answer (docs/checkpoints.md).
 *
 * Only ext4 in `data=journal` gives that by contract (kernel
 * Documentation/admin-guide/ext4.rst: "All data are committed into the
 * journal prior to being written into the main file system"): each write's
 * data is journalled in the transaction of its write(), the rename comes in
 * the same or a later one, and recovery replays committed transactions in
 * order — so a rename that survived a crash has its data with it.
 *
 * Not `data=ordered` (the default) with `auto_da_alloc`, though the kernel
 * doc says it gives "roughly the same level of guarantees as ext3": the
 * rename only starts the data's writeback; with delayed allocation and
 * `dioread_nolock` (both defaults) the new blocks stay unwritten extents
 * until that I/O completes, and the rename's commit does not wait for it —
 * a crash can leave the new name reading zeros (reported on linux-ext4 in
 * 2022, "ext4: ensure data forced to disk when rename"; the maintainer's
 * answer: "We do not guarantee that the data is securely on disk before
 * rename - userspace is responsible for that"). Everything else — another
 * file system, `data=ordered`, `data=writeback`, an ext4 without a journal
 * (no data mode at all), a device whose options cannot be read — answers
 * no, and the write keeps its fsync before the rename.
 *
 * Why not /proc/self/mountinfo alone: it lists only the options that differ
 * from the superblock's defaults, so a data mode that is the superblock's
 * default (`journal_data` set by tune2fs) is absent, and so is the missing
 * journal of an ext4 without one. The effective options are in
 * /proc/fs/ext4/<device>/options (every option, the data mode included when
 * there is one); mountinfo says which file system the device carries.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One line of /proc/self/mountinfo (proc(5)), its fields unescaped. */
export interface MountEntry {
  /** `major:minor` of the device (st_dev). */
  device: string;
  /** The mount point, with `\040`-style escapes decoded. */
  mountPoint: string;
  fsType: string;
  source: string;
  /** Per-superblock options (after the ` - ` separator). */
  superOptions: string[];
}

/** The kernel escapes space, tab, newline and backslash in mountinfo as `\ooo` (octal). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** One mountinfo line, or null when it is not one (a short or malformed line is never guessed at). */
export function parseMountinfoLine(line: string): MountEntry | null {
  const fields = line.split(' ');
  // id, parent, major:minor, root, mount point, options, optional fields…, "-", type, source, super options.
  const dash = fields.indexOf('-', 6);
  if (dash < 0 || fields.length < dash + 4) return null;
  const device = fields[2] as string;
  if (!/^\d+:\d+$/.test(device)) return null;
  return {
    device,
    mountPoint: unescapeMountField(fields[4] as string),
    fsType: unescapeMountField(fields[dash + 1] as string),
    source: unescapeMountField(fields[dash + 2] as string),
    superOptions: (fields[dash + 3] as string).split(',').filter((o) => o !== ''),
  };
}

/** Every parseable line of a mountinfo text. */
export function parseMountinfo(text: string): MountEntry[] {
  return text.split('\n').flatMap((line) => {
    const entry = parseMountinfoLine(line);
    return entry === null ? [] : [entry];
  });
}

/**
 * The decision, from what the kernel says: `mounts` are the mountinfo lines
 * of the device, `ext4Options` the lines of its /proc/fs/ext4/<name>/options
 * (null: not readable). True only when every mount of the device is ext4 and
 * the effective options say `data=journal`.
 */
export function replaceOrdersData(mounts: readonly MountEntry[], ext4Options: readonly string[] | null): boolean {
  if (mounts.length === 0 || ext4Options === null) return false;
  for (const m of mounts) {
    if (m.fsType !== 'ext4') return false;
    if (m.superOptions.some((o) => o.startsWith('data=') && o !== 'data=journal')) return false;
  }
  const modes = ext4Options.map((o) => o.trim()).filter((o) => o.startsWith('data='));
  // Exactly one data mode, and it is the journalled one.
  return modes.length === 1 && modes[0] === 'data=journal';
}

/** `major:minor` of an st_dev (glibc's gnu_dev_major/minor: the major in bits 8–19 and 44–63, the minor in bits 0–7 and 20–43). */
export function deviceNumbers(dev: bigint): string {
  const major = ((dev & 0xfff00n) >> 8n) | ((dev & 0xfffff00000000000n) >> 32n);
  const minor = (dev & 0xffn) | ((dev & 0xffffff00000n) >> 12n);
  return `${major}:${minor}`;
}

/** A device's mounts and where its effective ext4 options are read. */
interface DeviceFacts {
  mounts: MountEntry[];
  optionsFile: string;
}

/** Per device (`major:minor`), found once: null when it is no ext4 on a block device (the answer is no). */
const factsOf = new Map<string, DeviceFacts | null>();

function locate(device: string): DeviceFacts | null {
  let mounts: MountEntry[];
  try {
    mounts = parseMountinfo(fs.readFileSync('/proc/self/mountinfo', 'utf8')).filter((m) => m.device === device);
  } catch {
    return null;
  }
  if (mounts.length === 0 || mounts.some((m) => m.fsType !== 'ext4')) return null;
  try {
    // ext4 names its /proc/fs/ext4 folder after the block device (sb->s_id), which /sys/dev/block links to.
    const name = path.basename(fs.realpathSync(`/sys/dev/block/${device}`));
    const optionsFile = `/proc/fs/ext4/${name}/options`;
    fs.accessSync(optionsFile, fs.constants.R_OK);
    return { mounts, optionsFile };
  } catch {
    return null;
  }
}

let probe: ((fd: number) => boolean) | null = null;

/** Stands in for the kernel's answer (tests only: the deferred order on a machine without a journalled ext4); null restores it. */
export function setReplaceOrderProbe(fn: ((fd: number) => boolean) | null): void {
  probe = fn;
}

/**
 * Whether renaming the file open at `fd` over an existing regular file of
 * its folder orders its data before the rename (see the module comment).
 * The device's mounts and where its options live are found once per device;
 * the options themselves are read at every call (one small read: a remount
 * may change `auto_da_alloc`).
 */
export function renameOrdersDataOf(fd: number): boolean {
  if (probe !== null) return probe(fd);
  if (process.platform !== 'linux') return false;
  try {
    const device = deviceNumbers(fs.fstatSync(fd, { bigint: true }).dev);
    let facts = factsOf.get(device);
    if (facts === undefined) {
      facts = locate(device);
      factsOf.set(device, facts);
    }
    if (facts === null) return false;
    return replaceOrdersData(facts.mounts, fs.readFileSync(facts.optionsFile, 'utf8').split('\n'));
  } catch {
    return false;
  }
}
