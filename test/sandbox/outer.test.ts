/**
 * The outer-sandbox judgement (sandbox/outer.ts) on what the kernel shows:
 * Codex 0.171's workspace-write sandbox, as seen from a command inside it
 * (its mount table, status and network, recorded here with the project
 * and temp folders as parameters), is recognised; each rule, broken on its
 * own, fails closed; and the test process itself (no sandbox around it) is
 * never taken for one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectOuterSandbox, judgeOuterSandbox, parseMountinfo, type OuterSandboxInput } from '../../src/sandbox/outer.js';

const ROOT = '/tmp/run/ew-int-acaBRQ';
const TMPDIR = '/tmp/run/ew-clienttmp-RLkE6C';

/** The mount table a command saw inside Codex's `-s workspace-write` (bubblewrap + seccomp), trimmed to its kinds of line. */
function codexMountinfo(root = ROOT, extra: string[] = []): string {
  return [
    '67 42 254:0 / / ro,nosuid,nodev,relatime - ext4 /dev/vda rw,discard',
    '68 67 0:25 / /mnt/sandboxing/model_tools_env/v1/python ro,nosuid,nodev,relatime - tmpfs model_tools_unavailable ro,size=4k,mode=755',
    '69 67 0:21 / /proc ro,nosuid,nodev,relatime - proc proc rw',
    '70 67 0:22 / /sys ro,nosuid,nodev,relatime - sysfs sysfs rw',
    '82 67 0:6 / /dev ro,nosuid,nodev,relatime - devtmpfs devtmpfs rw,size=12334460k',
    // Writable, but covered by a read-only mount on the same point: not reachable.
    '83 82 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw',
    '84 83 0:27 / /dev/shm ro,nosuid,nodev,relatime - tmpfs tmpfs rw',
    '87 82 0:42 / /dev rw,nosuid,nodev,relatime - tmpfs tmpfs rw,mode=755',
    '88 87 0:6 /null /dev/null rw,nosuid,relatime - devtmpfs devtmpfs rw',
    '94 87 0:43 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw,mode=620,ptmxmode=666',
    '96 67 254:0 /tmp /tmp rw,nosuid,nodev,relatime - ext4 /dev/vda rw,discard',
    '98 96 0:46 / /tmp/.git ro,nosuid,nodev,relatime - tmpfs tmpfs rw,mode=555',
    `103 96 254:0 ${root} ${root} rw,nosuid,nodev,relatime - ext4 /dev/vda rw,discard`,
    `104 103 254:0 ${root}/.git ${root}/.git ro,nosuid,nodev,relatime - ext4 /dev/vda rw,discard`,
    `63 103 254:0 ${root}/.codex ${root}/.codex ro,nosuid,nodev,relatime - ext4 /dev/vda rw,discard`,
    `107 96 254:0 ${TMPDIR} ${TMPDIR} rw,nosuid,nodev,relatime - ext4 /dev/vda rw,discard`,
    '113 69 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
    ...extra,
    '',
  ].join('\n');
}

const CODEX_STATUS = 'Name:\tnode\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n';
const NET_LO = 'Inter-|   Receive\n face |bytes\n    lo: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n';

function codex(over: Partial<OuterSandboxInput> = {}): OuterSandboxInput {
  return { root: ROOT, status: CODEX_STATUS, mountinfo: codexMountinfo(), netDev: NET_LO, mountNs: 'mnt:[4026532182]', otherMountNs: ['mnt:[4026532182]'], network: false, env: { CODEX_THREAD_ID: 't' }, ...over };
}

describe("Codex's workspace-write sandbox is recognised from what the kernel shows", () => {
  it('writes confined to the project and /tmp, no capabilities, no_new_privs, seccomp, one mount namespace, loopback only', () => {
    const v = judgeOuterSandbox(codex());
    expect(v).toEqual({ ok: true, sandbox: { name: "Codex's sandbox", writable: ['/dev', '/dev/null', '/dev/pts', '/tmp', ROOT, TMPDIR, '/proc'], network: false, writableProtected: [] } });
    // The environment only names it.
    expect(judgeOuterSandbox(codex({ env: {} }))).toMatchObject({ ok: true, sandbox: { name: 'an outer sandbox' } });
  });

  it("names the protected files it leaves writable: Codex keeps .git/ and .codex/ read-only, not editwarden's", () => {
    const protectedPaths = ['.git', '.git/hooks', '.codex', '.editwarden', '.editwarden.yml', '.claude/settings.json'].map((p) => `${ROOT}/${p}`);
    const v = judgeOuterSandbox(codex({ protectedPaths }));
    expect(v).toMatchObject({ ok: true, sandbox: { writableProtected: ['.editwarden', '.editwarden.yml', '.claude/settings.json'].map((p) => `${ROOT}/${p}`) } });
  });

  it('reads octal escapes in mount points (a project folder with a space)', () => {
    const root = '/tmp/run/my project';
    const v = judgeOuterSandbox(codex({ root, mountinfo: codexMountinfo('/tmp/run/my\\040project') }));
    expect(v.ok).toBe(true);
    expect(parseMountinfo(codexMountinfo('/tmp/run/my\\040project'))?.some((m) => m.point === root)).toBe(true);
  });
});

