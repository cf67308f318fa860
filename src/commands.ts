import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readSettings, settingsHelp, UsageError, type SettingName, type Settings } from './config.js';
import { migrate } from './db/migrate.js';
import { SCHEMA } from './schema.js';
import { openStore } from './db/open.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { StoreUnavailableError, type Store } from './db/store.js';
import { waitUntilReachable } from './db/wait-for-store.js';
import { WriterBusyError, WriterSession } from './db/writer-lock.js';
import { writeDemoChain } from './demo/chain.js';
import { DEMO_FORMATS, isDemoFormat } from './demo/evts.js';
import { DEMO_SCALE_NAMES, isDemoScale } from './demo/scales.js';
import { readCheckpoint } from './ingest/ingest.js';
import { ingestWithReport } from './ingest/report.js';
import { readEvents } from './sources/input.js';
import { InputError } from './sources/input-error.js';
import { SERVE_SETTINGS } from './serve-settings.js';

const STORE_SETTINGS = ['databaseUrl', 'dataDir', 'poolSize', 'startupTimeoutMs'] as const satisfies readonly SettingName[];

/**
 * The least `demo --our-share`: 999 quiet blocks for each block of ours (the small chain then takes
 * about 10 s and 800 MB); each block of ours costs 1/share blocks, so 1e-300 would never end.
 */
const MIN_OUR_SHARE = 0.001;

/**
 * A reader of stdout that went away (`epochview demo | head`): the command ends quietly, as Unix
 * tools do, with the status a shell gives those (killed by SIGPIPE, 128 + 13): a plain pipeline
 * does not mind it, and `set -o pipefail` still learns that the output was cut short.
 */
const EXIT_BROKEN_PIPE = 141;
const isBrokenPipe = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';

/** `ingest --no-wait` found another writer: try again later (EX_TEMPFAIL of sysexits.h). */
const EXIT_WRITER_BUSY = 75;

