// Small statistics helpers shared by the benchmarks.
export function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}
export const median = (s) => percentile(s, 50);
export function timeIt(fn, iterations) {
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples;
}
export async function timeItAsync(fn, iterations) {
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples;
}
export const ms = (x) => `${x.toFixed(3)} ms`;
export const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
