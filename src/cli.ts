#!/usr/bin/env node
// The command line's entry (commands.ts holds the commands). Node's compile cache comes first
// (Node 22.1 and later): V8's code for the modules a command loads is kept on disk, under the
// system's temporary folder (NODE_COMPILE_CACHE names another; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off), which takes a sixth off starting `serve` or `ingest`. It covers the modules loaded
// after it is enabled, so the commands are imported after. Worker threads (PGlite's) and the
// processes of `serve --workers` read their setting from the environment: it is put there.
import module from 'node:module';

const cache = (module as { enableCompileCache?: () => { directory?: string } }).enableCompileCache?.();
if (cache?.directory) process.env.NODE_COMPILE_CACHE = cache.directory;
await import('./commands.js');
