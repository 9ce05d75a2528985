// The mount decision behind deferring a replacing write's temp-file fsync (replace-order.ts): mountinfo lines as
// the kernel writes them (octal escapes), the effective ext4 options (data=journal only), and the device numbers of an st_dev.
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deviceNumbers, parseMountinfo, parseMountinfoLine, renameOrdersDataOf, replaceOrdersData, type MountEntry } from '../../src/workspace/replace-order.js';

/** The kernel's escaping of a mountinfo field (fs/proc_namespace.c mangle: space, tab, newline, backslash). */
const mangle = (s: string): string => s.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);

const field = fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom('a', 'b', '/', ' ', '\t', '\n', '\\', '-', ',', 'é', '0') });
const option = fc.stringMatching(/^[a-z_]{1,8}(=[a-z0-9]{1,4})?$/);

/** Options of an ext4 with a journal, as /proc/fs/ext4/<dev>/options lists them (a real loop-mounted ext4 of this kernel). */
const JOURNALLED =
  'rw\nbsddf\nnogrpid\nblock_validity\ndioread_nolock\nnodiscard\ndelalloc\nnowarn_on_error\njournal_checksum\nbarrier\nauto_da_alloc\nuser_xattr\nacl\nnoquota\nerrors=continue\ncommit=5\ndata=ordered\ninode_readahead_blks=32\n'.split(
    '\n',
  );
/** The same kernel's ext4 without a journal: no data mode at all (and mountinfo shows no difference). */
const NO_JOURNAL = JOURNALLED.filter((o) => o !== 'data=ordered' && o !== 'journal_checksum');
/** The same with data=journal, as `mount -o data=journal` gives it. */
const DATA_JOURNAL = JOURNALLED.map((o) => (o === 'data=ordered' ? 'data=journal' : o));
const ext4 = (superOptions: string[] = ['rw']): MountEntry => ({ device: '7:0', mountPoint: '/mnt/x', fsType: 'ext4', source: '/dev/loop0', superOptions });

describe('parseMountinfoLine', () => {
  it('reads the kernel’s lines back exactly: escaped fields, any number of optional fields', () => {
    fc.assert(
      fc.property(
        fc.record({
          major: fc.nat(4095),
          minor: fc.nat(1 << 20),
          root: field,
          mountPoint: field,
          optional: fc.array(fc.constantFrom('shared:1', 'master:12', 'propagate_from:3', 'unbindable'), { maxLength: 3 }),
          fsType: fc.constantFrom('ext4', 'xfs', 'tmpfs', 'fuse.sshfs'),
          source: field,
          superOptions: fc.array(option, { minLength: 1, maxLength: 5 }),
        }),
        (m) => {
          const line = ['36', '35', `${m.major}:${m.minor}`, mangle(m.root), mangle(m.mountPoint), 'rw,relatime', ...m.optional, '-', m.fsType, mangle(m.source), m.superOptions.join(',')].join(' ');
          expect(parseMountinfoLine(line)).toEqual({
            device: `${m.major}:${m.minor}`,
            mountPoint: m.mountPoint,
            fsType: m.fsType,
            source: m.source,
            superOptions: m.superOptions,
          });
        },
      ),
    );
  });

  it('a mount point with a space (\\040) and this machine’s own lines', () => {
    expect(parseMountinfoLine('42 27 7:0 / /tmp/my\\040disk rw,relatime shared:5 - ext4 /dev/loop0 rw,data=journal')).toEqual({
      device: '7:0',
      mountPoint: '/tmp/my disk',
      fsType: 'ext4',
      source: '/dev/loop0',
      superOptions: ['rw', 'data=journal'],
    });
    const mine = parseMountinfo(fs.readFileSync('/proc/self/mountinfo', 'utf8'));
    expect(mine.some((m) => m.mountPoint === '/')).toBe(true);
  });

  it('refuses what is not a line of the format, never guessing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (junk) => {
        const parsed = parseMountinfoLine(junk);
        if (parsed !== null) expect(junk.split(' ')).toContain('-');
      }),
    );
    expect(parseMountinfoLine('36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 ext3 /dev/root rw')).toBeNull();
    expect(parseMountinfoLine('36 35 x:0 / / rw - ext4 /dev/root rw')).toBeNull();
    expect(parseMountinfoLine('36 35 98:0 / / rw - ext4')).toBeNull();
  });
});

