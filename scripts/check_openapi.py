#!/usr/bin/env python3
"""scripts/check_openapi.py — checks the group store's OpenAPI document without building.

Usage: scripts/check_openapi.py [PATH]   (default Sources/GroupStore/Resources/openapi.json;
                                          exit status 0 = no problem found)

  * the file parses as JSON and says `openapi: 3.1.0`;
  * it validates as OpenAPI 3.1 with openapi-spec-validator, when that is installed
    (`pip install openapi-spec-validator`; without it this says so and goes on);
  * every operation has a unique operationId, a summary and documented responses, and every
    JSON response (other than 204s and redirects) has a schema;
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
    call = re.compile(r'\brouter\.(get|put|post|patch|delete)\(\s*"([^"]*)"')
    for directory, _, files in os.walk(SOURCES):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    for method, path in call.findall(f.read()):
                        path = "/".join("{" + p[1:] + "}" if p.startswith(":") else p for p in path.split("/"))
                        routes.add(f"{method.upper()} {path}")
    return routes


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    problems = []
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
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
