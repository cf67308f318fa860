import { readFileSync } from 'node:fs';
import { FIXTURES } from './cli.js';

/** An entry of a test/fixtures/*.expected.json file: a request and its exact answer. */
export interface Expectation {
  name: string;
  /** errors.expected.json: the events file the request is answered from. */
  dataset?: string;
  method?: string;
  request: string;
  status: number;
  body: unknown;
  /** Paths of string fields whose exact text may differ (a parse error's wording, say). */
  loose?: string[];
}

/** The entries of test/fixtures/`<name>.expected.json`. */
export function loadExpectations(name: string): Expectation[] {
  return JSON.parse(readFileSync(`${FIXTURES}${name}.expected.json`, 'utf8')) as Expectation[];
}
