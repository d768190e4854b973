#!/usr/bin/env node
// fdatasync group commits and zero-copy sends share libuv's thread pool; its default of 4 is too few.
process.env.UV_THREADPOOL_SIZE ??= '16';
// Start to ready is mostly compiling kafkite's ES modules (a CPU profile: 320 of 410 ms); V8's code cache on disk
// lets a restart skip that. NODE_COMPILE_CACHE names another directory, NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { main } = await import('../dist/src/cli.js');

main(process.argv.slice(2));
