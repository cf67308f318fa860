import type { MessageDef } from '../../contract/message.js';

/**
 * An asset as the explorer shows it, over a row with the asset's id (bytea) and, when an asset
 * event was seen, its symbol, name, decimals, quantum and status (else NULL).
 */
export const ASSET = {
  name: 'explorer.Asset',
  doc: 'An asset: the details of its latest asset event, null while none was seen.',
  fields: [
    { name: 'id', doc: "The asset's id.", type: 'id', sql: (a) => `${a}.id` },
    { name: 'symbol', doc: 'Its symbol, e.g. `USDT`.', type: 'string', nullable: true, sql: (a) => `${a}.symbol` },
    { name: 'name', doc: 'Its name.', type: 'string', nullable: true, sql: (a) => `${a}.name` },
    {
      name: 'decimals',
      doc: 'Decimal places of its amounts: an amount is an integer of 10^-decimals units (uint64 as a string).',
      type: 'uint64',
      nullable: true,
      sql: (a) => `${a}.decimals`,
    },
    {
      name: 'quantum',
      doc: 'Its quantum: the amount worth about one US dollar.',
      type: 'decimal',
      nullable: true,
      sql: (a) => `${a}.quantum`,
    },
    {
      name: 'status',
      doc: 'Its status, e.g. `STATUS_ENABLED`.',
      type: 'enum',
      nullable: true,
      schema: { pattern: '^STATUS_[A-Z_]+$' },
      sql: (a) => `${a}.status`,
    },
  ],
} as const satisfies MessageDef;

/** The explorer's asset list (not paged: a chain has tens of assets); `assets` are the JSON texts of the rows' ASSET, joined. */
export const LIST_ASSETS_RESPONSE = {
  name: 'explorer.ListAssetsResponse',
  doc: 'ListAssets response.',
  fields: [{ name: 'assets', doc: 'Every asset, by id.', type: ASSET, list: true, sql: (r) => `${r}.assets` }],
} as const satisfies MessageDef;
