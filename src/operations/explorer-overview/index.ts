import { readItem } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import type { Operation } from '../operation.js';
import { OVERVIEW } from './message.js';
import { OVERVIEW_SQL } from './sql.js';

/** What the explorer's landing page shows: the chain head, the data held, example ids. */
export const explorerOverview: Operation<Record<string, never>> = {
  name: 'Overview',
  service: 'Explorer',
  summary: 'Overview',
  description:
    'The chain head, how much data is held (referral sets, teams, epochs with reward summaries, assets), and ids from the data for example requests.',
  // Its body holds the chain head: a new answer with every block.
  reads: ['block', 'referral-sets', 'teams', 'team-member-stats', 'epoch-reward-summaries', 'assets', 'chain-head'],
  fields: {},
  response: { kind: 'item', message: OVERVIEW },
  errorCode: 0,
  errorMessage: 'failed to get the overview',
  run: (ctx) => readItem(ctx, OVERVIEW_SQL, new SqlParams()),
};