interface Command {
  summary: string;
  usage: string;
  settings: readonly SettingName[];
  extraHelp?: string;
  run(argv: string[]): Promise<number>;
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const err = (text: string) => process.stderr.write(`${text}\n`);

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'serve the HTTP API',
    usage: 'epochview serve [options]',
    settings: SERVE_SETTINGS,
    async run(argv) {
      const { settings, positionals } = readSettings(this.settings, argv);
      if (positionals.length > 0)
        throw new UsageError(`serve takes no arguments (got ${positionals.join(' ')}); a file to follow is given with --follow`);
      const { serveWorkers } = await import('./cluster.js');
      return serveWorkers(settings, out);
    },
  },
  ingest: {
    summary: 'ingest bus events (NDJSON, an event file, gzipped or not) from a file, a directory of files or stdin (-)',
    usage: 'epochview ingest <file | directory | -> [options]',
    settings: [...STORE_SETTINGS, 'batchEvents', 'maxBlockEvents'],
    extraHelp: `${'  --no-wait'.padEnd(30)}when another process holds the writer lock of the database, exit ${EXIT_WRITER_BUSY} at once instead of waiting for it`,
    async run(argv) {
      const { settings, positionals, extra } = readSettings(this.settings, argv, process.env, { 'no-wait': { type: 'boolean' } });
      if (positionals.length !== 1) throw new UsageError('ingest takes one file or directory (or - for stdin)');
      const input = readEvents(positionals[0]!);
      for (const entry of input.notRead) err(`warning: not read: ${entry}`);
      const noWait = extra['no-wait'] === true;
      let store: Store;
      try {
        store = await openReachableStore(settings);
      } catch (e) {
        // The embedded store's folder is another process's (a serve that seeds or follows): it
        // cannot be waited for, and with --no-wait that is the busy writer's exit.
        if (!(noWait && e instanceof DataDirInUseError)) throw e;
        err(`${e.message}\nnot waiting (--no-wait): nothing was ingested; run again once it is done`);
        return EXIT_WRITER_BUSY;
      }
      let writer: Store = store;
      try {
        // On a server, every write goes through the one connection that holds the writer lock.
        if (store.kind === 'postgres') {
          writer = await WriterSession.acquire(settings.databaseUrl!, {
            name: 'ingest',
            wait: !noWait,
            onWait: (holder) => err(`waiting for the writer lock of ${store.location}, held by ${holder} (--no-wait: exit instead)`),
          });
        }
        await migrate(writer, SCHEMA);
        const fraction = () => (input.totalBytes ? input.bytesRead() / input.totalBytes : undefined);
        await ingestWithReport(writer, input.batches, {
          batchEvents: settings.batchEvents,
          maxBlockEvents: settings.maxBlockEvents,
          fraction,
        });
        return 0;
      } catch (e) {
        if (e instanceof WriterBusyError) {
          err(`${e.message}\nnot waiting (--no-wait): nothing was ingested; run again once it is done`);
          return EXIT_WRITER_BUSY;
        }
        if (e instanceof InputError) {
          err(`error: ${e.message}`);
          err(
            `blocks before the bad one are applied (checkpoint ${(await readCheckpoint(store)) ?? 'none'}); fix the input and run the same command again to continue`,
          );
          return 1;
        }
        if (e instanceof StoreUnavailableError && writer !== store) {
          // The writer's connection (and with it the lock) is gone: nothing more was written.
          err(`error: ${e.message}`);
          err(`the blocks committed before stay applied; run the same command again to continue`);
          return 1;
        }
        throw e;
      } finally {
        if (writer !== store) await writer.close();
        await store.close();
      }
    },
  },
  demo: {
    summary: 'write a deterministic synthetic chain as bus events (NDJSON or an event file)',
    usage:
      'epochview demo [--scale small|medium|mainnet] [--seed N] [--our-share X] [--other-events N] [--format ndjson|evts|evts.gz] [--out FILE]',
    settings: [],
    extraHelp:
      '  --scale <name>                small, medium or mainnet (default small)\n  --seed <n>                    seed of the generator (default 1)\n' +
      `  --our-share <x>               share of blocks carrying events of ours, from ${MIN_OUR_SHARE} to 1 (default 1); quiet blocks, with a time\n` +
      "                                update and other kinds only, go between the others (a real chain's: 0.059)\n" +
      '  --other-events <n>            mean events of kinds epochview skips per block, besides the two that come with each event\n' +
      "                                of ours (default 3.25, the real fixture's; a busy network's blocks carry hundreds)\n" +
      "  --format <name>               ndjson (default), evts (an event file, as a core's [Broker.File] writes) or evts.gz\n  --out <file>                  where to write (default stdout)",
    async run(argv) {
      const { extra, positionals } = readSettings([], argv, process.env, {
        scale: { type: 'string' },
        seed: { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string' },
        'our-share': { type: 'string' },
        'other-events': { type: 'string' },
      });
      if (positionals.length > 0)
        throw new UsageError(`demo takes no arguments (got ${positionals.join(' ')}); a file to write is given with --out`);
      const scale = (extra.scale as string | undefined) ?? 'small';
      if (!isDemoScale(scale)) throw new UsageError(`--scale must be one of ${DEMO_SCALE_NAMES.join(', ')}`);
      const seedText = (extra.seed as string | undefined) ?? '1';
      if (!/^\d+$/.test(seedText) || !Number.isSafeInteger(Number(seedText)))
        throw new UsageError('--seed must be an integer from 0 to 2^53-1');
      const format = (extra.format as string | undefined) ?? 'ndjson';
      if (!isDemoFormat(format)) throw new UsageError(`--format must be one of ${DEMO_FORMATS.join(', ')}`);
      const shareText = extra['our-share'] as string | undefined;
      const ourShare = shareText === undefined ? 1 : Number(shareText);
      if (!/^[\d.eE+-]+$/.test(shareText ?? '1') || !(ourShare >= MIN_OUR_SHARE && ourShare <= 1))
        throw new UsageError(`--our-share must be a number from ${MIN_OUR_SHARE} to 1`);
      const otherText = extra['other-events'] as string | undefined;
      const otherEvents = otherText === undefined ? undefined : Number(otherText);
      if (otherEvents !== undefined && !(/^[\d.]+$/.test(otherText!) && otherEvents >= 0 && otherEvents <= 10_000))
        throw new UsageError('--other-events must be a number from 0 to 10000');
      const target = extra.out ? createWriteStream(extra.out as string) : process.stdout;
      const counts = await writeDemoChain({ scale, seed: Number(seedText), ourShare, otherEvents }, target, format);
      if (extra.out)
        await new Promise<void>((resolve, reject) =>
          (target as ReturnType<typeof createWriteStream>).end((e?: Error | null) => (e ? reject(e) : resolve())),
        );
      const share = shareText === undefined ? '' : `, ${counts.blocksWithOurs} of ${counts.blocks} blocks with events of ours`;
      err(`demo ${scale} seed ${seedText}: ${counts.events} events, ${counts.bytes} bytes${share}`);
      return 0;
    },
  },
  proto: {
    summary: "print the gRPC service's .proto files (the npm package ships them in proto/), or write them into a folder",
    usage: 'epochview proto [--out DIR]',
    settings: [],
    extraHelp:
      '  --out <dir>                   write them under this folder, at the paths they import each other by, instead of printing them',
    async run(argv) {
      const { extra, positionals } = readSettings([], argv, process.env, { out: { type: 'string' } });
      if (positionals.length > 0) throw new UsageError('proto takes no arguments');
      const { protoFiles } = await import('./grpc/proto.js');
      const dir = extra.out as string | undefined;
      for (const file of protoFiles()) {
        if (dir === undefined) {
          out(`// ${file.path}\n${file.text}`);
          continue;
        }
        const path = join(dir, file.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, file.text);
        err(`wrote ${path}`);
      }
      return 0;
    },
  },
  migrate: {
    summary: 'bring the schema up to date',
    usage: 'epochview migrate [options]',
    settings: [...STORE_SETTINGS],
    async run(argv) {
      const { settings, positionals } = readSettings(this.settings, argv);
      if (positionals.length > 0) throw new UsageError(`migrate takes no arguments (got ${positionals.join(' ')})`);
      const store = await openReachableStore(settings);
      try {
        const applied = await migrate(store, SCHEMA);
        const done = [
          ...(applied.migrations.length ? [`migrations ${applied.migrations.join(', ')}`] : []),
          ...(applied.repeatable.length ? [`${applied.repeatable.join(', ')} (made from the definitions)`] : []),
        ];
        out(done.length ? `applied ${done.join(' and ')} to ${store.location}` : `schema of ${store.location} is up to date`);
        return 0;
      } finally {
        await store.close();
      }
    },
  },
};

