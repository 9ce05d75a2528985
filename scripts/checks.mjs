// The two checks `npm test` runs before the tests, at the same time: the lint
// (`npm run lint`: Biome, then knip) and the one compile (`tsc -b
// tsconfig.test.json`, by TypeScript 7's native compiler, the devDependency
// `typescript-native`: ~3.5 s of CPU for src/ and test/ on a fresh clone where
// TypeScript 5.9 took ~22 s, the same JavaScript emitted byte for byte;
// docs/benchmarks.md, "Suite time"). TypeScript 5.9 stays the package
// `typescript` for its JavaScript API and for the consumer checks (a project on
// TypeScript 5 must compile against our declarations). Each check's output is
// printed whole, lint first, once both have ended; the exit status is 1 when
// either failed, naming which.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs a command in the repository, its output kept together; resolves with its status and output. */
function run(label, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (error) => resolve({ label, status: 1, output: `${label}: could not start ${command}: ${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ label, status: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString('utf8') }));
  });
}

const results = await Promise.all([
  run('lint (npm run lint)', process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'lint']),
  run('compile (tsc -b tsconfig.test.json)', process.execPath, [path.join(repo, 'node_modules', 'typescript-native', 'bin', 'tsc'), '-b', 'tsconfig.test.json']),
]);
for (const r of results) process.stdout.write(r.output);
const failed = results.filter((r) => r.status !== 0);
for (const r of failed) process.stderr.write(`npm test: ${r.label} failed (exit ${r.status}); fix it, then run npm test again.\n`);
process.exit(failed.length > 0 ? 1 : 0);
