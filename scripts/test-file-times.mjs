// A test reporter: wall time per test file (first to last event), slowest first.
export default async function* fileTimes(source) {
  const first = new Map(),
    last = new Map();
  const t0 = Date.now();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = Date.now() - t0;
    if (!first.has(file)) first.set(file, now);
    last.set(file, now);
  }
  const rows = [...first.keys()].map((f) => [f, (last.get(f) - first.get(f)) / 1000, first.get(f) / 1000]);
  rows.sort((a, b) => b[1] - a[1]);
  for (const [f, s, start] of rows) yield `${s.toFixed(1).padStart(7)} s  (from ${start.toFixed(0)} s)  ${f}\n`;
  yield `total ${(Date.now() - t0) / 1000} s\n`;
}
