"""An independent gRPC client of epochview, in its own process: Debian's python3-grpcio with stubs
that protoc generated from the project's .proto files (test/doors.test.ts runs it).

It asks every request of the shared REST fixtures that gRPC can express, translated from the
REST URL by the gateway's rules (contract.md §2), and compares each answer field for field with
the REST body the fixture expects (int64 as decimal strings there, numbers here; errors as
status code, message and vega.ErrorDetail details); the x-block-* headers with REST's for the
same request. Then it pages every list the way vega_query does (first=1000, then
after=end_cursor while has_next_page) and compares the rows with REST's pages.

Usage: client.py STUBS_DIR GRPC_ADDRESS REST_URL DATASET EXPECTATIONS.json...
Prints one JSON report on stdout.
"""

import json
import re
import sys
import urllib.parse
import urllib.request

STUBS, ADDRESS, REST, DATASET, *EXPECTATION_FILES = sys.argv[1:]
sys.path.insert(0, STUBS)

import grpc  # noqa: E402
from google.protobuf.descriptor import FieldDescriptor  # noqa: E402

from data_node.api.v2 import trading_data_pb2 as td  # noqa: E402
from data_node.api.v2 import trading_data_pb2_grpc as td_grpc  # noqa: E402
import rpc_status_pb2 as status_pb2  # noqa: E402  (test/grpc/rpc_status.proto)
from vega import vega_pb2  # noqa: E402

# Pages of 5,000 rows are sent whole: raise the client's own 4 MiB receive limit, as the data-node's users do.
channel = grpc.insecure_channel(ADDRESS, options=[("grpc.max_receive_message_length", 64 * 2**20)])
stub = td_grpc.TradingDataServiceStub(channel)


class NotExpressible(Exception):
    """A REST request gRPC cannot ask (a query string that does not parse, another route or method)."""


# The REST query keys of each request field (JSON name, then proto name): (message path, field, kind).
PAGINATION = {
    "pagination.first": ("pagination", "first", "int32"),
    "pagination.after": ("pagination", "after", "string"),
    "pagination.last": ("pagination", "last", "int32"),
    "pagination.before": ("pagination", "before", "string"),
    "pagination.newestFirst": ("pagination", "newest_first", "bool"),
    "pagination.newest_first": ("pagination", "newest_first", "bool"),
}
KEYS = {
    "ListReferralSets": {
        **PAGINATION,
        "referralSetId": (None, "referral_set_id", "string"),
        "referral_set_id": (None, "referral_set_id", "string"),
        "referrer": (None, "referrer", "string"),
        "referee": (None, "referee", "string"),
    },
    "ListTeamMembersStatistics": {
        **PAGINATION,
        "partyId": (None, "party_id", "string"),
        "party_id": (None, "party_id", "string"),
        "aggregationEpochs": (None, "aggregation_epochs", "uint64"),
        "aggregation_epochs": (None, "aggregation_epochs", "uint64"),
    },
    "ListEpochRewardSummaries": {
        **PAGINATION,
        "filter.assetIds": ("filter", "asset_ids", "repeated"),
        "filter.asset_ids": ("filter", "asset_ids", "repeated"),
        "filter.marketIds": ("filter", "market_ids", "repeated"),
        "filter.market_ids": ("filter", "market_ids", "repeated"),
        "filter.fromEpoch": ("filter", "from_epoch", "uint64"),
        "filter.from_epoch": ("filter", "from_epoch", "uint64"),
        "filter.toEpoch": ("filter", "to_epoch", "uint64"),
        "filter.to_epoch": ("filter", "to_epoch", "uint64"),
    },
    "ListTeams": {
        **PAGINATION,
        "teamId": (None, "team_id", "string"),
        "team_id": (None, "team_id", "string"),
        "partyId": (None, "party_id", "string"),
        "party_id": (None, "party_id", "string"),
    },
    "ListTeamsStatistics": {
        **PAGINATION,
        "teamId": (None, "team_id", "string"),
        "team_id": (None, "team_id", "string"),
        "aggregationEpochs": (None, "aggregation_epochs", "uint64"),
        "aggregation_epochs": (None, "aggregation_epochs", "uint64"),
    },
    # The path names the team or the party: no query key sets it.
    "ListTeamReferees": PAGINATION,
    "ListTeamRefereeHistory": PAGINATION,
}
KEYS["ListReferralSetReferees"] = {
    **PAGINATION,
    "referralSetId": (None, "referral_set_id", "string"),
    "referral_set_id": (None, "referral_set_id", "string"),
    "referrer": (None, "referrer", "string"),
    "referee": (None, "referee", "string"),
    "aggregationEpochs": (None, "aggregation_epochs", "uint32"),
    "aggregation_epochs": (None, "aggregation_epochs", "uint32"),
}
KEYS["GetReferralSetStats"] = {
    **PAGINATION,
    "referralSetId": (None, "referral_set_id", "string"),
    "referral_set_id": (None, "referral_set_id", "string"),
    "atEpoch": (None, "at_epoch", "uint64"),
    "at_epoch": (None, "at_epoch", "uint64"),
    "referee": (None, "referee", "string"),
}
REQUESTS = {
    "ListReferralSetReferees": td.ListReferralSetRefereesRequest,
    "GetReferralSetStats": td.GetReferralSetStatsRequest,
    "ListReferralSets": td.ListReferralSetsRequest,
    "ListTeamMembersStatistics": td.ListTeamMembersStatisticsRequest,
    "ListEpochRewardSummaries": td.ListEpochRewardSummariesRequest,
    "ListTeams": td.ListTeamsRequest,
    "ListTeamsStatistics": td.ListTeamsStatisticsRequest,
    "ListTeamReferees": td.ListTeamRefereesRequest,
    "ListTeamRefereeHistory": td.ListTeamRefereeHistoryRequest,
}
BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
         "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}
