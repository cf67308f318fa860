import type { Field, MessageDef, Scalar } from '../contract/message.js';
import type { FieldKind, FieldSpec } from '../contract/query.js';
import type { ItemResponse, PageResponse } from '../operations/operation.js';
import { type GrpcMethod, METHODS, PACKAGE, type RequestMessage } from './methods.js';

/**
 * The .proto files of the gRPC door, made from the definitions: the request messages from
 * methods.ts and the operations' field specs, the response messages from the operations' message
 * definitions (whose fields are in proto order, numbered from 1). The files in proto/ (shipped
 * in the npm package, loaded by the server) are this text; a test keeps them equal, and
 * `epochview proto --out proto` writes them again after a definition changes.
 */
export interface ProtoFile {
  /** The path clients import it by, under proto/. */
  path: string;
  text: string;
}

export const VEGA_PROTO = 'vega/vega.proto';
export const TRADING_DATA_PROTO = 'data-node/api/v2/trading_data.proto';

const HEADER = '// Made from the definitions of epochview (src/grpc/proto.ts): do not edit; `epochview proto --out DIR` writes it.';

const SCALAR_TYPES: Record<Scalar, string> = {
  id: 'string',
  hex: 'string',
  string: 'string',
  enum: 'string',
  decimal: 'string',
  int64: 'int64',
  timestamp: 'int64',
  uint64: 'uint64',
  bool: 'bool',
};

const KIND_TYPES: Record<FieldKind, string> = { int32: 'int32', uint32: 'uint32', uint64: 'uint64', bool: 'bool', string: 'string' };

/** lowerCamelCase to snake_case: the proto name whose JSON name a message definition gives. */
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A message's name as written in a file of `pkg`: short within the package, full outside it. */
function typeName(fullName: string, pkg: string): string {
  return fullName.startsWith(`${pkg}.`) ? fullName.slice(pkg.length + 1) : fullName;
}

const comment = (doc: string, indent = '') => `${indent}// ${doc}\n`;

/** Messages by full name, in the order first met, each written once. */
class Messages {
  private readonly texts = new Map<string, string>();

  add(fullName: string, text: () => string): void {
    if (!this.texts.has(fullName)) {
      this.texts.set(fullName, '');
      this.texts.set(fullName, text());
    }
  }

  inPackage(pkg: string): string[] {
    return [...this.texts].filter(([name]) => name.slice(0, name.lastIndexOf('.')) === pkg).map(([, text]) => text);
  }
}

function message(name: string, doc: string, fields: string[]): string {
  return `${comment(doc)}message ${name} {\n${fields.map((f) => `  ${f}\n`).join('')}}\n`;
}

/** A node message and the messages its fields hold. */
function addNode(all: Messages, def: MessageDef): void {
  const pkg = def.name.slice(0, def.name.lastIndexOf('.'));
  for (const f of def.fields) if (typeof f.type !== 'string') addNode(all, f.type);
  const field = (f: Field, i: number) => {
    const type = typeof f.type === 'string' ? SCALAR_TYPES[f.type] : typeName(f.type.name, pkg);
    return `${f.list ? 'repeated ' : f.optional ? 'optional ' : ''}${type} ${snakeCase(f.name)} = ${i + 1};`;
  };
  all.add(def.name, () => message(def.name.slice(pkg.length + 1), def.doc, def.fields.map(field)));
}

function addRequest(all: Messages, request: RequestMessage, specs: Record<string, FieldSpec>): void {
  const fields = request.fields.map((f) => {
    if ('message' in f) {
      addRequest(all, f.message, specs);
      return `${f.optional ? 'optional ' : ''}${f.message.name} ${f.name} = ${f.number};`;
    }
    const spec = specs[f.field];
    if (!spec) throw new Error(`${request.name}: the operation has no field ${f.field}`);
    // A field the REST query may leave out has presence; a path field (no query key) is plain.
    const label = spec.repeated ? 'repeated ' : spec.keys.length > 0 ? 'optional ' : '';
    return `${label}${KIND_TYPES[spec.kind]} ${spec.protoName} = ${f.number};`;
  });
  all.add(`${PACKAGE}.${request.name}`, () => message(request.name, request.doc, fields));
}

function addResponse(all: Messages, response: PageResponse | ItemResponse): void {
  const name = (full: string) => typeName(full, PACKAGE);
  // An item's response message is the message it answers.
  if (response.kind === 'item') {
    addNode(all, response.message);
    return;
  }
  addNode(all, response.node);
  all.add(response.edge, () =>
    message(name(response.edge), `An edge: one ${response.one} and its cursor.`, [
      `${typeName(response.node.name, PACKAGE)} node = 1;`,
      'string cursor = 2;',
    ]),
  );
  all.add(response.connection, () =>
    message(name(response.connection), `A page of ${response.many}.`, [
      `repeated ${name(response.edge)} edges = 1;`,
      'PageInfo page_info = 2;',
    ]),
  );
  all.add(response.message, () =>
    message(name(response.message), `The ${response.many}.`, [`${name(response.connection)} ${snakeCase(response.key)} = 1;`]),
  );
}

const PAGE_INFO = message('PageInfo', "A page's place in the list (contract §4).", [
  'bool has_next_page = 1;',
  'bool has_previous_page = 2;',
  'string start_cursor = 3;',
  'string end_cursor = 4;',
]);

const ERROR_DETAIL = message(
  'ErrorDetail',
  'The detail of an error status (grpc-status-details-bin): the same code, message and inner as REST.',
  ['int32 code = 1;', 'string message = 2;', 'string inner = 3;'],
);

/** The full name of a method's response message. */
function responseName(method: GrpcMethod): string {
  const response = method.operation.response;
  return response.kind === 'page' ? response.message : response.message.name;
}

/** The .proto files: vega's messages, then the service's, which imports them. */
export function protoFiles(): ProtoFile[] {
  const all = new Messages();
  for (const method of METHODS) {
    addRequest(all, method.request, method.operation.fields);
    addResponse(all, method.operation.response);
  }
  const rpcs = METHODS.map((m) => {
    const name = m.operation.name;
    return `  // ${m.operation.summary}.\n  rpc ${name}(${m.request.name}) returns (${typeName(responseName(m), PACKAGE)});\n`;
  });
  const vega = ['syntax = "proto3";\n', 'package vega;\n', ...all.inPackage('vega'), ERROR_DETAIL];
  const tradingData = [
    'syntax = "proto3";\n',
    `package ${PACKAGE};\n`,
    `import "${VEGA_PROTO}";\n`,
    `${comment("The subset of the Vega data-node's TradingDataService that epochview answers; its other methods answer UNIMPLEMENTED.")}service TradingDataService {\n${rpcs.join('')}}\n`,
    ...all.inPackage(PACKAGE),
    PAGE_INFO,
  ];
  return [
    { path: VEGA_PROTO, text: [HEADER, ...vega].join('\n') },
    { path: TRADING_DATA_PROTO, text: [HEADER, ...tradingData].join('\n') },
  ];
}
