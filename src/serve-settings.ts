import type { Settings } from './config.js';

/**
 * The settings `serve` reads, in the order its help lists them. Apart from serve.ts, so that the
 * CLI's other commands start without loading the HTTP server (a test suite runs them by the hundred).
 */
export const SERVE_SETTINGS = [
  'port',
  'host',
  'grpcPort',
  'grpcHost',
  'databaseUrl',
  'dataDir',
  'poolSize',
  'statementSlots',
  'logLevel',
  'demoOnEmpty',
  'batchEvents',
  'maxBlockEvents',
  'follow',
  'followPollMs',
  'brokerListen',
  'brokerBufferDir',
  'chainId',
  'requestTimeoutMs',
  'maxUrlLength',
  'maxFilterValues',
  'responseCacheMb',
  'rowCacheMb',
  'rateLimitMax',
  'rateLimitWindowMs',
  'trustProxy',
  'graphqlUpstream',
  'startupTimeoutMs',
  'shutdownTimeoutMs',
  'workers',
] as const;

export type ServeSettings = Pick<Settings, (typeof SERVE_SETTINGS)[number]>;
