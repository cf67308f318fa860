import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { ApiError } from '../contract/errors.js';
import { checkedUint64, type FieldSpec } from '../contract/query.js';
import type { RequestOf } from '../operations/operation.js';
import { type ItemResult, PageResult } from '../pagination/result.js';
import { type GrpcMethod, PACKAGE, type RequestMessage } from './methods.js';
import { TRADING_DATA_PROTO } from './proto.js';

/**
 * The protobuf side of the gRPC door: request bytes to an operation's request fields, a page to
 * response bytes, an error to its status details. The messages are those of the shipped .proto
 * files (made from the definitions: proto.ts), loaded by protobufjs. A page's nodes are the
 * proto3 JSON the store renders for REST; protobufjs writes that JSON's values (64-bit integers
 * as decimal strings) to their proto types, so the two doors show one rendering.
 *
 * An edge is encoded once per row text: the RowCache keeps each row's text as a Buffer, and the
 * edge's bytes are kept beside it (a WeakMap, so for as long as the text is kept). A page of
 * kept rows is then its edges' bytes framed, as REST joins their texts: parsing the JSON and
 * encoding it again took 90% of a 1,000-row page's CPU time (measured: bench/grpc-vs-rest.ts).
 */

/** proto/ in the package: beside dist/ (and src/) . */
export const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  return root.loadSync(TRADING_DATA_PROTO, { keepCase: false });
}

const root = loadRoot();

/** A request message decoded: fields by their JSON (lowerCamelCase) names, 64-bit integers as strings, absent ones left out. */
type Decoded = Record<string, unknown>;

/** The decoded request is malformed protobuf (bad bytes, a value of the wrong wire type). */
export class MalformedRequestError extends Error {
  override name = 'MalformedRequestError';
}

/** A proto field name's JSON name, made once per name (a regular expression per field per call was 1% of a call's CPU). */
const jsonNames = new Map<string, string>();
function camelCase(protoName: string): string {
  let name = jsonNames.get(protoName);
  if (name === undefined) {
    name = protoName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    jsonNames.set(protoName, name);
  }
  return name;
}

/** An operation field's value from the decoded message, as the REST door's query parsing would type it. */
function fieldValue(spec: FieldSpec, value: unknown): unknown {
  if (spec.repeated) return (value as unknown[] | undefined) ?? [];
  if (value === undefined) return spec.keys.length > 0 ? undefined : ''; // a plain (path) string field is '' when absent
  return spec.kind === 'uint64' ? checkedUint64(spec, BigInt(value as string)) : value;
}

function readFields(message: RequestMessage, decoded: Decoded, specs: Record<string, FieldSpec>, out: Record<string, unknown>): void {
  for (const f of message.fields) {
    if ('message' in f) readFields(f.message, (decoded[camelCase(f.name)] as Decoded | undefined) ?? {}, specs, out);
    else out[f.field] = fieldValue(specs[f.field]!, decoded[camelCase(specs[f.field]!.protoName)]);
  }
}

/** Encodes and decodes one method's messages. */
export class MethodCodec {
  private readonly requestType: protobuf.Type;
  /** An item's response message (GetCurrentReferralProgram), written from its JSON. */
  private readonly itemType: protobuf.Type | undefined;
  private readonly edgeType: protobuf.Type;
  private readonly pageInfoType: protobuf.Type;
  /** The tags of the response's connection, the connection's edges and its page info. */
  private readonly tags: { connection: number; edge: number; pageInfo: number };
  /** Each kept row text's edge, encoded. */
  private readonly encoded = new WeakMap<Buffer, Uint8Array>();

  constructor(readonly method: GrpcMethod) {
    const response = method.operation.response;
    this.requestType = root.lookupType(`${PACKAGE}.${method.request.name}`);
    this.pageInfoType = root.lookupType(`${PACKAGE}.PageInfo`);
    if (response.kind === 'item') {
      this.itemType = root.lookupType(response.message.name);
      this.edgeType = this.itemType;
      this.tags = { connection: 0, edge: 0, pageInfo: 0 };
      return;
    }
    const responseType = root.lookupType(response.message);
    const connectionType = root.lookupType(response.connection);
    this.edgeType = root.lookupType(response.edge);
    const tag = (type: protobuf.Type, field: string) => (type.fields[field]!.id << 3) | LENGTH_DELIMITED;
    this.tags = {
      connection: tag(responseType, response.key),
      edge: tag(connectionType, 'edges'),
      pageInfo: tag(connectionType, 'pageInfo'),
    };
  }

