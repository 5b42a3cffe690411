"""The Dagster UI's queries for the partitioned assets, timed against a running webserver: the asset
catalogue with partition counts, each document asset's partitions page (keys and statuses), its
latest materialisations, asset checks and one partition's history, the job's partitions page, the
runs list. Best and worst of three calls each.

    QUANT_RAG_HOME=S DAGSTER_HOME=S/dagster dagster-webserver -w workspace.yaml -h 127.0.0.1 -p 3917 &
    python benchmarks/dagster_ui.py [--url http://127.0.0.1:3917/graphql] [--json]
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request

import harness

REPEAT = 3
ASSETS = ["source_document", "parsed_document", "passages", "document_metadata", "passage_embeddings"]
ASSET_KEYS = ", ".join(f'{{path: ["{a}"]}}' for a in ASSETS)
STATUSES = "materializedPartitions failedPartitions unmaterializedPartitions materializingPartitions"
REPOSITORY = '{repositoryLocationName: "quant_rag", repositoryName: "__repository__"}'

# name -> (query, variables: "" none, "asset" each document asset, "one" one partition of each)
QUERIES = {
    "catalogue (all assets, partition stats)": (
        "query { assetNodes { assetKey { path } isPartitioned"
        " partitionStats { numMaterialized numPartitions numFailed numMaterializing } } }",
        "",
    ),
    "asset partitions page (statuses + keys)": (
        "query($k: AssetKeyInput!) { assetNodeOrError(assetKey: $k) { ... on AssetNode {"
        " partitionKeysByDimension { name partitionKeys }"
        f" assetPartitionStatuses {{ __typename ... on DefaultPartitionStatuses {{ {STATUSES} }} }} }} }} }}",
        "asset",
    ),
    "asset overview (latest materialisations)": (
        "query($k: AssetKeyInput!) { assetOrError(assetKey: $k) { ... on Asset {"
        " assetMaterializations(limit: 100) { partition runId timestamp } } } }",
        "asset",
    ),
    "assets latest info": (
        f"query {{ assetsLatestInfo(assetKeys: [{ASSET_KEYS}]) {{ assetKey {{ path }}"
        " unstartedRunIds inProgressRunIds latestRun { id status } } }",
        "",
    ),
    "job partitions page (ingest_documents)": (
        f'query {{ partitionSetsOrError(repositorySelector: {REPOSITORY}, pipelineName: "ingest_documents") {{'
        " ... on PartitionSets { results { name partitionsOrError { ... on Partitions { results { name } } }"
        " partitionStatusesOrError { ... on PartitionStatuses { results { partitionName runStatus } } } } } } }",
        "",
    ),
    "asset checks": (
        "query($k: AssetKeyInput!) { assetNodeOrError(assetKey: $k) { ... on AssetNode { assetChecksOrError {"
        " ... on AssetChecks { checks { name executionForLatestMaterialization { status } } } } } } }",
        "asset",
    ),
    "runs list (100)": (
        "query { runsOrError(limit: 100) { ... on Runs { results { id status tags { key value } } } } }",
        "",
    ),
    "one partition's materialisations": (
        "query($k: AssetKeyInput!, $p: [String!]) { assetOrError(assetKey: $k) { ... on Asset {"
        " assetMaterializations(partitions: $p) { partition runId } } } }",
        "one",
    ),
}


def post(url: str, query: str, variables: dict) -> tuple[float, dict]:
    body = json.dumps({"query": query, "variables": variables}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        data = json.loads(response.read())
    return time.perf_counter() - started, data


def main() -> None:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--url", default="http://127.0.0.1:3917/graphql", help="the webserver's GraphQL endpoint")
    args = parser.parse_args()
    _, first = post(args.url, QUERIES["asset partitions page (statuses + keys)"][0], {"k": {"path": ["passages"]}})
    keys = first["data"]["assetNodeOrError"]["partitionKeysByDimension"][0]["partitionKeys"]
    figures: dict = {"partitions": len(keys)}
    lines = [f"partitions: {len(keys)}"]
    for name, (query, kind) in QUERIES.items():
        for asset in ASSETS if kind else [None]:
            variables: dict = {} if asset is None else {"k": {"path": [asset]}}
            if kind == "one":
                variables["p"] = [keys[len(keys) // 2]]
            times = []
            for _ in range(REPEAT):
                seconds, data = post(args.url, query, variables)
                if data.get("errors"):
                    sys.exit(f"{name} [{asset}]: {json.dumps(data['errors'])[:400]}")
                times.append(seconds)
            label = name + (f" [{asset}]" if asset else "")
            figures[label] = {"best_ms": round(min(times) * 1000), "worst_ms": round(max(times) * 1000)}
            lines.append(f"{label}: best {min(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms")
    harness.emit(args, figures, lines)


if __name__ == "__main__":
    main()
