import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP_OPTION = { help: { type: 'boolean', short: 'h', default: false } } as const;

/**
 * A bench command's options, parsed strictly, with `-h`/`--help` printing `help` and exiting 0;
 * a bad option, and every `fail` of the caller, print the message and `help` and exit 2.
 */
export function benchArgs<const T extends Options>(help: string, options: T) {
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n\n${help}\n`);
    process.exit(2);
  };
  const parse = () =>
    parseArgs<{ options: T & typeof HELP_OPTION; strict: true }>({ options: { ...options, ...HELP_OPTION }, strict: true });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    return fail((err as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${help}\n`);
    process.exit(0);
  }
  return { values: parsed.values, fail };
}