  /** The operation's request from the request message's bytes (unknown fields are skipped, as proto3 says). */
  request(bytes: Buffer): RequestOf<Record<string, FieldSpec>> {
    let decoded: Decoded;
    try {
      // As a Uint8Array, not a Buffer: protobufjs' Buffer reader cuts a string short at the end of
      // the bytes where its plain reader refuses a length that runs past them.
      const plain = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      decoded = this.requestType.toObject(this.requestType.decode(plain), { longs: String }) as Decoded;
    } catch (err) {
      throw new MalformedRequestError((err as Error).message);
    }
    const out: Record<string, unknown> = {};
    readFields(this.method.request, decoded, this.method.operation.fields, out);
    return out as RequestOf<Record<string, FieldSpec>>;
  }

  /**
   * The response message's bytes for a page: the connection (its edges, then its page info, as
   * protobufjs writes them) as the response's one field, in a buffer of `alloc`'s.
   */
  response(result: PageResult | ItemResult, alloc: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
    if (!(result instanceof PageResult)) {
      if (this.itemType === undefined) throw new Error(`${this.method.operation.name}: an item where a page was expected`);
      return Buffer.from(this.itemType.encode(result.value() as object).finish());
    }
    const edges = this.edges(result);
    const pageInfo = this.pageInfoType.encode(result.pageInfo).finish();
    const { connection, edge, pageInfo: pageInfoTag } = this.tags;
    let connectionSize = varintSize(pageInfoTag) + varintSize(pageInfo.length) + pageInfo.length;
    for (const e of edges) connectionSize += varintSize(edge) + varintSize(e.length) + e.length;
    const out = alloc(varintSize(connection) + varintSize(connectionSize) + connectionSize);
    let at = writeVarint(out, writeVarint(out, 0, connection), connectionSize);
    for (const e of edges) {
      at = writeVarint(out, writeVarint(out, at, edge), e.length);
      out.set(e, at);
      at += e.length;
    }
    at = writeVarint(out, writeVarint(out, at, pageInfoTag), pageInfo.length);
    out.set(pageInfo, at);
    return out;
  }

  /** The page's edges, each encoded: kept ones as kept, the others parsed from the page's text. */
  private edges(page: PageResult): Uint8Array[] {
    if (typeof page.edgesText === 'string') return page.edges().map((edge) => this.edgeType.encode(edge as object).finish());
    const texts = page.edgesText.each;
    const edges = new Array<Uint8Array>(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!;
      let edge = this.encoded.get(text);
      if (edge === undefined) {
        edge = this.edgeType.encode(JSON.parse(text.toString()) as object).finish();
        this.encoded.set(text, edge);
      }
      edges[i] = edge;
    }
    return edges;
  }
}

const LENGTH_DELIMITED = 2;

/** Bytes of a varint (a tag or a length). */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/** Writes a varint at `at`; the offset after it. */
function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

const errorDetailType = root.lookupType('vega.ErrorDetail');
const STATUS_CODE = (1 << 3) | 0;
const STATUS_MESSAGE = (2 << 3) | 2;
const STATUS_DETAILS = (3 << 3) | 2;
const ANY_TYPE_URL = (1 << 3) | 2;
const ANY_VALUE = (2 << 3) | 2;

/**
 * The google.rpc.Status of an error (grpc-status-details-bin): its code, message and details,
 * each detail a google.protobuf.Any holding a vega.ErrorDetail. Two small well-known messages,
 * written field by field rather than shipping their .proto files.
 */
export function statusDetails(err: ApiError): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(STATUS_CODE).int32(err.code);
  w.uint32(STATUS_MESSAGE).string(err.message);
  for (const d of err.details) {
    const value = errorDetailType.encode({ code: d.code, message: d.message, inner: d.inner }).finish();
    w.uint32(STATUS_DETAILS).fork().uint32(ANY_TYPE_URL).string(d['@type']).uint32(ANY_VALUE).bytes(value).ldelim();
  }
  return Buffer.from(w.finish());
}
