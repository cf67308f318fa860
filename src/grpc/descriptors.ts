import { join } from 'node:path';
import { protoPath as HEALTH_PROTO } from 'grpc-health-check';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { PROTO_DIR } from './codec.js';
import { TRADING_DATA_PROTO, VEGA_PROTO } from './proto.js';

/**
 * The FileDescriptorProtos that reflection serves, as protoc makes them from the .proto files: each
 * file under the name it is imported by, with the files it imports, fields under their proto
 * (snake_case) names with protoc's json_name, and proto3 `optional` fields flagged
 * proto3_optional in their synthetic oneofs. proto-loader's descriptors (protobufjs' toDescriptor)
 * get all of that wrong: one file per package named after it, no imports, camelCase names,
 * plain oneofs; strict clients (Python's descriptor pool, grpcurl's resolution of imports) refuse
 * them. Only what describes the messages and services is written, not the files' options.
 */

/** A .proto file: the name clients import it by, and the path it is read from. */
export interface ProtoSource {
  name: string;
  path: string;
}

/** The files reflection describes: the service's, what it imports, and the health service's (named as grpc-go registers it). */
export const REFLECTED_FILES: readonly ProtoSource[] = [
  { name: VEGA_PROTO, path: join(PROTO_DIR, VEGA_PROTO) },
  { name: TRADING_DATA_PROTO, path: join(PROTO_DIR, TRADING_DATA_PROTO) },
  { name: 'grpc/health/v1/health.proto', path: HEALTH_PROTO },
];

/** FieldDescriptorProto.Type by protobufjs' scalar type name. */
const SCALARS: Record<string, number> = {
  double: 1,
  float: 2,
  int64: 3,
  uint64: 4,
  int32: 5,
  fixed64: 6,
  fixed32: 7,
  bool: 8,
  string: 9,
  bytes: 12,
  uint32: 13,
  sfixed32: 15,
  sfixed64: 16,
  sint32: 17,
  sint64: 18,
};
const TYPE_MESSAGE = 11;
const TYPE_ENUM = 14;
const LABEL_OPTIONAL = 1;
const LABEL_REPEATED = 3;

/** protoc's json_name: underscores dropped, the letter after each one upper-cased. */
export function jsonName(name: string): string {
  return name.replace(/_+(.?)/g, (_, c: string) => c.toUpperCase());
}

/** A full name without protobufjs' leading dot. */
const bare = (fullName: string) => fullName.replace(/^\./, '');

const isProto3Optional = (f: protobuf.Field) => f.options?.proto3_optional === true;

function messageProto(type: protobuf.Type, refer: (target: protobuf.ReflectionObject) => void): object {
  // Real oneofs first, then the synthetic ones of proto3 optional fields, as protoc orders them.
  const synthetic = (o: protobuf.OneOf) => o.fieldsArray.length === 1 && isProto3Optional(o.fieldsArray[0]!);
  const oneofs = [...type.oneofsArray.filter((o) => !synthetic(o)), ...type.oneofsArray.filter(synthetic)];
  // A singular field; a map field is a repeated one of a nested entry message (key = 1, value = 2), as protoc writes it.
  const entries: object[] = [];
  const singular = (name: string, number: number, type: string, target: protobuf.ReflectionObject | null) => {
    if (target) refer(target);
    return {
      name,
      number,
      label: LABEL_OPTIONAL,
      type: target instanceof protobuf.Enum ? TYPE_ENUM : target ? TYPE_MESSAGE : SCALARS[type],
      ...(target ? { typeName: target.fullName } : {}),
      jsonName: jsonName(name),
    };
  };
  const field = (f: protobuf.Field) => {
    f.resolve();
    if (f instanceof protobuf.MapField) {
      const entry = `${jsonName(`_${f.name}`)}Entry`;
      entries.push({
        name: entry,
        field: [singular('key', 1, f.keyType, null), singular('value', 2, f.type, f.resolvedType)],
        options: { mapEntry: true },
      });
      return { ...singular(f.name, f.id, '', null), label: LABEL_REPEATED, type: TYPE_MESSAGE, typeName: `${type.fullName}.${entry}` };
    }
    return {
      ...singular(f.name, f.id, f.type, f.resolvedType),
      label: f.repeated ? LABEL_REPEATED : LABEL_OPTIONAL,
      ...(f.partOf ? { oneofIndex: oneofs.indexOf(f.partOf) } : {}),
      ...(isProto3Optional(f) ? { proto3Optional: true } : {}),
    };
  };
  const nested = type.nestedArray;
  return {
    name: type.name,
    field: type.fieldsArray.map(field),
    nestedType: [...nested.filter((n) => n instanceof protobuf.Type).map((n) => messageProto(n, refer)), ...entries],
    enumType: nested.filter((n) => n instanceof protobuf.Enum).map(enumProto),
    oneofDecl: oneofs.map((o) => ({ name: o.name })),
  };
}