TEAM_PATH = re.compile(r"^/api/v2/teams/([^/]*)/stats$")
# Tried before TEAM_PATH, as the router does (family.md §1): /api/v2/teams/referees/stats is ListTeamReferees.
REFEREES_PATH = re.compile(r"^/api/v2/teams/referees/([^/]*)$")
HISTORY_PATH = re.compile(r"^/api/v2/teams/referees/history/([^/]*)$")


def value_of(kind, text):
    if kind == "string":
        return text
    if kind == "bool":
        if text not in BOOLS:
            raise NotExpressible(f"not a bool: {text!r}")
        return BOOLS[text]
    if kind == "int32":
        if not re.fullmatch(r"[+-]?\d+", text) or not -(2**31) <= int(text) < 2**31:
            raise NotExpressible(f"not an int32: {text!r}")
        return int(text)
    if kind == "uint32":
        if not re.fullmatch(r"\+?\d+", text) or int(text) >= 2**32:
            raise NotExpressible(f"not a uint32: {text!r}")
        return int(text)
    if kind == "uint64":
        if not re.fullmatch(r"\+?\d+", text) or int(text) >= 2**64:
            raise NotExpressible(f"not a uint64: {text!r}")
        return int(text)
    raise AssertionError(kind)


def translate(method, target):
    """(rpc name, request message) for a REST request, or NotExpressible."""
    if method != "GET":
        raise NotExpressible(f"method {method}")
    path, _, query = target.partition("?")
    team = TEAM_PATH.match(path)
    if path == "/api/v2/referral-programs/current":
        # Its route reads no query string (family.md §1).
        return "GetCurrentReferralProgram", td.GetCurrentReferralProgramRequest()
    referees = REFEREES_PATH.match(path)
    history = HISTORY_PATH.match(path)
    if "%" in path:
        raise NotExpressible(f"route {path}")
    if path == "/api/v2/referral-sets":
        rpc, fields = "ListReferralSets", {}
    elif path == "/api/v2/referral-sets/referees":
        rpc, fields = "ListReferralSetReferees", {}
    elif path == "/api/v2/referral-sets/stats":
        rpc, fields = "GetReferralSetStats", {}
    elif path == "/api/v2/rewards/epoch/summaries":
        rpc, fields = "ListEpochRewardSummaries", {}
    elif path == "/api/v2/teams":
        rpc, fields = "ListTeams", {}
    elif path == "/api/v2/teams/stats":
        rpc, fields = "ListTeamsStatistics", {}
    elif history:
        rpc, fields = "ListTeamRefereeHistory", {(None, "referee"): history.group(1)}
    elif referees:
        rpc, fields = "ListTeamReferees", {(None, "team_id"): referees.group(1)}
    elif team:
        rpc, fields = "ListTeamMembersStatistics", {(None, "team_id"): team.group(1)}
    else:
        raise NotExpressible(f"route {path}")
    if re.search(r"%(?![0-9a-fA-F]{2})", query):
        raise NotExpressible("bad escape")
    seen = {}
    for key, text in urllib.parse.parse_qsl(query, keep_blank_values=True):
        spec = KEYS[rpc].get(key)
        if spec is None:
            continue  # unknown keys are ignored
        parent, name, kind = spec
        if kind == "repeated":
            fields.setdefault((parent, name), []).append(text)
            continue
        if (parent, name) in seen:
            raise NotExpressible(f"{name} given twice")
        seen[(parent, name)] = True
        fields[(parent, name)] = value_of(kind, text)
    request = REQUESTS[rpc]()
    for (parent, name), value in fields.items():
        message = getattr(request, parent) if parent else request
        if isinstance(value, list):
            getattr(message, name).extend(value)
        else:
            setattr(message, name, value)
        if parent:
            # Sets the nested message's presence even when only empty lists were given.
            getattr(request, parent).SetInParent()
    return rpc, request


