// Assets as the explorer names them, and amounts in their units.

import type { Asset } from './api.js';
import { applyDecimals, groupDigits } from './numbers.js';

/** Whether amounts of the asset can be shown in its units (an asset event gave symbol and decimals). */
export function isKnown(asset: Asset | undefined): asset is Asset & { symbol: string; decimals: string } {
  return asset?.symbol != null && asset.decimals != null;
}

/** The asset's symbol, else its id shortened. */
export function assetLabel(asset: Asset): string {
  if (isKnown(asset)) return asset.name && asset.name !== asset.symbol ? `${asset.symbol} · ${asset.name}` : asset.symbol;
  return asset.id.length > 16 ? `${asset.id.slice(0, 8)}…${asset.id.slice(-6)} (unknown asset)` : `${asset.id} (unknown asset)`;
}

/** How amounts (integers of the smallest unit) of an asset are shown: exact, in its units when known. */
export interface Units {
  /** "1,234.5 USDT", or "1,234,500,000" (raw) when the asset is unknown. */
  format(raw: string): string;
  /** The amount in the units the chart's axis shows, as a float for drawing. */
  plot(raw: string): number;
  /** What the numbers are in, for captions. */
  name: string;
}

export function unitsOf(asset: Asset | undefined): Units {
  if (!isKnown(asset)) {
    return { format: (raw) => groupDigits(raw), plot: (raw) => Number(raw), name: 'raw integer amounts (asset details unknown)' };
  }
  const decimals = Number(asset.decimals);
  return {
    format: (raw) => `${groupDigits(applyDecimals(raw, decimals))} ${asset.symbol}`,
    plot: (raw) => Number(applyDecimals(raw, decimals)),
    name: asset.symbol,
  };
}