/** The configured store, once it answers: a PostgreSQL server is waited for with backoff, each attempt said on stderr. */
async function openReachableStore(settings: Pick<Settings, (typeof STORE_SETTINGS)[number]>): Promise<Store> {
  const store = await openStore({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir, poolSize: settings.poolSize });
  try {
    await waitUntilReachable(store, {
      timeoutMs: settings.startupTimeoutMs,
      onRetry: (attempt, delayMs, cause) =>
        err(`${store.location} unreachable (attempt ${attempt}: ${cause.message}); retrying in ${delayMs} ms`),
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  return store;
}

function help(): string {
  return [
    'epochview: Vega referral sets, team statistics and epoch reward summaries over HTTP (data-node v2 REST).',
    '',
    'usage: epochview <command> [options]   (epochview <command> --help for its options)',
    '',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`),
  ].join('\n');
}

function commandHelp(c: Command): string {
  return [`usage: ${c.usage}`, '', c.summary, '', 'options:', settingsHelp(c.settings), c.extraHelp ?? '']
    .filter((l) => l !== '')
    .join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out(help());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    err(`unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    out(commandHelp(command));
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if (isBrokenPipe(e)) return EXIT_BROKEN_PIPE;
    if (e instanceof UsageError) {
      err(`${e.message}\n\n${commandHelp(command)}`);
      return 2;
    }
    err(`error: ${(e as Error).message}`);
    return 1;
  }
}

// A write to stdout that fails is reported as an 'error' event, after the write (a full disk
// under `proto > file`); unheard, Node would end with its stack. A command that waits on its
// writes (demo) reports the error itself; any other is reported here, at exit.
let outputError: Error | undefined;
process.stdout.on('error', (e) => {
  outputError ??= e;
});
process.on('exit', (code) => {
  if (outputError === undefined || code !== 0) return;
  if (isBrokenPipe(outputError)) {
    process.exitCode = EXIT_BROKEN_PIPE;
    return;
  }
  err(`error: ${outputError.message}`);
  process.exitCode = 1;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    err(`fatal: ${(e as Error).stack ?? e}`);
    process.exitCode = 1;
  },
);