def as_rest(message):
    """A message as the REST gateway writes it: JSON names in field order, every field, 64-bit integers as strings;
    an unset message null, an unset proto3 optional scalar left out (family.md §3)."""
    out = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.label == FieldDescriptor.LABEL_REPEATED:
            out[field.json_name] = [scalar_or_message(field, v) for v in value]
        elif field.type == FieldDescriptor.TYPE_MESSAGE and not message.HasField(field.name):
            out[field.json_name] = None
        elif field.containing_oneof is not None and not message.HasField(field.name):
            continue
        else:
            out[field.json_name] = scalar_or_message(field, value)
    return out


def scalar_or_message(field, value):
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return as_rest(value)
    if field.type in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64):
        return str(value)
    return value


def error_body(err):
    """The REST error body of a gRPC status: code, message, and the details of grpc-status-details-bin."""
    details = []
    raw = dict(err.trailing_metadata() or ()).get("grpc-status-details-bin")
    if raw is not None:
        status = status_pb2.Status.FromString(raw)
        if status.code != err.code().value[0] or status.message != err.details():
            raise AssertionError(f"status details {status.code} {status.message!r} differ from the status")
        for any_detail in status.details:
            detail = vega_pb2.ErrorDetail.FromString(any_detail.value)
            details.append({"@type": any_detail.type_url, "code": detail.code, "message": detail.message, "inner": detail.inner})
    return {"code": err.code().value[0], "message": err.details(), "details": details}


def with_loose(expected, actual, loose):
    """The expected body with its loose string fields taken from the actual one (fixtures README)."""
    expected = json.loads(json.dumps(expected))
    for path in loose or []:
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        e, a = expected, actual
        try:
            for k in keys[:-1]:
                e, a = e[k], a[k]
            if isinstance(e[keys[-1]], str) and isinstance(a[keys[-1]], str):
                e[keys[-1]] = a[keys[-1]]
        except (KeyError, IndexError, TypeError):
            pass
    return expected


def rest(target):
    """REST's status, headers and body for a request target."""
    try:
        with urllib.request.urlopen(REST + target) as res:
            return res.status, res.headers, json.load(res)
    except urllib.error.HTTPError as err:
        return err.code, err.headers, json.load(err)


def call(rpc, request):
    """(status code name, REST-shaped body, response headers) of one call."""
    try:
        response, info = getattr(stub, rpc).with_call(request, timeout=30)
        return "OK", as_rest(response), dict(info.initial_metadata())
    except grpc.RpcError as err:
        return err.code().name, error_body(err), dict(err.initial_metadata())


