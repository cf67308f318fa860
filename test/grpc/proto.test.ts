/**
 * The shipped .proto files (proto/) are the text made from the definitions (src/grpc/proto.ts),
 * and carry the data-node's field numbers (grpc.md §2) for what clients send.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { fileDescriptors, REFLECTED_FILES } from '../../src/grpc/descriptors.js';
import { protoFiles } from '../../src/grpc/proto.js';
import { PROTO_DIR } from '../helpers/grpc.js';

test('proto/ holds the files made from the definitions (epochview proto --out proto writes them again)', () => {
  for (const file of protoFiles()) assert.equal(readFileSync(`${PROTO_DIR}${file.path}`, 'utf8'), file.text, file.path);
});

test("reflection's file descriptors are protoc's, but for the files' options", () => {
  // protoc reads the files under the names reflection gives them.
  const dir = mkdtempSync(join(tmpdir(), 'epochview-protoc-'));
  try {
    for (const f of REFLECTED_FILES) {
      mkdirSync(join(dir, dirname(f.name)), { recursive: true });
      copyFileSync(f.path, join(dir, f.name));
    }
    const set = join(dir, 'set.pb');
    const protoc = spawnSync('protoc', [`-I${dir}`, `--descriptor_set_out=${set}`, ...REFLECTED_FILES.map((f) => f.name)], {
      encoding: 'utf8',
    });
    assert.equal(protoc.status, 0, protoc.stderr);
    const asObject = (file: protobuf.Message) => descriptor.FileDescriptorProto.toObject(file, { defaults: false });
    const expected = (descriptor.FileDescriptorSet.decode(readFileSync(set)) as unknown as { file: protobuf.Message[] }).file.map((f) => {
      const { options: _, ...rest } = asObject(f);
      return rest;
    });
    const served = fileDescriptors(REFLECTED_FILES).map((b) => asObject(descriptor.FileDescriptorProto.decode(b)));
    assert.deepEqual(served, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the request messages' fields: the data-node's numbers, types and presence", () => {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => `${PROTO_DIR}${target}`;
  root.loadSync('data-node/api/v2/trading_data.proto');
  const fields = (name: string) =>
    root
      .lookupType(`datanode.api.v2.${name}`)
      .fieldsArray.map((f) => `${f.options?.proto3_optional ? 'optional ' : f.repeated ? 'repeated ' : ''}${f.type} ${f.name}=${f.id}`);
  assert.deepEqual(fields('ListReferralSetsRequest'), [
    'optional string referralSetId=1',
    'optional Pagination pagination=2',
    'optional string referrer=3',
    'optional string referee=4',
  ]);
  assert.deepEqual(fields('ListTeamMembersStatisticsRequest'), [
    'string teamId=1',
    'optional string partyId=2',
    'optional uint64 aggregationEpochs=3',
    'optional Pagination pagination=4',
  ]);
  assert.deepEqual(fields('ListEpochRewardSummariesRequest'), ['RewardSummaryFilter filter=1', 'optional Pagination pagination=4']);
  assert.deepEqual(fields('RewardSummaryFilter'), [
    'repeated string assetIds=1',
    'repeated string marketIds=2',
    'optional uint64 fromEpoch=3',
    'optional uint64 toEpoch=4',
  ]);
  // family.md §8.
  assert.deepEqual(fields('ListReferralSetRefereesRequest'), [
    'optional string referralSetId=1',
    'optional Pagination pagination=2',
    'optional string referrer=3',
    'optional string referee=4',
    'optional uint32 aggregationEpochs=5',
  ]);
  assert.deepEqual(fields('GetReferralSetStatsRequest'), [
    'optional string referralSetId=1',
    'optional uint64 atEpoch=2',
    'optional string referee=3',
    'optional Pagination pagination=4',
  ]);
  assert.deepEqual(fields('GetCurrentReferralProgramRequest'), []);
  assert.deepEqual(fields('ReferralProgram'), [
    'uint64 version=1',
    'string id=2',
    'repeated vega.BenefitTier benefitTiers=3',
    'int64 endOfProgramTimestamp=4',
    'uint64 windowLength=5',
    'repeated vega.StakingTier stakingTiers=6',
    'optional int64 endedAt=7',
  ]);
  assert.deepEqual(fields('Pagination'), [
    'optional int32 first=1',
    'optional string after=2',
    'optional int32 last=3',
    'optional string before=4',
    'optional bool newestFirst=5',
  ]);
});
