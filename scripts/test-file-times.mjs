// A test reporter (scripts/run-tests.mjs with EPOCHVIEW_TEST_TIMES): each test file's time, the
// sum of its top-level tests' durations (a file runs its tests one after another), slowest first.
export default async function* fileTimes(source) {
  const ms = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
    ms.set(event.data.file, (ms.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...ms].sort((a, b) => b[1] - a[1]);
  for (const [file, t] of rows) yield `${(t / 1000).toFixed(1).padStart(7)} s  ${file}\n`;
  yield `${(rows.reduce((s, [, t]) => s + t, 0) / 1000).toFixed(1).padStart(7)} s  in all\n`;
}
