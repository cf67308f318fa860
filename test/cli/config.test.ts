import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSettings, SETTINGS, UsageError, type SettingName, type SettingSpec } from '../../src/config.js';
import { parseTrustProxy } from '../../src/http/limits.js';

const sampleValue = (s: SettingSpec): [string, unknown] =>
  s.check
    ? ['postgres://h/sample', 'postgres://h/sample']
    : s.oneOf
      ? [s.oneOf[0]!, s.oneOf[0]]
      : s.kind === 'int'
        ? ['1234', 1234]
        : s.kind === 'bool'
          ? ['true', true]
          : ['some-value', 'some-value'];

test('every setting is read from its flag and from its environment variable; the flag wins', () => {
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const spec: SettingSpec = SETTINGS[name];
    const [raw, value] = sampleValue(spec);
    const byFlag = readSettings([name], [`--${spec.flag}`, raw], {});
    assert.equal(byFlag.settings[name], value, `--${spec.flag}`);
    const byEnv = readSettings([name], [], { [spec.env]: raw });
    assert.equal(byEnv.settings[name], value, spec.env);
    const other = spec.check
      ? 'postgres://h/other'
      : spec.oneOf
        ? spec.oneOf[1]!
        : spec.kind === 'int'
          ? '99'
          : spec.kind === 'bool'
            ? 'false'
            : 'other';
    assert.equal(
      readSettings([name], [`--${spec.flag}`, raw], { [spec.env]: other }).settings[name],
      value,
      `--${spec.flag} over ${spec.env}`,
    );
    // An empty flag is no value either: the variable's, not the default.
    assert.equal(
      readSettings([name], [`--${spec.flag}=`], { [spec.env]: raw }).settings[name],
      value,
      `empty --${spec.flag} over ${spec.env}`,
    );
    const fallback = readSettings([name], [], {}).settings[name];
    // An empty variable (VAR= in a unit file, say) is no value: the default, or unset.
    const empty = readSettings([name], [], { [spec.env]: '' }).settings[name];
    if (spec.default !== undefined) {
      assert.equal(String(fallback), spec.default, `default of --${spec.flag}`);
      assert.equal(String(empty), spec.default, `empty ${spec.env}`);
    } else {
      assert.equal(fallback, undefined);
      assert.equal(empty, undefined);
    }
  }
});

test('production-readiness settings: defaults and validation', () => {
  const { settings } = readSettings(
    [
      'requestTimeoutMs',
      'maxUrlLength',
      'maxFilterValues',
      'rateLimitMax',
      'rateLimitWindowMs',
      'followPollMs',
      'shutdownTimeoutMs',
      'follow',
    ],
    [],
    {},
  );
  assert.deepEqual(settings, {
    requestTimeoutMs: 10000,
    maxUrlLength: 16384,
    maxFilterValues: 100,
    rateLimitMax: 0,
    rateLimitWindowMs: 60000,
    followPollMs: 500,
    shutdownTimeoutMs: 30000,
    follow: undefined,
  });
  assert.throws(
    () => readSettings(['maxUrlLength'], ['--max-url-length', '10k'], {}),
    (e: Error) =>
      e instanceof UsageError &&
      /--max-url-length \(EPOCHVIEW_MAX_URL_LENGTH\) must be an integer from 1024 to 536870888, got "10k"/.test(e.message),
  );
});

