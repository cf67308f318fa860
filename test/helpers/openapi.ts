/**
 * Checking JSON values against the service's OpenAPI document: response lookup by request, a
 * strict JSON-schema validator (ajv, draft 2020-12 as OpenAPI 3.1 uses) and a key-order check.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument, ReferenceObject, ResponseObject, SchemaObject } from '../../src/contract/openapi.js';

const INT32 = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
const inRange = (min: bigint, max: bigint) => (s: string) => /^-?[0-9]+$/.test(s) && BigInt(s) >= min && BigInt(s) <= max;

/** A validator for the document's schemas: strict mode, every error, OpenAPI's formats. */
export class SchemaChecker {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly defs: Record<string, unknown>;

  constructor(readonly doc: OpenApiDocument) {
    this.ajv.addFormat('int32', { type: 'number', validate: INT32 });
    this.ajv.addFormat('int64', { type: 'string', validate: inRange(-(1n << 63n), (1n << 63n) - 1n) });
    this.ajv.addFormat('uint64', { type: 'string', validate: inRange(0n, (1n << 64n) - 1n) });
    // The data-node's own document (test/http/vega-rest-client) also names these.
    for (const format of ['double', 'float']) this.ajv.addFormat(format, { type: 'number', validate: () => true });
    this.ajv.addFormat('byte', { type: 'string', validate: (s: string) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) });
    this.defs = toDefs(doc.components.schemas) as Record<string, unknown>;
  }

  /** Validates a value against a schema of the document; returns ajv's error text or null. */
  check(schema: SchemaObject, value: unknown): string | null {
    const key = JSON.stringify(schema);
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $defs: this.defs, ...(toDefs(schema) as object) });
      this.cache.set(key, validate);
    }
    return validate(value) ? null : this.ajv.errorsText(validate.errors, { separator: '\n' });
  }

  /** A `#/components/...` reference's target. */
  resolve<T>(value: T | ReferenceObject): T {
    let v: unknown = value;
    while (v && typeof v === 'object' && '$ref' in v && typeof v.$ref === 'string' && Object.keys(v).length === 1) {
      v = v.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), this.doc);
      if (v === undefined) throw new Error(`dangling reference ${(value as ReferenceObject).$ref}`);
    }
    return v as T;
  }

  /**
   * The documented response for a request: the operation whose path matches, the status's
   * response; a path no operation has gets components.responses.NotFound.
   */
  responseFor(method: string, target: string, status: number): { operation: string | null; response: ResponseObject } {
    const path = target.split('?')[0]!;
    // In the router's order: a static segment before a parameter (family.md §1); a parameter may be empty.
    const rank = (template: string) =>
      template
        .split('/')
        .map((segment) => (segment.startsWith('{') ? '1' : '0'))
        .join('');
    const templates = Object.entries(this.doc.paths).sort(([a], [b]) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
    for (const [template, item] of templates) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]*')}$`);
      if (!pattern.test(path)) continue;
      const documented = item.get.responses[String(status)];
      if (!documented) throw new Error(`${method} ${path}: status ${status} is not documented for ${item.get.operationId}`);
      return { operation: item.get.operationId, response: this.resolve(documented) };
    }
    const notFound = this.doc.components.responses.NotFound;
    if (status !== 404 || !notFound) throw new Error(`${method} ${path}: no documented operation, status ${status}`);
    return { operation: null, response: notFound };
  }

  /**
   * Where the keys of a value differ in order from the schema's properties (proto field order),
   * following references, allOf, and array items; null when every object matches.
   */
  keyOrderMismatch(schema: SchemaObject, value: unknown, at = '$'): string | null {
    const s = this.resolve(schema);
    if (s.allOf) {
      for (const part of s.allOf) {
        const r = this.resolve(part);
        if (r.properties || r.allOf || r.items) return this.keyOrderMismatch(r, value, at);
      }
    }
    if (Array.isArray(value) && s.items) {
      for (const [i, v] of value.entries()) {
        const m = this.keyOrderMismatch(s.items, v, `${at}[${i}]`);
        if (m) return m;
      }
      return null;
    }
    if (value && typeof value === 'object' && s.properties) {
      const got = Object.keys(value);
      // A key the schema does not require (a proto3 optional field, unset) may be left out; the rest keep their order.
      const required = new Set(s.required ?? Object.keys(s.properties));
      const want = Object.keys(s.properties).filter((k) => required.has(k) || got.includes(k));
      if (JSON.stringify(want) !== JSON.stringify(got)) return `${at}: keys ${got.join(',')} but the schema has ${want.join(',')}`;
      for (const k of want) {
        const m = this.keyOrderMismatch(s.properties[k]!, (value as Record<string, unknown>)[k], `${at}.${k}`);
        if (m) return m;
      }
    }
    return null;
  }
}

/** A copy with `#/components/schemas/X` references turned into `#/$defs/X`. */
function toDefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toDefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/$defs/') : toDefs(v),
      ]),
    );
  }
  return value;
}
