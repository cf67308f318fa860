import { readPage } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { Operation } from '../operation.js';
import { OVERVIEW, overviewSchemas } from './node.js';
import { OVERVIEW_SQL } from './sql.js';

/** GET /explorer/api/overview — what the explorer's landing page shows: the chain head, the data held, example ids. */
export const explorerOverview: Operation = {
  name: 'Overview',
  // Its body holds the chain head: a new answer with every block.
  reads: ['block', 'referral-sets', 'teams', 'team-member-stats', 'epoch-reward-summaries', 'assets', 'chain-head'],
  path: '/explorer/api/overview',
  tag: 'Explorer',
  summary: 'Overview',
  description:
    'The chain head, how much data is held (referral sets, teams, epochs with reward summaries, assets), and ids from the data for example requests.',
  errorCode: 0,
  errorMessage: 'failed to get the overview',
  fields: {},
  pathParameters: {},
  schemas: overviewSchemas(),
  responseSchema: OVERVIEW.schemaName,
  responseDescription: 'The overview',
  examples: [],
  run: (store) => readPage(store, OVERVIEW_SQL, new SqlParams()),
};