test('every integer setting has its range: past it (or below it) is a usage error naming the flag', () => {
  const refused = (name: SettingName, raw: string) =>
    assert.throws(
      () => readSettings([name], [`--${SETTINGS[name].flag}`, raw], {}),
      (e: Error) => e instanceof UsageError && e.message.startsWith(`--${SETTINGS[name].flag} (${SETTINGS[name].env}) must be `),
      `--${SETTINGS[name].flag} ${raw}`,
    );
  const accepted = (name: SettingName, raw: string) =>
    assert.equal(
      readSettings([name], [`--${SETTINGS[name].flag}`, raw], {}).settings[name],
      Number(raw),
      `--${SETTINGS[name].flag} ${raw}`,
    );
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const spec: SettingSpec = SETTINGS[name];
    if (spec.kind !== 'int') continue;
    const min = spec.min ?? 0;
    const max = spec.max ?? Number.MAX_SAFE_INTEGER;
    accepted(name, String(min));
    accepted(name, String(max));
    if (min > 0) refused(name, String(min - 1));
    // Past 2^53 a number is not exact: refused too, not rounded.
    refused(name, max === Number.MAX_SAFE_INTEGER ? '9007199254740993' : String(max + 1));
  }
  // What the probe found: a timer past 2^31−1 ms fires at once; statement_timeout takes no more.
  for (const name of ['requestTimeoutMs', 'shutdownTimeoutMs', 'startupTimeoutMs', 'followPollMs', 'rateLimitWindowMs'] as const) {
    assert.equal(SETTINGS[name].max, 2 ** 31 - 1);
    refused(name, '99999999999');
  }
  assert.throws(
    () => readSettings(['requestTimeoutMs'], [], { EPOCHVIEW_REQUEST_TIMEOUT_MS: '3000000000' }),
    /^UsageError: --request-timeout-ms \(EPOCHVIEW_REQUEST_TIMEOUT_MS\) must be an integer from 0 to 2147483647, got "3000000000"$/,
  );
  for (const name of ['port', 'grpcPort'] as const) refused(name, '65536');
  // Zero where it would mean nothing sensible: a URL limit below /healthz, a pool of 10 (pg-pool's
  // reading of 0), a transaction per nothing, a rate limit with no window, polling in a busy loop.
  for (const name of [
    'maxUrlLength',
    'poolSize',
    'batchEvents',
    'maxBlockEvents',
    'rateLimitWindowMs',
    'followPollMs',
    'maxFilterValues',
    'workers',
  ] as const)
    refused(name, '0');
  refused('maxUrlLength', '1023');
  // Zero where it means none: no limit, no cache, each statement alone.
  for (const name of [
    'requestTimeoutMs',
    'shutdownTimeoutMs',
    'startupTimeoutMs',
    'responseCacheMb',
    'rowCacheMb',
    'rateLimitMax',
    'statementSlots',
  ] as const)
    accepted(name, '0');
});

test('a setting given without its value is told what it takes', () => {
  const usage = (names: SettingName[], argv: string[]) => {
    try {
      readSettings(names, argv, {});
    } catch (e) {
      assert.ok(e instanceof UsageError);
      return e.message;
    }
    assert.fail(`no usage error for ${argv.join(' ')}`);
  };
  // Followed by another flag (parseArgs: "argument is ambiguous"), and last ("argument missing").
  assert.equal(
    usage(['demoOnEmpty', 'port'], ['--demo-on-empty', '--port', '1']),
    '--demo-on-empty takes true or false: --demo-on-empty true',
  );
  assert.equal(usage(['port'], ['--port']), '--port takes an integer from 0 to 65535: --port <n>');
  assert.equal(usage(['statementSlots'], ['--statement-slots']), '--statement-slots takes a non-negative integer: --statement-slots <n>');
  assert.equal(usage(['databaseUrl'], ['--database-url']), '--database-url takes a value: --database-url <value>');
  // Other words of parseArgs stay as they are.
  assert.match(usage(['port'], ['--frobnicate']), /^Unknown option '--frobnicate'/);
});

test('--trust-proxy: a number of hops, or addresses, CIDR ranges and range names', () => {
  assert.equal(parseTrustProxy('2'), 2);
  assert.deepEqual(parseTrustProxy('10.0.0.1'), ['10.0.0.1']);
  assert.deepEqual(parseTrustProxy('loopback, 10.0.0.0/8,fd00::/8 ,::1'), ['loopback', '10.0.0.0/8', 'fd00::/8', '::1']);
  for (const bad of ['', 'true', 'proxy.example', '10.0.0.0/33', '10.0.0.0/', '::1/129', '10.0.0.1/8/8', '10.0.0.0/255.0.0.0', '1,,2']) {
    assert.throws(
      () => parseTrustProxy(bad),
      (e: Error) => e.message.endsWith('is not an IP address, a CIDR range, loopback, linklocal, uniquelocal or a number of hops'),
      bad,
    );
  }
});
