import type { FixtureExample } from '../../contract/openapi.js';

/**
 * Examples for the OpenAPI document, copied from test/fixtures (their file and name are kept, and
 * test/http/openapi-fixtures.test.ts checks that each one still equals its fixture's answer).
 */
export const EXAMPLES: readonly FixtureExample[] = [];
