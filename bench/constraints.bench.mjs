// The constraint check of one tool call with 100 allowed and 100 denied
// globs: the tool is allowed, the planned change's path passes the pattern
// lists, max_files and max_lines_changed hold. Goal: p99 ≤ 50 µs (the ADR
// allowed 5 ms). Every path is distinct, so nothing is served from a cache.
import { ConstraintGuard } from '../dist/guard/constraints.js';
import { percentile } from './stats.mjs';

function config() {
  const allowed = [];
  const denied = [];
  for (let i = 0; i < 100; i++) {
    allowed.push(i % 3 === 0 ? `src/module${i}/**/*.ts` : i % 3 === 1 ? `lib/part${i}/**` : `docs/**/chapter${i}*.md`);
    denied.push(i % 2 === 0 ? `**/*_gen${i}.*` : `src/module${i}/secret/**`);
  }
  return {
    max_files: 1_000_000,
    max_lines_changed: 1_000_000_000,
    allowed_patterns: allowed,
    denied_patterns: denied,
    allowed_tools: ['read_file', 'edit_file', 'write_file'],
    max_tokens: 50_000,
    timeout: 300,
    on_violation: 'keep',
  };
}

export async function run() {
  const guard = new ConstraintGuard(config());
  const N = 20_000;
  const paths = Array.from({ length: N + 2000 }, (_, i) => `src/module${(i % 33) * 3}/sub${i}/deep/file${i}.ts`);
  // Warm-up (JIT), then measure.
  for (let i = 0; i < 2000; i++) guard.checkChanges([{ path: paths[N + i], added: 1, removed: 0 }]);
  const samples = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    const tool = guard.checkTool('edit_file', { call: i });
    const v = guard.checkChanges([{ path: paths[i], added: 3, removed: 1 }], { call: i, tool: 'edit_file' });
    samples.push(Number(process.hrtime.bigint() - t0) / 1e3);
    if (tool || v) throw new Error(`unexpected violation for ${paths[i]}: ${(tool ?? v).message}`);
  }
  const p50 = percentile(samples, 50);
  const p99 = percentile(samples, 99);
  return [
    {
      case: 'constraint check per call (100 allow + 100 deny globs)',
      value: `p99 ${p99.toFixed(1)} µs`,
      baseline: `p50 ${p50.toFixed(1)} µs`,
      ratio: `${(p99 / 50).toFixed(2)} of goal`,
      goal: 'p99 ≤ 50 µs',
      note: `${N} calls, distinct paths; ${p99 <= 50 ? 'met' : 'NOT met'}`,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await run());
