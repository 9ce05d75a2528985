#!/usr/bin/env node
// Runs every bench/*.bench.mjs (each exports `async run()` returning rows) and
// prints one table. Benchmarks import the compiled library from dist/.
// Usage: node bench/run.mjs [name-filter] [--goals]
// A bench that exports `onlyWhenNamed = true` (suite: `npm test` on a fresh
// clone, minutes long) runs only when a name filter selects it.
// A row with a `goal` also says whether it was `met` (computed by its bench
// from the ratio measured in this run); `--goals` prints only those rows.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const goalsOnly = args.includes('--goals');
const filter = args.find((a) => !a.startsWith('--'));
const files = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs') && (!filter || f.includes(filter)))
  .sort();
const rows = [];
for (const file of files) {
  const mod = await import(pathToFileURL(path.join(here, file)).href);
  if (mod.onlyWhenNamed && !filter) {
    process.stderr.write(`bench: ${file} skipped (run it by name: node bench/run.mjs ${file.replace('.bench.mjs', '')})\n`);
    continue;
  }
  process.stderr.write(`bench: ${file}…\n`);
  const out = await mod.run();
  for (const row of out) rows.push({ bench: file.replace('.bench.mjs', ''), ...row });
}
const columns = ['bench', 'case', 'value', 'baseline', 'ratio', 'goal', 'met', 'note'];
const shown = goalsOnly ? rows.filter((r) => r.goal !== undefined) : rows;
const cells = shown.map((r) => columns.map((c) => (r[c] === undefined ? '' : String(r[c]))));
const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
const line = (vals) => '| ' + vals.map((v, i) => v.padEnd(widths[i])).join(' | ') + ' |';
console.log(line(columns));
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
for (const row of cells) console.log(line(row));
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'latest.json'), JSON.stringify(rows, null, 2));
