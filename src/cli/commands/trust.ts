/**
 * `editwarden trust [--root DIR] [FILE]`: the person's word that a repository's
 * config file may loosen the guard (sandbox off, extra writable paths, the
 * network, higher limits …). Recorded outside the repository with the file's
 * SHA-256, so it counts only for exactly the bytes the person read: one
 * changed byte and every command refuses the file's loosening keys again
 * (src/config/trust-store.ts). `--revoke` forgets a file, `--list` shows every
 * record and whether its file still matches.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { CONFIG_FILE } from '../../config/config.js';
import { inspectConfig } from '../../config/load.js';
import { listTrusted, revokeFile, trustDir, trustFile } from '../../config/trust-store.js';
import { EditwardenError, ErrorCode, ExitCode, toErrorInfo } from '../../errors.js';
import { refuseCommand, writeJson, type Io } from '../output.js';
import { isWithin } from '../../config/path-within.js';
import { launcherBundle } from '../../integrations/client.js';
import { recordGuard } from '../../integrations/guard-install.js';
import { guardRecorded } from './init.js';

interface TrustFlags {
  root?: string;
  guard?: boolean;
  revoke?: boolean;
  list?: boolean;
  json?: boolean;
}

export function registerTrust(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('trust')
    .description("Trust this repository's config by its content hash, so keys that loosen the guard count (--revoke, --list); any change voids it.")
    .argument('[file]', `config file to trust (default: <root>/${CONFIG_FILE})`)
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--guard', "record the project's own editwarden install (node_modules/editwarden) as it is now: the hooks run it only while it matches")
    .option('--revoke', 'forget the trust given to the file')
    .option('--list', 'list every trusted file and whether it still has the trusted content')
    .option('--json', 'print the JSON result')
    .action((file: string | undefined, flags: TrustFlags) => {
      setExit(runTrust(file, flags, io));
    });
}

function runTrust(file: string | undefined, flags: TrustFlags, io: Io): number {
  const json = flags.json === true;
  try {
    if (flags.list) return list(io, json);
    const root = path.resolve(flags.root ?? process.cwd());
    if (flags.guard) return trustGuard(root, io, json);
    const target = path.resolve(file ?? path.join(root, CONFIG_FILE));
    if (flags.revoke) {
      const removed = revokeFile(target);
      if (json) writeJson(io, { ok: true, file: target, revoked: removed });
      else io.stdout.write(removed ? `No longer trusted: ${target}\n` : `${target} was not trusted; nothing to revoke.\n`);
      return ExitCode.OK;
    }
    if (!fs.existsSync(target)) {
      throw new EditwardenError({ code: ErrorCode.CONFIG, message: `${target} does not exist: there is nothing to trust.`, hint: 'Name the config file to trust, or run from the repository root (--root DIR).' });
    }
    const store = trustDir();
    if (store !== null && isWithin(path.resolve(store), root)) {
      throw new EditwardenError({
        code: ErrorCode.CONFIG,
        message: `The trust records (${store}) would live inside the repository ${root}, where the repository could write them; they are not believed there.`,
        hint: 'Set XDG_DATA_HOME (or HOME) to a folder outside the repository, then run editwarden trust again.',
      });
    }
    // Validated first: trusting a file no command can load would only hide the error until later.
    const before = inspectConfig(root, file === undefined ? undefined : target);
    const record = trustFile(target);
    const keys = before.loosenings.map((l) => `${l.key}: ${l.value}`);
    if (json) writeJson(io, { ok: true, ...record, loosening: before.loosenings });
    else {
      io.stdout.write(`Trusted ${record.path} (sha256 ${record.sha256.slice(0, 16)}…), recorded in ${trustDir()}.\n`);
      io.stdout.write(keys.length > 0 ? `Loosening keys now in effect: ${keys.join(', ')}.\n` : 'It only tightens the guard; trust changes nothing until it loosens something.\n');
      io.stdout.write('Any change to the file voids this; run editwarden trust again after reading the change.\n');
    }
    return ExitCode.OK;
  } catch (error) {
    return refuseCommand(toErrorInfo(error), json, io);
  }
}

/** `trust --guard`: the person's word on the project-local install (integrations/guard-install.ts). */
function trustGuard(root: string, io: Io, json: boolean): number {
  const record = recordGuard(root, launcherBundle());
  if (record === null) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `${root} has no project-local editwarden (node_modules/editwarden): there is no install to record.`,
      hint: 'Install it as a devDependency (npm install -D editwarden) and run this again, or install editwarden globally (npm install -g editwarden), which the hooks run without a record.',
    });
  }
  if (json) writeJson(io, { ok: true, guard: record });
  else io.stdout.write(`${guardRecorded(record.parts[0] as string, record.digest)}.\n`);
  return ExitCode.OK;
}

function list(io: Io, json: boolean): number {
  const records = listTrusted();
  if (json) {
    writeJson(io, { ok: true, trusted: records });
    return ExitCode.OK;
  }
  if (records.length === 0) io.stdout.write(`No trusted config files (records live in ${trustDir()}).\n`);
  for (const r of records) io.stdout.write(`${r.state.padEnd(8)} ${r.path}  (trusted ${r.trusted_at})\n`);
  return ExitCode.OK;
}
