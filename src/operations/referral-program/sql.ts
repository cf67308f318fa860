import { messageJsonSql } from '../../pagination/message.js';
import { CURRENT_REFERRAL_PROGRAM } from './message.js';

/** The program's one row, with the chain head; an empty body without a program (one row always, for readItem). */
export const CURRENT_PROGRAM_SQL = `
  SELECT (SELECT h.height::text FROM chain_head AS h) AS head_height,
         (SELECT h.block_time::text FROM chain_head AS h) AS head_time,
         coalesce((SELECT ${messageJsonSql(CURRENT_REFERRAL_PROGRAM, 'p')} FROM referral_program AS p), '') AS body`;