describe('each rule, broken on its own, fails closed', () => {
  const cases: Array<[string, Partial<OuterSandboxInput>, RegExp]> = [
    ['a capability held', { status: CODEX_STATUS.replace('CapEff:\t0000000000000000', 'CapEff:\t0000000000200000') }, /capabilities/],
    ['no_new_privs off', { status: CODEX_STATUS.replace('NoNewPrivs:\t1', 'NoNewPrivs:\t0') }, /no_new_privs/],
    ['no seccomp filter', { status: CODEX_STATUS.replace('Seccomp:\t2', 'Seccomp:\t0') }, /seccomp/],
    ['status unreadable', { status: '' }, /capabilities/],
    ['the root file system writable', { mountinfo: codexMountinfo().replace('/ / ro,', '/ / rw,') }, /root is not mounted read-only/],
    ['a home folder writable', { mountinfo: codexMountinfo(ROOT, ['120 67 254:0 /home/me /home/me rw,relatime - ext4 /dev/vda rw']) }, /\/home\/me is mounted writable/],
    ['another project writable', { mountinfo: codexMountinfo(ROOT, ['121 67 254:0 /srv/other /srv/other rw,relatime - ext4 /dev/vda rw']) }, /\/srv\/other is mounted writable/],
    ['the project not writable (a root the sandbox keeps read-only)', { root: '/srv/project' }, /not writable/],
    ['a mount table it cannot read', { mountinfo: 'garbage line\n' }, /mount table/],
    ['another mount namespace visible', { otherMountNs: ['mnt:[4026532182]', 'mnt:[4026531840]'] }, /another mount namespace/],
    ['a process whose namespace cannot be read', { otherMountNs: [null] }, /another mount namespace/],
    ['network while sandbox.network is off', { netDev: `${NET_LO}  eth0: 1 2 3\n` }, /network/],
  ];
  for (const [name, over, why] of cases) {
    it(name, () => {
      const v = judgeOuterSandbox(codex(over));
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.why).toMatch(why);
    });
  }

  it('network the policy allows is no reason to refuse, and is reported', () => {
    expect(judgeOuterSandbox(codex({ network: true, netDev: `${NET_LO}  eth0: 1 2 3\n` }))).toMatchObject({ ok: true, sandbox: { network: true } });
  });

  it('any writable mount added outside the project, /tmp, /var/tmp, /dev and /proc fails closed; one added inside them does not', () => {
    const segment = fc.stringMatching(/^[a-z.]{1,6}$/);
    fc.assert(
      fc.property(fc.constantFrom('/', '/home/', '/etc/', '/var/', '/tmp/', '/var/tmp/', '/dev/', '/proc/', `${ROOT}/`, '/tmpx/', `${ROOT}x/`), fc.array(segment, { minLength: 1, maxLength: 3 }), fc.boolean(), (base, parts, ro) => {
        const point = `${base}${parts.join('/')}`.replace(/\/+$/, '');
        const v = judgeOuterSandbox(codex({ mountinfo: codexMountinfo(ROOT, [`130 67 0:99 / ${point} ${ro ? 'ro' : 'rw'},relatime - ext4 /dev/vda rw`]) }));
        const confined = ['/tmp', '/var/tmp', '/dev', '/proc', ROOT].some((d) => point === d || point.startsWith(`${d}/`));
        expect(v.ok).toBe(ro || confined);
      }),
      { numRuns: 300 },
    );
  });
});

describe('outside any sandbox', () => {
  it('this test process is not taken for one (it can start bubblewrap; it holds no seccomp filter of a sandbox)', () => {
    expect(detectOuterSandbox(process.cwd(), false).ok).toBe(false);
    expect(detectOuterSandbox('/tmp', false, 'darwin').ok).toBe(false);
  });
});
