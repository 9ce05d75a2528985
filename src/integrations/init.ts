/**
 * `editwarden init <client>`: the settings changes that wire editwarden into
 * a client, computed as (file, before, after) so a dry run can show the
 * diff and a real run writes only what differs. Merging keeps every key it
 * does not own; editwarden's own entries are replaced in place, so a second
 * run changes nothing. It writes only the client's settings files, never a
 * project file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { atomicWriteFile } from '../workspace/atomic.js';
import type { ClientIntegration } from './client.js';

export interface SettingsChange {
  path: string;
  /** Relative to the root, for messages. */
  relative: string;
  before: string | null;
  after: string;
  changed: boolean;
}

export function planInit(client: ClientIntegration, root: string, command: readonly string[]): SettingsChange[] {
  return client.configFiles(root, command).map((file) => {
    let before: string | null = null;
    try {
      before = fs.readFileSync(file.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const after = file.render(before);
    return { path: file.path, relative: path.relative(root, file.path).split(path.sep).join('/'), before, after, changed: after !== before };
  });
}

export function applyInit(changes: readonly SettingsChange[]): void {
  for (const c of changes) {
    if (!c.changed) continue;
    fs.mkdirSync(path.dirname(c.path), { recursive: true });
    atomicWriteFile(c.path, Buffer.from(c.after), { mode: 0o644 });
  }
}

export function diffOf(c: SettingsChange): string {
  return createTwoFilesPatch(c.before === null ? '/dev/null' : `a/${c.relative}`, `b/${c.relative}`, c.before ?? '', c.after, '', '', { context: 3 });
}
