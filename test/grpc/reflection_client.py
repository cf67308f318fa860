"""Reflection as a strict client uses it, in its own process: Debian's python3-grpcio asks the
server's reflection service (v1, stubs that protoc generated from grpc's reflection.proto) for the
files of a service, loads them into a fresh descriptor pool (which refuses a file whose imports
it was not given), makes the message classes from them alone (no .proto of ours) and calls a
method with them, as grpcurl and grpcui do.

Usage: reflection_client.py STUBS_DIR GRPC_ADDRESS
Prints one JSON report on stdout.
"""

import json
import sys

STUBS, ADDRESS = sys.argv[1:]
sys.path.insert(0, STUBS)

import grpc  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

import reflection_pb2  # noqa: E402  (grpc/reflection/v1/reflection.proto)
import reflection_pb2_grpc  # noqa: E402

SERVICE = "datanode.api.v2.TradingDataService"
channel = grpc.insecure_channel(ADDRESS)
reflection = reflection_pb2_grpc.ServerReflectionStub(channel)


def ask(**request):
    """One request on the reflection stream: its answer."""
    return next(reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(**request)])))


def files(**request):
    """The FileDescriptorProtos of an answer, or the error's code."""
    answer = ask(**request)
    if answer.HasField("error_response"):
        return answer.error_response.error_code
    return [descriptor_pb2.FileDescriptorProto.FromString(b) for b in answer.file_descriptor_response.file_descriptor_proto]


def pool_of(protos):
    """A fresh pool holding the files, each added once its declared imports are in."""
    pool = descriptor_pool.DescriptorPool()
    waiting = list(protos)
    added = set()
    while waiting:
        ready = [f for f in waiting if all(d in added for d in f.dependency)]
        if not ready:
            raise SystemExit(f"imports never sent: {[(f.name, list(f.dependency)) for f in waiting]}")
        for f in ready:
            pool.AddSerializedFile(f.SerializeToString())
            added.add(f.name)
            waiting.remove(f)
    return pool


def message_class(pool, name):
    descriptor = pool.FindMessageTypeByName(name)
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


def fields(pool, name):
    """Each field of a message: its name, json_name, and whether it has presence (proto3 optional)."""
    out = []
    for f in pool.FindMessageTypeByName(name).fields:
        optional = f.containing_oneof is not None and f.containing_oneof.name == f"_{f.name}"
        out.append([f.name, f.json_name, optional and f.has_presence])
    return out


listed = sorted(s.name for s in ask(list_services="*").list_services_response.service)
described = files(file_containing_symbol=SERVICE)
pool = pool_of(described)

Request = message_class(pool, "datanode.api.v2.ListReferralSetsRequest")
Response = message_class(pool, "datanode.api.v2.ListReferralSetsResponse")
call = channel.unary_unary(
    f"/{SERVICE}/ListReferralSets", request_serializer=Request.SerializeToString, response_deserializer=Response.FromString
)
request = Request()
request.pagination.first = 2
answer = call(request)

health_pool = pool_of(files(file_containing_symbol="grpc.health.v1.Health"))
Check = message_class(health_pool, "grpc.health.v1.HealthCheckRequest")
Status = message_class(health_pool, "grpc.health.v1.HealthCheckResponse")
health = channel.unary_unary(
    "/grpc.health.v1.Health/Check", request_serializer=Check.SerializeToString, response_deserializer=Status.FromString
)
status = health(Check(service=SERVICE))

by_name = {}
for name in ["data-node/api/v2/trading_data.proto", "vega/vega.proto", "grpc/health/v1/health.proto", "datanode_api_v2.proto"]:
    found = files(file_by_filename=name)
    by_name[name] = found if isinstance(found, int) else [f.name for f in found]

print(
    json.dumps(
        {
            "services": listed,
            "files": [[f.name, f.package, list(f.dependency)] for f in described],
            "byFilename": by_name,
            "requestFields": fields(pool, "datanode.api.v2.ListReferralSetsRequest"),
            "paginationFields": fields(pool, "datanode.api.v2.Pagination"),
            "edges": len(answer.referral_sets.edges),
            "firstPresent": request.pagination.HasField("first"),
            "lastPresent": request.pagination.HasField("last"),
            "health": health_pool.FindEnumTypeByName("grpc.health.v1.HealthCheckResponse.ServingStatus").values_by_number[status.status].name,
        }
    )
)
