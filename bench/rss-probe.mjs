// Preloaded (node --import) into the ingest process by the benchmark: on exit, reports the
// process's peak resident set size (getrusage ru_maxrss, KiB) and the CPU time it used (user and
// system, all its threads; less sensitive to a busy machine than the wall clock) on stderr.
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write(`\nbench-peak-rss-kib ${usage.maxRSS}\nbench-cpu-us ${usage.userCPUTime + usage.systemCPUTime}\n`);
});
