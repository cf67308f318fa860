import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { ApiError } from '../contract/errors.js';
import { checkedUint64, type FieldSpec } from '../contract/query.js';
import type { RequestOf } from '../operations/operation.js';
import { type ItemResult, PageResult } from '../pagination/result.js';
import { WireError, WireReader } from '../lib/wire.js';
import { type GrpcMethod, PACKAGE } from './methods.js';
import { type Plan, planOf, readRequest } from './request.js';
import { TRADING_DATA_PROTO } from './proto.js';

/**
 * The protobuf side of the gRPC door: request bytes to an operation's request fields (read as Go
 * reads them: request.ts), a page to response bytes, an error to its status details. The
 * response messages are those of the shipped .proto files (made from the definitions: proto.ts),
 * loaded by protobufjs. A page's nodes are the
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

/** The request is malformed protobuf: what Go's proto.Unmarshal refuses (see request.ts). */
export class MalformedRequestError extends Error {
  override name = 'MalformedRequestError';
}

/** An operation field's value as read from the message, as the REST door's query parsing would type it. */
function fieldValue(spec: FieldSpec, value: unknown): unknown {
  if (spec.repeated) return (value as unknown[] | undefined) ?? [];
  if (value === undefined) return spec.keys.length > 0 ? undefined : ''; // a plain (path) string field is '' when absent
  return spec.kind === 'uint64' ? checkedUint64(spec, value as bigint) : value;
}

/** Encodes and decodes one method's messages. */
export class MethodCodec {
  /** The request message's fields by number. */
  private readonly plan: Plan;
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
    this.plan = planOf(method.request, method.operation.fields);
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

  /** The operation's request from the request message's bytes, read as Go reads them (request.ts). */
  request(bytes: Buffer): RequestOf<Record<string, FieldSpec>> {
    const read: Record<string, unknown> = {};
    try {
      readRequest(new WireReader(bytes, 0, bytes.length), this.plan, read);
    } catch (err) {
      if (err instanceof WireError) throw new MalformedRequestError(err.message);
      throw err;
    }
    const out: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(this.method.operation.fields as Record<string, FieldSpec>)) {
      out[name] = fieldValue(spec, read[name]);
    }
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
