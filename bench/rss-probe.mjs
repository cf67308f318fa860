// Preloaded (node --import) into the ingest process by the benchmark: on exit, reports the
// process's peak resident set size (getrusage ru_maxrss, KiB) on stderr.
process.on('exit', () => {
  process.stderr.write(`\nbench-peak-rss-kib ${process.resourceUsage().maxRSS}\n`);
});
