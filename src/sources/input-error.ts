/**
 * Where something is in its input: a line of a text input (NDJSON, numbered from 1), or a byte
 * offset of a binary one (an event file, a broker stream; of the uncompressed bytes of a gzipped
 * file), and the file when the input has several or names one.
 */
export type InputPosition = ({ line: number } | { offset: number }) & { file?: string };

export function describePosition(at: InputPosition): string {
  return (at.file !== undefined ? `${at.file}: ` : '') + ('line' in at ? `line ${at.line}` : `byte ${at.offset}`);
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

/** The same error, placed in `file` (for errors raised where the file is not known). */
export function inFile(err: InputError, file: string): InputError {
  return err.at.file !== undefined ? err : new InputError({ ...err.at, file }, err.eventId, err.field, err.reason);
}
