// A test reporter (scripts/run-tests.mjs): the failed and cancelled tests again, after the run, each
// with its file and error, so that the end of a long log (what CI keeps) says what failed.
import { relative } from 'node:path';

export default async function* failures(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    const err = details?.error;
    // A suite that failed only because a test in it did is not news.
    if (err?.failureType === 'subtestsFailed') continue;
    const cause = err?.cause ?? err;
    const message = String(cause?.stack ?? cause?.message ?? cause ?? 'failed')
      .split('\n')
      .slice(0, 12)
      .join('\n    ');
    failed.push(`${file ? relative(process.cwd(), file) : '?'}\n  ${name} (${err?.failureType ?? 'failed'})\n    ${message}\n`);
  }
  if (failed.length === 0) return;
  yield `\n${failed.length} test(s) failed or were cancelled:\n`;
  for (const f of failed) yield f;
}
