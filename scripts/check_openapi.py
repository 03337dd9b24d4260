#!/usr/bin/env python3
"""scripts/check_openapi.py — checks the group store's OpenAPI document without building.

Usage: scripts/check_openapi.py [--add-fault-responses] [PATH]
       (default Sources/GroupStore/Resources/openapi.json; exit status 0 = no problem found)

  * the file parses as JSON and says `openapi: 3.1.0`;
  * it validates as OpenAPI 3.1 with openapi-spec-validator, when that is installed
    (`pip install openapi-spec-validator`; without it this says so and goes on);
  * every operation has a unique operationId, a summary and documented responses, and every
    JSON response (other than 204s and redirects) has a schema;
  * every operation documents the answers any request can get when the database fails: 503
    (`DatabaseUnavailable`) and 507 (`StorageFull`). `--add-fault-responses` adds the two
    components and the references that are missing, and rewrites the file;
  * the operations are exactly the routes the Swift sources register through `RouteRecorder`
    (`router.get("/v1/groups/:group")` and the like, read from Sources/GroupStore/*.swift with a
    regular expression: the Swift test `openAPICoversRoutes` checks the same on the real router).

It prints every operation as "METHOD path", sorted.
"""

import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "Sources", "GroupStore", "Resources", "openapi.json")
SOURCES = os.path.join(ROOT, "Sources", "GroupStore")
METHODS = ("get", "put", "post", "patch", "delete", "head", "options", "trace")


def documented_operations(document):
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method in METHODS:
                yield method.upper(), path, operation


def registered_routes():
    """"METHOD /path/{param}" for each `router.<method>("…")` call in the store's sources."""
    routes = set()
    # The API's `router.get("…")`, and the pages' `router.anyone(.get, "…")` / `router.signedIn(.post, "…")`.
    call = re.compile(r'\brouter\.(get|put|post|patch|delete)\(\s*"([^"]*)"')
    page = re.compile(r'\b(?:router|pages)\.(?:anyone|signedIn)\(\s*\.(get|put|post|patch|delete)\s*,\s*"([^"]*)"')
    # The store's own files, registered in a loop over ("/static/…", file) pairs.
    static = re.compile(r'\("(/static/[^"]+)",\s*StaticFile\.')
    for directory, _, files in os.walk(SOURCES):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    text = f.read()
                found = call.findall(text) + page.findall(text) + [("get", p) for p in static.findall(text)]
                for method, path in found:
                    path = "/".join("{" + p[1:] + "}" if p.startswith(":") else p for p in path.split("/"))
                    routes.add(f"{method.upper()} {path}")
    return routes


FAULT_RESPONSES = {
    "503": ("DatabaseUnavailable", {
        "description": "The store cannot reach its database at the moment (`database_unavailable`): nothing "
                       "was read or saved. Ask again after `Retry-After` seconds.",
        "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}},
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}},
            "text/html": {"schema": {"type": "string"}},
        },
    }),
    "507": ("StorageFull", {
        "description": "The disk under the store's database is full (`storage_full`): this request was refused "
                       "whole and nothing was saved; reading still works. The operator must free space.",
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}},
            "text/html": {"schema": {"type": "string"}},
        },
    }),
}


def add_fault_responses(path, document):
    components = document.setdefault("components", {}).setdefault("responses", {})
    for name, response in FAULT_RESPONSES.values():
        components.setdefault(name, response)
    for _, _, operation in documented_operations(document):
        responses = operation.setdefault("responses", {})
        for status, (name, _) in FAULT_RESPONSES.items():
            responses.setdefault(status, {"$ref": f"#/components/responses/{name}"})
        operation["responses"] = dict(sorted(responses.items()))
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def main():
    arguments = sys.argv[1:]
    fix = "--add-fault-responses" in arguments
    arguments = [a for a in arguments if a != "--add-fault-responses"]
    path = arguments[0] if arguments else DEFAULT
    problems = []
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    if fix:
        add_fault_responses(path, document)
    if document.get("openapi") != "3.1.0":
        problems.append(f"openapi is {document.get('openapi')!r}, not '3.1.0'")

    try:
        import openapi_spec_validator
        from openapi_spec_validator import OpenAPIV31SpecValidator
    except ImportError:
        print("note: openapi-spec-validator is not installed (pip install openapi-spec-validator): "
              "skipping the OpenAPI 3.1 validation")
    else:
        version = getattr(openapi_spec_validator, "__version__", "?")
        try:
            errors = list(OpenAPIV31SpecValidator(document).iter_errors())
        except Exception as exc:  # an unresolvable $ref raises instead of reporting
            errors = [exc]
        for error in errors:
            where = "/".join(str(p) for p in getattr(error, "absolute_path", []))
            problems.append(f"openapi-spec-validator: {where}: {getattr(error, 'message', error)}")
        print(f"openapi-spec-validator {version}: "
              + ("valid OpenAPI 3.1" if not errors else f"{len(errors)} error(s)"))

    operations = sorted(documented_operations(document), key=lambda o: (o[1], o[0]))
    seen_ids = {}
    for method, route, operation in operations:
        label = f"{method} {route}"
        op_id = operation.get("operationId")
        if not op_id:
            problems.append(f"{label}: no operationId")
        elif op_id in seen_ids:
            problems.append(f"{label}: operationId {op_id} is also {seen_ids[op_id]}'s")
        else:
            seen_ids[op_id] = label
        if not operation.get("summary"):
            problems.append(f"{label}: no summary")
        responses = operation.get("responses") or {}
        if not responses:
            problems.append(f"{label}: no responses")
        # The store's own files (/static/) never read the database.
        for status, (name, _) in ([] if route.startswith("/static/") else FAULT_RESPONSES.items()):
            # 503 `busy` (a full bcrypt or file-reading queue) documents database_unavailable too.
            allowed = {f"#/components/responses/{n}" for n in ([name, "Busy"] if status == "503" else [name])}
            inline = "$ref" not in responses.get(status, {}) and "database" in responses.get(status, {}).get("description", "")
            if responses.get(status, {}).get("$ref") not in allowed and not inline:
                problems.append(f"{label}: no {status} {name} (scripts/check_openapi.py --add-fault-responses)")
        if "default" in responses:
            problems.append(f"{label}: a `default` response hides undocumented statuses")
        for status, response in responses.items():
            if "$ref" in response:
                name = response["$ref"].rsplit("/", 1)[-1]
                response = document.get("components", {}).get("responses", {}).get(name, {})
            for media, content in (response.get("content") or {}).items():
                if media.startswith("application/json") and "schema" not in content:
                    problems.append(f"{label} {status} {media}: no schema")
            if status == "204" and response.get("content"):
                problems.append(f"{label} 204: a 204 has no body")

    documented = {f"{method} {route}" for method, route, _ in operations}
    registered = registered_routes()
    for route in sorted(registered - documented):
        problems.append(f"route missing from the document: {route}")
    for route in sorted(documented - registered):
        problems.append(f"documented but not routed: {route}")

    print(f"{len(operations)} operations ({len(registered)} routes registered in {os.path.relpath(SOURCES, ROOT)}):")
    for method, route, _ in sorted(operations, key=lambda o: (o[0], o[1])):
        print(f"  {method} {route}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
