/**
 * The inotify watcher a tree watch runs (tree-watch.ts), as the Python
 * source it is started with (`python3 -c`). Python, not Node's fs.watch:
 * libuv drops IN_Q_OVERFLOW (its watch descriptor is -1, which names no
 * handle), so a watch through fs.watch cannot know that it missed events;
 * this process reads the inotify descriptor itself (ctypes, libc) and says
 * so. It never writes anything but its answers. `.git` is watched too: a
 * command can write a tracked file through a hard link made inside it, and
 * that write is an event only in the folder of the name it used.
 *
 * argv: root, then root-relative folders not to watch; descriptor 3 reads
 * the requests, 4 writes the answers (FIFOs whose names are gone). It watches every folder under the root except those named,
 * adding new folders as they appear. Events are
 * kept as a set until asked: a line `<n>\n` on the request FIFO is answered,
 * after every queued event was read, with NUL-terminated records: `P<path>`
 * a file or link changed (created, written, chmodded, removed, renamed),
 * `T<path>` a folder appeared, went, moved or changed itself, `U<path>` a
 * folder could not be watched (ENOSPC past fs.inotify.max_user_watches, no
 * permission), `L` events were lost (the kernel's queue overflowed, the root
 * itself went, or more than MAX_DIRTY paths changed), then `E<n>`. It exits
 * when the request FIFO reaches its end or its parent is gone. `R` says its
 * first scan is done (every folder watched): before it, nothing is asked.
 */
export const INOTIFY_HELPER = String.raw`import ctypes, errno, os, select, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
root = os.fsencode(sys.argv[1])
skip = set(os.fsencode(a) for a in sys.argv[2:])
MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800 | 0x1000000 | 0x2000000 | 0x4000000
ISDIR, OVERFLOW, IGNORED, SELF = 0x40000000, 0x4000, 0x8000, 0x400 | 0x800
fd = libc.inotify_init1(0o4000 | 0o2000000)
if fd < 0:
    sys.exit(3)
paths = {}
dirty = set()
lost = False
MAX_DIRTY = 50000
def mark(kind, rel):
    global lost
    if len(dirty) >= MAX_DIRTY:
        lost = True
    else:
        dirty.add(kind + rel)
def add_tree(rel):
    stack = [rel]
    while stack:
        d = stack.pop()
        wd = libc.inotify_add_watch(fd, os.path.join(root, d) if d else root, MASK)
        if wd < 0:
            e = ctypes.get_errno()
            if e in (errno.ENOENT, errno.ENOTDIR):
                continue
            mark(b'U', d)
            continue
        paths[wd] = d
        try:
            it = os.scandir(os.path.join(root, d) if d else root)
        except OSError:
            mark(b'U', d)
            continue
        with it:
            for ent in it:
                try:
                    if not ent.is_dir(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                child = d + b'/' + ent.name if d else ent.name
                if child in skip:
                    continue
                stack.append(child)
def drop_tree(rel):
    pre = rel + b'/'
    for wd, d in list(paths.items()):
        if d == rel or d.startswith(pre):
            libc.inotify_rm_watch(fd, wd)
            del paths[wd]
def handle(buf):
    global lost
    i = 0
    while i + 16 <= len(buf):
        wd, mask, _cookie, n = struct.unpack_from('iIII', buf, i)
        name = buf[i + 16:i + 16 + n].rstrip(b'\0')
        i += 16 + n
        if mask & OVERFLOW:
            lost = True
            continue
        d = paths.get(wd)
        if d is None:
            continue
        if mask & IGNORED:
            del paths[wd]
            mark(b'T', d)
            if d == b'':
                lost = True
            continue
        if not name:
            mark(b'T', d)
            if d == b'' and mask & SELF:
                lost = True
            continue
        rel = d + b'/' + name if d else name
        if mask & ISDIR:
            mark(b'T', rel)
            if mask & 0x40:
                drop_tree(rel)
            if mask & (0x80 | 0x100) and rel not in skip:
                add_tree(rel)
        else:
            mark(b'P', rel)
def drain():
    while True:
        try:
            buf = os.read(fd, 1 << 20)
        except BlockingIOError:
            return
        handle(buf)
add_tree(b'')
req, rep = 3, 4
os.write(rep, b'R\0')
parent = os.getppid()
pending = b''
while True:
    ready, _, _ = select.select([fd, req], [], [], 1.0)
    if os.getppid() != parent:
        sys.exit(0)
    if fd in ready:
        drain()
    if req in ready:
        try:
            data = os.read(req, 4096)
        except BlockingIOError:
            data = None
        if data == b'':
            sys.exit(0)
        pending += data or b''
        while b'\n' in pending:
            line, pending = pending.split(b'\n', 1)
            drain()
            out = [x for x in dirty]
            if lost:
                out.append(b'L')
            out.append(b'E' + line)
            dirty.clear()
            lost = False
            view = memoryview(b'\0'.join(out) + b'\0')
            while view:
                n = os.write(rep, view)
                view = view[n:]
`;
