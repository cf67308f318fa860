// Value formatting for the demo chain: nanosecond timestamps and decimal amounts, as strings
// built from integers (no floating-point formatting reaches the output).

import type { Rng } from './random.js';

/** Unix nanoseconds as a decimal string, from whole seconds and a nanosecond part. */
export function nsString(sec: number, nanos: number): string {
  return String(sec) + (1e9 + nanos).toString().slice(1);
}

/**
 * The chain clock: block times in whole seconds plus a sub-second part that is zero, whole
 * milliseconds, whole microseconds or arbitrary nanoseconds (so some timestamps carry
 * sub-microsecond digits). Every block is at least one second after the previous one.
 */
export class ChainClock {
  sec: number;
  nanos = 0;

  constructor(
    private readonly rng: Rng,
    startSec: number,
  ) {
    this.sec = startSec;
  }

  /** Moves to `sec` (not before the current second + 1) with a fresh sub-second part. */
  moveTo(sec: number): string {
    this.sec = Math.max(sec, this.sec + 1);
    this.nanos = this.randomNanos();
    return this.now();
  }

  now(): string {
    return nsString(this.sec, this.nanos);
  }

  private randomNanos(): number {
    switch (this.rng.int(4)) {
      case 0:
        return 0;
      case 1:
        return this.rng.int(1000) * 1_000_000;
      case 2:
        return this.rng.int(1_000_000) * 1000;
      default:
        return this.rng.int(1_000_000_000);
    }
  }
}

/**
 * `digits / 10^places` as a canonical decimal string: no exponent, no trailing fractional
 * zeros, no leading zeros in the integer part ("0" for zero).
 */
export function shiftDecimal(digits: string, places: number): string {
  let intPart: string;
  let frac: string;
  if (digits.length > places) {
    intPart = digits.slice(0, digits.length - places);
    frac = digits.slice(digits.length - places);
  } else {
    intPart = '0';
    frac = '0'.repeat(places - digits.length) + digits;
  }
  let end = frac.length;
  while (end > 0 && frac.charCodeAt(end - 1) === 48) end--;
  frac = frac.slice(0, end);
  let start = 0;
  while (start < intPart.length - 1 && intPart.charCodeAt(start) === 48) start++;
  intPart = intPart.slice(start);
  return frac === '' ? intPart : `${intPart}.${frac}`;
}

const POW10 = [1, 10, 100, 1000, 10_000, 100_000];

/**
 * A random reward amount for an asset whose quantum is 10^quantumPlaces base units.
 * Returns the amount in base units (integer string) and in quanta (decimal string).
 * About half the amounts are "round" in quanta (12.5, 0.49999, 3, 250) and half carry full
 * precision; assets with 18 decimals regularly give amounts above 2^64.
 */
export function rewardAmount(rng: Rng, quantumPlaces: number): { amount: string; quantumAmount: string } {
  let amount: string;
  if (rng.chance(0.5)) {
    // mantissa of 1..5 significant digits, scaled by 10^exp quanta, exp in -5..3
    const mantissa = String(1 + rng.int((POW10[rng.range(1, 5)] as number) - 1));
    const exp = Math.max(rng.range(-5, 3), -quantumPlaces);
    const zeros = quantumPlaces + exp;
    amount = mantissa + '0'.repeat(zeros);
  } else {
    // 10^-3 .. 10^5 quanta with every base-unit digit random
    const length = Math.max(1, quantumPlaces + rng.range(-3, 5));
    amount = rng.positiveInt(length);
  }
  return { amount, quantumAmount: shiftDecimal(amount, quantumPlaces) };
}

/** A share in (0, 1] with up to 6 decimals, e.g. "0.0125". */
export function percentString(rng: Rng): string {
  return shiftDecimal(String(1 + rng.int(999_999)), 6);
}

/** A notional volume: mostly positive, sometimes "0", rarely above 2^64. */
export function notionalVolume(rng: Rng): string {
  const r = rng.float();
  if (r < 0.08) return '0';
  if (r < 0.085) return rng.positiveInt(rng.range(20, 24));
  return rng.positiveInt(rng.range(2, 13));
}