report = {"asked": 0, "ok": 0, "errors": 0, "skipped": [], "failures": [], "walks": {}}
for file in EXPECTATION_FILES:
    for case in json.load(open(file)):
        if case.get("dataset", DATASET) != DATASET:
            continue
        try:
            rpc, request = translate(case.get("method", "GET"), case["request"])
        except NotExpressible as why:
            report["skipped"].append(f"{case['name']}: {why}")
            continue
        report["asked"] += 1
        code, body, headers = call(rpc, request)
        expected = with_loose(case["body"], body, case.get("loose"))
        if body != expected:
            report["failures"].append({"name": case["name"], "code": code, "got": body, "expected": expected})
            continue
        if code == "OK":
            report["ok"] += 1
        else:
            report["errors"] += 1
            if case["status"] == 200:
                report["failures"].append({"name": case["name"], "code": code})
        # The block headers of an answer and of an error alike (grpc.md 3: every answer), as REST's.
        _, rest_headers, _ = rest(case["request"])
        heads = [(headers.get(h), rest_headers.get(h)) for h in ("x-block-height", "x-block-timestamp")]
        if any(g is None or g != r for g, r in heads):
            report["failures"].append({"name": case["name"], "headers": heads})


def walk_grpc(rpc, request, key, first):
    """Every row, paging as vega_query does: first=1000, then after=end_cursor while has_next_page."""
    rows, pages = [], 0
    request.pagination.first = first
    while True:
        response = getattr(stub, rpc)(request, timeout=30)
        connection = getattr(response, key)
        rows += [(as_rest(e.node), e.cursor) for e in connection.edges]
        pages += 1
        if not connection.page_info.has_next_page:
            return rows, pages
        request.pagination.after = connection.page_info.end_cursor


def walk_rest(target, key, first):
    rows, after = [], None
    sep = "&" if "?" in target else "?"
    while True:
        query = f"{sep}pagination.first={first}" + (f"&pagination.after={urllib.parse.quote(after, safe='')}" if after else "")
        _, _, body = rest(target + query)
        connection = body[key]
        rows += [(e["node"], e["cursor"]) for e in connection["edges"]]
        if not connection["pageInfo"]["hasNextPage"]:
            return rows
        after = connection["pageInfo"]["endCursor"]


WALKS = {
    "referral-sets": [("ListReferralSets", td.ListReferralSetsRequest, "referral_sets", "referralSets", "/api/v2/referral-sets")],
    "epoch-summaries": [
        ("ListEpochRewardSummaries", td.ListEpochRewardSummariesRequest, "summaries", "summaries", "/api/v2/rewards/epoch/summaries")
    ],
    "team-stats": [],
    "teams": [
        ("ListTeams", td.ListTeamsRequest, "teams", "teams", "/api/v2/teams"),
        ("ListTeamsStatistics", td.ListTeamsStatisticsRequest, "statistics", "statistics", "/api/v2/teams/stats"),
        ("ListTeamReferees", lambda: td.ListTeamRefereesRequest(team_id="d2" * 32), "team_referees", "teamReferees", f"/api/v2/teams/referees/{'d2' * 32}"),
        ("ListTeamRefereeHistory", lambda: td.ListTeamRefereeHistoryRequest(referee="f1" * 32), "team_referee_history", "teamRefereeHistory",
         f"/api/v2/teams/referees/history/{'f1' * 32}"),
    ],
    "referral-family": [
        ("ListReferralSetReferees", td.ListReferralSetRefereesRequest, "referral_set_referees", "referralSetReferees",
         "/api/v2/referral-sets/referees"),
        ("GetReferralSetStats", td.GetReferralSetStatsRequest, "stats", "stats", "/api/v2/referral-sets/stats"),
    ],
}
for team in sys.stdin.read().split():
    WALKS["team-stats"].append(
        ("ListTeamMembersStatistics", lambda t=team: td.ListTeamMembersStatisticsRequest(team_id=t, aggregation_epochs=1),
         "statistics", "statistics", f"/api/v2/teams/{team}/stats?aggregationEpochs=1")
    )
for rpc, make, key, rest_key, target in WALKS[DATASET]:
    rows, pages = walk_grpc(rpc, make(), key, 1000)
    # In pages of 2 too (the fixtures' lists fit one page of 1,000), and REST's in pages of 3: the
    # same rows in the same order, each once.
    small, small_pages = walk_grpc(rpc, make(), key, 2)
    same = rows == small == walk_rest(target, rest_key, 3)
    once = len({cursor for _, cursor in rows}) == len(rows)
    report["walks"][target] = {"rows": len(rows), "pages": pages, "smallPages": small_pages, "sameAsRest": same, "eachOnce": once}

print(json.dumps(report))
