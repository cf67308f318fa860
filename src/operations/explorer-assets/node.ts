import { DECIMAL, described, ID, nullable, UINT64 } from '../../contract/openapi.js';
import type { MessageSpec } from '../../pagination/message.js';
import { sqlId, sqlJsonString, sqlNullable, sqlPlainString } from '../../pagination/sql-json.js';

/**
 * An asset as the explorer shows it, over a row with the asset's id (bytea) and, when an asset
 * event was seen, its symbol, name, decimals, quantum and status (else NULL).
 */
export const ASSET: MessageSpec = {
  schemaName: 'explorerAsset',
  description: 'An asset: the details of its latest asset event, null while none was seen.',
  fields: [
    { name: 'id', schema: described(ID, "The asset's id."), sql: (a) => sqlPlainString(sqlId(`${a}.id`)) },
    {
      name: 'symbol',
      schema: nullable({ type: 'string' }, 'Its symbol, e.g. `USDT`.'),
      sql: (a) => sqlNullable(`${a}.symbol`, sqlJsonString(`${a}.symbol`)),
    },
    { name: 'name', schema: nullable({ type: 'string' }, 'Its name.'), sql: (a) => sqlNullable(`${a}.name`, sqlJsonString(`${a}.name`)) },
    {
      name: 'decimals',
      schema: nullable(UINT64, 'Decimal places of its amounts: an amount is an integer of 10^-decimals units (uint64 as a string).'),
      sql: (a) => sqlNullable(`${a}.decimals`, sqlPlainString(`${a}.decimals::text`)),
    },
    {
      name: 'quantum',
      schema: nullable(DECIMAL, 'Its quantum: the amount worth about one US dollar.'),
      sql: (a) => sqlNullable(`${a}.quantum`, sqlPlainString(`${a}.quantum::text`)),
    },
    {
      name: 'status',
      schema: nullable({ type: 'string', pattern: '^STATUS_[A-Z_]+$' }, 'Its status, e.g. `STATUS_ENABLED`.'),
      sql: (a) => sqlNullable(`${a}.status`, sqlPlainString(`${a}.status`)),
    },
  ],
};