function enumProto(e: protobuf.Enum): object {
  return { name: e.name, value: Object.entries(e.values).map(([name, number]) => ({ name, number })) };
}

function serviceProto(service: protobuf.Service, refer: (target: protobuf.ReflectionObject) => void): object {
  return {
    name: service.name,
    method: service.methodsArray.map((m) => {
      m.resolve();
      refer(m.resolvedRequestType!);
      refer(m.resolvedResponseType!);
      return {
        name: m.name,
        inputType: m.resolvedRequestType!.fullName,
        outputType: m.resolvedResponseType!.fullName,
        ...(m.requestStream ? { clientStreaming: true } : {}),
        ...(m.responseStream ? { serverStreaming: true } : {}),
      };
    }),
  };
}

/** The top-level messages, enums and services of a root, with the package each is in. */
function* topLevel(ns: protobuf.NamespaceBase): Generator<protobuf.ReflectionObject> {
  for (const n of ns.nestedArray) {
    if (n instanceof protobuf.Type || n instanceof protobuf.Enum || n instanceof protobuf.Service) yield n;
    else if (n instanceof protobuf.Namespace) yield* topLevel(n);
  }
}

/** The encoded FileDescriptorProto of each file, in the order given (each file's imports among them). */
export function fileDescriptors(files: readonly ProtoSource[]): Buffer[] {
  const byPath = new Map(files.map((f) => [f.path, f.name]));
  const root = new protobuf.Root();
  // An import is resolved among the files given, by the name it is imported by.
  const byName = new Map(files.map((f) => [f.name, f.path]));
  root.resolvePath = (_origin, target) => byName.get(target) ?? target;
  root.loadSync(
    files.map((f) => f.path),
    { keepCase: true },
  );
  root.resolveAll();
  const protos = new Map(
    files.map((f) => [f.name, { name: f.name, pkg: '', deps: new Set<string>(), items: [] as protobuf.ReflectionObject[] }]),
  );
  for (const item of topLevel(root)) {
    const file = protos.get(byPath.get(item.filename ?? '') ?? '');
    if (!file) throw new Error(`${item.fullName}: from ${item.filename}, not one of the files described`);
    file.pkg = bare(item.parent!.fullName);
    file.items.push(item);
  }
  return [...protos.values()].map((file) => {
    const refer = (target: protobuf.ReflectionObject) => {
      const from = byPath.get(target.filename ?? '');
      if (from !== undefined && from !== file.name) file.deps.add(from);
    };
    const messageType = file.items.filter((i) => i instanceof protobuf.Type).map((t) => messageProto(t, refer));
    const enumType = file.items.filter((i) => i instanceof protobuf.Enum).map(enumProto);
    const service = file.items.filter((i) => i instanceof protobuf.Service).map((s) => serviceProto(s, refer));
    const proto = { name: file.name, package: file.pkg, dependency: [...file.deps], messageType, enumType, service, syntax: 'proto3' };
    return Buffer.from(descriptor.FileDescriptorProto.encode(descriptor.FileDescriptorProto.fromObject(proto)).finish());
  });
}
