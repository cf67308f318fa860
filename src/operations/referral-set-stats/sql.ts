import type { PositionOf } from '../../contract/message.js';
import { cursorSql, messageJsonSql } from '../../pagination/message.js';
import { sqlPlan, type PageRequest } from '../../pagination/page.js';
import { pageStatement, type PageSql } from '../../pagination/page-sql.js';
import { SqlParams } from '../../pagination/sql-params.js';
import { REFERRAL_SET_STATS, REFERRAL_SET_STATS_CURSOR } from './message.js';

type Position = PositionOf<typeof REFERRAL_SET_STATS_CURSOR>;

/** What GetReferralSetStats lists (family.md §5.2): an epoch (given, or E* when null) or every epoch of a set's referee, narrowed by set and referee. */
export interface StatsFilter {
  epoch: bigint | null;
  history: boolean;
  setId?: string | undefined;
  referee?: string | undefined;
}

const flip = (o: 'ASC' | 'DESC') => (o === 'ASC' ? 'DESC' : 'ASC');
const beyond = (o: 'ASC' | 'DESC') => (o === 'ASC' ? '>' : '<');
const before = (o: 'ASC' | 'DESC', inclusive: boolean) => (o === 'ASC' ? '<' : '>') + (inclusive ? '=' : '');

/**
 * The page statement of GetReferralSetStats. The base order is (epoch ↓, set ↑, party ↑) and
 * newestFirst shows it reversed (family.md §4, keep), so the key runs in two directions: epoch one
 * way, (set, party) the other. A position beyond the cursor is either in the cursor's epoch with
 * (set, party) beyond it, or in an epoch beyond it: two branches, each a range of an index
 * (the primary key (epoch, set_id, party) under one epoch, or (party, epoch, set_id) for a
 * referee), merged in key order with LIMIT n + 1. Set-level columns come from
 * referral_set_epochs by primary key.
 */
export function setStatsPage(filter: StatsFilter, req: PageRequest<Position>): { sql: PageSql; params: SqlParams } {
  const params = new SqlParams();
  const plan = sqlPlan(req);
  // (set, party) are fetched in the plan's order, the epoch in the other.
  const setOrder = plan.fetchOrder;
  const epochOrder = flip(setOrder);
  const base: string[] = [];
  if (!filter.history) {
    base.push(`x.epoch = ${filter.epoch === null ? '(SELECT max(m.epoch) FROM referral_set_epochs AS m)' : params.bigint(filter.epoch)}`);
  }
  if (filter.setId !== undefined) base.push(`x.set_id = ${params.id(filter.setId)}`);
  if (filter.referee !== undefined) base.push(`x.party = ${params.id(filter.referee)}`);

  const from = 'referral_set_referee_stats AS x';
  const order = (e: 'ASC' | 'DESC', s: 'ASC' | 'DESC') => `x.epoch ${e}, x.set_id ${s}, x.party ${s}`;
  const where = (conditions: string[]) => (conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '');
  const limit = params.bigint(plan.fetchLimit);
  const c = req.cursor;
  const cursor = c ? { epoch: params.bigint(c.epoch), set: params.id(c.setId), party: params.id(c.party) } : null;
  const inEpoch = (op: string) =>
    cursor ? [`x.epoch = ${cursor.epoch}`, `(x.set_id, x.party) ${op} (${cursor.set}, ${cursor.party})`] : [];
  const pastEpoch = (op: string) => (cursor ? [`x.epoch ${op} ${cursor.epoch}`] : []);
  const branch = (conditions: string[]) =>
    `(SELECT x.epoch, x.set_id, x.party, x.volume, x.discount_factors FROM ${from} ${where([...base, ...conditions])}
       ORDER BY ${order(epochOrder, setOrder)} LIMIT ${limit})`;
  const selected = cursor ? `${branch(inEpoch(beyond(setOrder)))} UNION ALL ${branch(pastEpoch(beyond(epochOrder)))}` : branch([]);
  const probe = (conditions: string[]) =>
    `(SELECT true FROM ${from} ${where([...base, ...conditions])} ORDER BY ${order(flip(epochOrder), flip(setOrder))} LIMIT 1)`;
  const otherSide = cursor
    ? `COALESCE(${probe(inEpoch(before(setOrder, true)))}, ${probe(pastEpoch(before(epochOrder, false)))}, false)`
    : 'false';
  const rows = `
    SELECT u.epoch, u.set_id, u.party, ${messageJsonSql(REFERRAL_SET_STATS, 'u')} AS node, ${cursorSql(REFERRAL_SET_STATS_CURSOR, 'u')} AS cursor
      FROM (SELECT x.*, e.block_time, e.running_volume, e.rewards_multiplier, e.was_eligible, e.referrer_taker_volume,
                   e.reward_factors, e.reward_factors_multiplier
              FROM (SELECT * FROM (${selected}) AS x ORDER BY ${order(epochOrder, setOrder)} LIMIT ${limit}) AS x
              JOIN referral_set_epochs AS e ON e.epoch = x.epoch AND e.set_id = x.set_id) AS u
     ORDER BY u.epoch ${epochOrder}, u.set_id ${setOrder}, u.party ${setOrder}`;
  return {
    sql: pageStatement('stats', req, {
      sql: rows,
      key: ['epoch', 'set_id', 'party'],
      probeOrders: [flip(epochOrder), flip(setOrder), flip(setOrder)],
      otherSide,
    }),
    params,
  };
}