describe('replaceOrdersData', () => {
  it('yes only for ext4 in data=journal: the journal orders every write before a later rename', () => {
    expect(replaceOrdersData([ext4()], DATA_JOURNAL)).toBe(true);
    expect(replaceOrdersData([ext4(['rw', 'data=journal'])], DATA_JOURNAL)).toBe(true);
    // The default data=ordered, auto_da_alloc and all: the rename only starts the data's writeback (no guarantee).
    expect(replaceOrdersData([ext4()], JOURNALLED)).toBe(false);
    // No journal: ext4 has no data mode and orders nothing, though mountinfo looks the same.
    expect(replaceOrdersData([ext4()], NO_JOURNAL)).toBe(false);
    expect(
      replaceOrdersData(
        [ext4()],
        JOURNALLED.map((o) => (o === 'data=ordered' ? 'data=writeback' : o)),
      ),
    ).toBe(false);
    expect(replaceOrdersData([ext4(['rw', 'data=writeback'])], DATA_JOURNAL)).toBe(false);
    expect(replaceOrdersData([{ ...ext4(), fsType: 'xfs' }], DATA_JOURNAL)).toBe(false);
    expect(replaceOrdersData([ext4(), { ...ext4(), fsType: 'ext3' }], DATA_JOURNAL)).toBe(false);
    expect(replaceOrdersData([], DATA_JOURNAL)).toBe(false);
    expect(replaceOrdersData([ext4()], null)).toBe(false);
  });

  it('yes exactly when the one data mode the options name is data=journal, whatever else they say', () => {
    const other = fc.oneof(option, fc.constantFrom('auto_da_alloc', 'noauto_da_alloc', 'delalloc', 'nodelalloc', 'dioread_nolock', 'journal_checksum'));
    const mode = fc.constantFrom('data=journal', 'data=ordered', 'data=writeback');
    fc.assert(
      fc.property(fc.array(other, { maxLength: 8 }), fc.array(mode, { maxLength: 2 }), fc.array(other, { maxLength: 8 }), (before, modes, after) => {
        const options = [...before, ...modes, ...after];
        const named = options.filter((o) => o.startsWith('data='));
        expect(replaceOrdersData([ext4()], options)).toBe(named.length === 1 && named[0] === 'data=journal');
        // Whatever the options, a mount of another type, or a mount line naming another mode, says no.
        expect(replaceOrdersData([{ ...ext4(), fsType: 'btrfs' }], options)).toBe(false);
        expect(replaceOrdersData([ext4(['rw', 'data=ordered'])], options)).toBe(false);
      }),
    );
  });
});

describe('deviceNumbers', () => {
  it('undoes glibc’s makedev', () => {
    fc.assert(
      fc.property(fc.nat(0xfffff), fc.nat(0xfffff), (major, minor) => {
        const M = BigInt(major);
        const m = BigInt(minor);
        const dev = ((M & 0xfffn) << 8n) | ((M & ~0xfffn) << 32n) | (m & 0xffn) | ((m & ~0xffn) << 12n);
        expect(deviceNumbers(dev)).toBe(`${major}:${minor}`);
      }),
    );
  });

  it('reads the kernel’s own numbers: /dev/null is 1:3 on every Linux', () => {
    expect(deviceNumbers(fs.statSync('/dev/null', { bigint: true }).rdev)).toBe('1:3');
  });
});

describe('renameOrdersDataOf (the real kernel)', () => {
  it('no on procfs (no block device, no ext4 options)', () => {
    const fd = fs.openSync('/proc', 'r');
    try {
      expect(renameOrdersDataOf(fd)).toBe(false);
    } finally {
      fs.closeSync(fd);
    }
  });
});
