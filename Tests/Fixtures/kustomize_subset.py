#!/usr/bin/env python3
"""Renders deploy/kubernetes/kustomization.yaml for the tests without kustomize: the subset of
kustomize it uses, and nothing else (any other key is an error, so the file cannot outgrow it).

  resources      files of YAML documents, in order
  images         name -> newName:newTag on every container and init container image of that name
  patches        a target (kind, name) and an inline JSON 6902 patch of `replace` and `add` operations
  replacements   a source field (kind, name, fieldPath) copied to target fieldPaths, as kustomize does:
                 a string where the target holds a string, `a.b.[name=x].c` selecting list items

Usage: kustomize_subset.py FOLDER OUTPUT_FOLDER
Writes each document as OUTPUT_FOLDER/NN-kind-name.yaml and prints them all as one JSON array.
Needs PyYAML (in .build/venv, which scripts/pytools makes).
"""
import json
import os
import sys

import yaml

KNOWN = {"apiVersion", "kind", "resources", "images", "patches", "replacements"}


def fail(message):
    sys.exit(f"kustomize_subset: {message}")


def select(documents, selector):
    found = [d for d in documents if d["kind"] == selector["kind"] and d["metadata"]["name"] == selector["name"]]
    if len(found) != 1:
        fail(f"{selector} selects {len(found)} resources")
    return found[0]


def steps(field_path):
    return [part[1:-1] if part.startswith("[") else part for part in field_path.split(".")]


def walk(node, parts):
    """The container of the last part, and that part's key or index."""
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if "=" in part and isinstance(node, list):
            key, value = part.split("=", 1)
            matches = [i for i, item in enumerate(node) if isinstance(item, dict) and item.get(key) == value]
            if len(matches) != 1:
                fail(f"[{part}] matches {len(matches)} items")
            if last:
                return node, matches[0]
            node = node[matches[0]]
        else:
            if last:
                return node, part
            if not isinstance(node, dict) or part not in node:
                fail(f"no field {part}")
            node = node[part]
    fail("empty field path")


def pointer(path):
    return [part.replace("~1", "/").replace("~0", "~") for part in path.lstrip("/").split("/")]


def main():
    folder, output = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, "kustomization.yaml")) as handle:
        kustomization = yaml.safe_load(handle)
    unknown = set(kustomization) - KNOWN
    if unknown:
        fail(f"kustomization keys this subset does not render: {sorted(unknown)}")
    documents = []
    for resource in kustomization.get("resources", []):
        with open(os.path.join(folder, resource)) as handle:
            documents += [d for d in yaml.safe_load_all(handle) if d]
    for patch in kustomization.get("patches", []):
        if set(patch) != {"target", "patch"}:
            fail(f"a patch with keys {sorted(patch)}")
        target = select(documents, patch["target"])
        for operation in yaml.safe_load(patch["patch"]):
            if operation["op"] not in ("replace", "add"):
                fail(f"patch operation {operation['op']}")
            container, key = walk(target, pointer(operation["path"]))
            if operation["op"] == "replace" and key not in container:
                fail(f"replace of a missing {operation['path']}")
            container[key] = operation["value"]
    for replacement in kustomization.get("replacements", []):
        source = replacement["source"]
        container, key = walk(select(documents, source), steps(source["fieldPath"]))
        value = container[key]
        for target in replacement["targets"]:
            document = select(documents, target["select"])
            for field_path in target["fieldPaths"]:
                into, at = walk(document, steps(field_path))
                if isinstance(into, dict) and at not in into:
                    fail(f"replacement target {field_path} does not exist")
                into[at] = str(value) if isinstance(into[at], str) else value
    for image in kustomization.get("images", []):
        for document in documents:
            spec = document.get("spec", {})
            for pod in (spec.get("template", {}).get("spec"),
                        spec.get("jobTemplate", {}).get("spec", {}).get("template", {}).get("spec")):
                for container in (pod or {}).get("containers", []) + (pod or {}).get("initContainers", []):
                    name = container["image"].split(":")[0]
                    if name == image["name"]:
                        container["image"] = f"{image.get('newName', name)}:{image['newTag']}"
    os.makedirs(output, exist_ok=True)
    for number, document in enumerate(documents):
        name = f"{number:02d}-{document['kind'].lower()}-{document['metadata']['name']}.yaml"
        with open(os.path.join(output, name), "w") as handle:
            yaml.safe_dump(document, handle, sort_keys=False)
    json.dump(documents, sys.stdout)


if __name__ == "__main__":
    main()
