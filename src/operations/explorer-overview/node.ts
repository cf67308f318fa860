import { described, ID, INT64, nullable, ref, UINT64, type SchemaObject } from '../../contract/openapi.js';
import { messageJsonSql, messageSchema, type MessageSpec } from '../../pagination/message.js';
import { sqlId, sqlNullable, sqlPlainString } from '../../pagination/sql-json.js';

const count = (name: string, column: string, what: string) => ({
  name,
  schema: described(UINT64, what),
  sql: (o: string) => sqlPlainString(`${o}.${column}::text`),
});
const exampleId = (name: string, column: string, what: string) => ({
  name,
  schema: nullable(ID, `${what}; null when there is none.`),
  sql: (o: string) => sqlNullable(`${o}.${column}`, sqlPlainString(sqlId(`${o}.${column}`))),
});

export const CHAIN_HEAD: MessageSpec = {
  schemaName: 'explorerChainHead',
  description: 'The last applied block.',
  fields: [
    { name: 'height', schema: described(UINT64, 'Its height.'), sql: (o) => sqlPlainString(`${o}.height::text`) },
    { name: 'blockTime', schema: described(INT64, 'Its time: Unix nanoseconds.'), sql: (o) => sqlPlainString(`${o}.block_time::text`) },
  ],
};

export const COUNTS: MessageSpec = {
  schemaName: 'explorerCounts',
  description: 'How much data is held (uint64 as strings).',
  fields: [
    count('referralSets', 'referral_sets', 'Referral sets.'),
    count('teams', 'teams', 'Teams.'),
    count('epochs', 'epochs', 'Epochs with reward summaries.'),
    count('assets', 'assets', 'Assets with reward summaries or an asset event.'),
  ],
};

export const EXAMPLES: MessageSpec = {
  schemaName: 'explorerExamples',
  description: 'Ids from the data, for example requests that answer something.',
  fields: [
    exampleId('referralSetId', 'referral_set_id', 'The newest referral set'),
    exampleId('referee', 'referee', 'A referee in a referral set'),
    exampleId(
      'teamId',
      'team_id',
      'A team listed by ListTeamMembersStatistics for `teamEpochs` epochs (the one with most members among those listed for the most epochs, up to 5)',
    ),
    {
      name: 'teamEpochs',
      schema: nullable(UINT64, 'The `aggregationEpochs` the example team is listed for; null without one.'),
      sql: (o) => sqlNullable(`${o}.team_epochs`, sqlPlainString(`${o}.team_epochs::text`)),
    },
    exampleId('assetId', 'asset_id', 'The asset of the newest reward summary'),
  ],
};

/** The overview over its one row (see OVERVIEW_SQL): every nested message written from its columns. */
export const OVERVIEW: MessageSpec = {
  schemaName: 'explorerOverview',
  description: 'The chain head, the data held, and example ids.',
  fields: [
    {
      name: 'chainHead',
      schema: nullable(ref(CHAIN_HEAD.schemaName), 'Null before the first block.'),
      sql: (o) => sqlNullable(`${o}.height`, messageJsonSql(CHAIN_HEAD, o)),
    },
    {
      name: 'lastEndedEpoch',
      schema: nullable(
        UINT64,
        "The last ended epoch (the highest epoch seen ending or carrying team statistics): the end of ListTeamMembersStatistics' window.",
      ),
      sql: (o) => sqlNullable(`${o}.last_ended_epoch`, sqlPlainString(`${o}.last_ended_epoch::text`)),
    },
    { name: 'counts', schema: ref(COUNTS.schemaName), sql: (o) => messageJsonSql(COUNTS, o) },
    { name: 'examples', schema: ref(EXAMPLES.schemaName), sql: (o) => messageJsonSql(EXAMPLES, o) },
  ],
};

/** The schemas the overview adds. */
export function overviewSchemas(): Record<string, SchemaObject> {
  return Object.fromEntries([CHAIN_HEAD, COUNTS, EXAMPLES, OVERVIEW].map((m) => [m.schemaName, messageSchema(m)]));
}
