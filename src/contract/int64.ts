/** The ranges of the data-node's 64-bit integer fields (int64, uint64), as bigints. */
export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;
