/**
 * Reading a small file that someone else may have put there: a repository's
 * `.editwarden.yml`, the person's own config, a trust record, one of
 * editwarden's state files. A hostile clone (or an agent) can make any of
 * them a FIFO, a device or a link to one: a plain `readFileSync` then waits
 * for a writer that never comes (a client's hook hangs until the client
 * kills it, and a killed hook lets the tool through) or reads without end
 * (`/dev/zero`).
 *
 * Must never: block on open (O_NONBLOCK: a FIFO opens at once, and is then
 * refused), read anything but a regular file, or read more than `maxBytes`.
 * `follow: false` also refuses a symlink (O_NOFOLLOW) rather than read what
 * it points to; with `follow`, the final file is checked, wherever it is.
 */
import fs from 'node:fs';

export interface SmallFileOptions {
  /** Largest size read; a larger file is refused. */
  maxBytes: number;
  /** Whether a symlink is followed (a config may be one); state files are never read through one. */
  follow: boolean;
}

/** The file is there but not one to read: not a regular file, or over the size cap. */
export class NotASmallFile extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file} ${reason}`);
    this.name = 'NotASmallFile';
  }
}

/** The file's bytes. Throws the fs error (ENOENT when absent; ELOOP for a link with `follow: false`) or NotASmallFile. */
export function readSmallFile(file: string, options: SmallFileOptions): Buffer {
  const flags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (options.follow ? 0 : fs.constants.O_NOFOLLOW);
  const fd = fs.openSync(file, flags);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotASmallFile(file, `is not a regular file (${kindOf(st)})`);
    if (st.size > options.maxBytes) throw new NotASmallFile(file, `is ${st.size} bytes, over the ${options.maxBytes} bytes read here`);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return st.isDirectory() ? 'a folder' : 'not a file';
}
