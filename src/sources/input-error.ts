/**
 * Where something is in its input: a line of a text input (NDJSON, numbered from 1), or a byte
 * offset of a binary one (an event file, a broker stream).
 */
export type InputPosition = { line: number } | { offset: number };

export function describePosition(at: InputPosition): string {
  return 'line' in at ? `line ${at.line}` : `byte ${at.offset}`;
}

/**
 * Bad input from any source: says where, which event and which field, and why. The input itself
 * (a file's path, a socket's address) is named by whoever opened it.
 */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly at: InputPosition,
    readonly eventId: string | undefined,
    readonly field: string | undefined,
    readonly reason: string,
  ) {
    super(
      describePosition(at) +
        (eventId !== undefined ? `, event ${eventId}` : '') +
        (field !== undefined ? `, field ${field}` : '') +
        `: ${reason}`,
    );
  }
}
