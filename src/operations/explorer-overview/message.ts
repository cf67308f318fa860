import type { Field, MessageDef } from '../../contract/message.js';

const count = <Name extends string>(name: Name, column: string, doc: string) =>
  ({ name, doc, type: 'uint64', sql: (o: string) => `${o}.${column}` }) as const satisfies Field;
const exampleId = <Name extends string>(name: Name, column: string, what: string) =>
  ({
    name,
    doc: `${what}; null when there is none.`,
    type: 'id',
    nullable: true,
    sql: (o: string) => `${o}.${column}`,
  }) as const satisfies Field;

export const CHAIN_HEAD = {
  name: 'explorer.ChainHead',
  doc: 'The last applied block.',
  fields: [
    { name: 'height', doc: 'Its height.', type: 'uint64', sql: (o) => `${o}.height` },
    { name: 'blockTime', doc: 'Its time: Unix nanoseconds.', type: 'int64', sql: (o) => `${o}.block_time` },
  ],
} as const satisfies MessageDef;

export const COUNTS = {
  name: 'explorer.Counts',
  doc: 'How much data is held (uint64 as strings).',
  fields: [
    count('referralSets', 'referral_sets', 'Referral sets.'),
    count('teams', 'teams', 'Teams.'),
    count('epochs', 'epochs', 'Epochs with reward summaries.'),
    count('assets', 'assets', 'Assets with reward summaries or an asset event.'),
  ],
} as const satisfies MessageDef;

export const EXAMPLES = {
  name: 'explorer.Examples',
  doc: 'Ids from the data, for example requests that answer something.',
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
      doc: 'The `aggregationEpochs` the example team is listed for; null without one.',
      type: 'uint64',
      nullable: true,
      sql: (o) => `${o}.team_epochs`,
    },
    exampleId('assetId', 'asset_id', 'The asset of the newest reward summary'),
  ],
} as const satisfies MessageDef;

/** The overview over its one row (see sql.ts): every nested message written from its columns. */
export const OVERVIEW = {
  name: 'explorer.Overview',
  doc: 'The chain head, the data held, and example ids.',
  fields: [
    { name: 'chainHead', doc: 'Null before the first block.', type: CHAIN_HEAD, nullable: true, sql: (o) => `${o}.height` },
    {
      name: 'lastEndedEpoch',
      doc: "The last ended epoch (the highest epoch seen ending or carrying team statistics): the end of ListTeamMembersStatistics' window.",
      type: 'uint64',
      nullable: true,
      sql: (o) => `${o}.last_ended_epoch`,
    },
    { name: 'counts', doc: 'How much data is held.', type: COUNTS, sql: (o) => o },
    { name: 'examples', doc: 'Ids for example requests.', type: EXAMPLES, sql: (o) => o },
  ],
} as const satisfies MessageDef;
