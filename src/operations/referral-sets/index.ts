import { formatId, requireId } from '../../contract/ids.js';
import { DETAIL, invalidArgument } from '../../contract/errors.js';
import { PAGINATION_FIELDS, parseQuery, type FieldSpec } from '../../contract/query.js';
import { cursorField, decodeCursorObject, encodeCursor, formatRfc3339Nanos, CursorError, parseRfc3339Nanos } from '../../pagination/cursor.js';
import { pageJson, pageRequest, type PaginationParams } from '../../pagination/page.js';
import { fetchKeysetPage, type KeysetSource } from '../../pagination/sql.js';
import type { Operation } from '../operation.js';

/** GET /api/v2/referral-sets — contract §5 ListReferralSets. */
const FIELDS = {
  ...PAGINATION_FIELDS,
  referralSetId: { keys: ['referralSetId', 'referral_set_id'], protoName: 'referral_set_id', kind: 'string' },
  referrer: { keys: ['referrer'], protoName: 'referrer', kind: 'string' },
  referee: { keys: ['referee'], protoName: 'referee', kind: 'string' },
} as const satisfies Record<string, FieldSpec>;

interface Position {
  createdAt: bigint;
  id: string;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

function decodePosition(cursor: string): Position {
  const fields = decodeCursorObject(cursor);
  const raw = fields.get('createdat');
  // A missing (or null) time is Go's zero time, before every set.
  const ns = raw === undefined || raw === null ? INT64_MIN : typeof raw === 'string' ? parseRfc3339Nanos(raw) : undefined;
  if (ns === undefined) throw new CursorError('invalid cursor');
  const createdAt = ns < INT64_MIN ? INT64_MIN : ns > INT64_MAX ? INT64_MAX : ns;
  return { createdAt, id: cursorField.id(fields, 'ID') };
}

function encodePosition(createdAt: bigint | string, id: string): string {
  return encodeCursor(`{"CreatedAt":"${formatRfc3339Nanos(createdAt)}","ID":"${id}"}`);
}

const checkedId = (text: string) => requireId(text, (message) => invalidArgument(DETAIL.referralSets, message));

interface Row {
  id: string;
  referrer: string;
  created_at: string;
  updated_at: string;
  total_members: string;
}

export const listReferralSets: Operation = {
  name: 'ListReferralSets',
  path: '/api/v2/referral-sets',
  errorCode: DETAIL.referralSets,
  errorMessage: 'failed to list referral sets',
  fields: FIELDS,
  async run(store, input) {
    const q = parseQuery(input.query, FIELDS);
    const req = pageRequest(q as PaginationParams, decodePosition);
    // Every id given is validated, even one that precedence then ignores.
    const setId = q.referralSetId === undefined ? undefined : checkedId(q.referralSetId as string);
    const referrer = q.referrer === undefined ? undefined : checkedId(q.referrer as string);
    const referee = q.referee === undefined ? undefined : checkedId(q.referee as string);

    // One filter applies: the set, else the referrer's sets, else the referee's current set.
    const [where, param] =
      setId !== undefined
        ? [`s.id = decode($1, 'hex')`, setId]
        : referrer !== undefined
          ? [`s.referrer = decode($1, 'hex')`, referrer]
          : referee !== undefined
            ? [`s.id = (SELECT r.set_id FROM referral_set_referees AS r WHERE r.referee = decode($1, 'hex'))`, referee]
            : [undefined, undefined];
    const source: KeysetSource = {
      columns: `encode(s.id, 'hex') AS id, encode(s.referrer, 'hex') AS referrer, s.created_at::text AS created_at,
                s.updated_at::text AS updated_at, (s.referee_count + 1)::text AS total_members`,
      from: 'referral_sets AS s',
      where: where === undefined ? [] : [where],
      params: param === undefined ? [] : [param],
      key: ['s.created_at', 's.id'],
      keyTypes: ['bigint', 'bytea'],
    };
    const cursor = req.cursor ? [String(req.cursor.createdAt), req.cursor.id] : null;
    const page = await fetchKeysetPage<Row>(store, source, req, cursor);
    // Ids are hex or well-known names and the numbers decimal text: no escaping needed.
    const body = pageJson('referralSets', req, page.rows, page.otherSide, (r) => {
      const id = formatId(r.id);
      return {
        node: `{"id":"${id}","referrer":"${formatId(r.referrer)}","createdAt":"${r.created_at}","updatedAt":"${r.updated_at}","totalMembers":"${r.total_members}"}`,
        cursor: encodePosition(r.created_at, id),
      };
    });
    return { body, head: page.head };
  },
};
