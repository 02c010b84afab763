package main

import (
	"slices"
	"strings"
)

// schema is one node of a JSON schema, as decoded from JSON.
type schema = map[string]any

// Definitions whose JSON form differs from their OpenAPI type: a quantity
// is written as "500m" or as a plain number.
const quantityDefinition = "io.k8s.apimachinery.pkg.api.resource.Quantity"

type groupVersionKind struct{ Group, Version, Kind string }

// fileName is kubeconform's name for the kind's schema:
// <kind>-<first label of the group>-<version>.json, the group left out for
// the core API.
func (g groupVersionKind) fileName() string {
	name := strings.ToLower(g.Kind)
	if g.Group != "" {
		name += "-" + strings.ToLower(strings.Split(g.Group, ".")[0])
	}
	return name + "-" + strings.ToLower(g.Version) + ".json"
}

func groupVersionKinds(def schema) []groupVersionKind {
	list, _ := def["x-kubernetes-group-version-kind"].([]any)
	var gvks []groupVersionKind
	for _, item := range list {
		m, _ := item.(map[string]any)
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if v != "" && k != "" {
			gvks = append(gvks, groupVersionKind{g, v, k})
		}
	}
	return gvks
}

// convert rewrites an OpenAPI definition into what manifests may hold:
// int-or-string and quantities take both forms, null stands for an absent
// value (as the API server reads it), and in strict mode objects with known
// properties reject any other.
func convert(name string, def schema, strict bool) schema {
	if name == quantityDefinition {
		return schema{"oneOf": []any{schema{"type": "string"}, schema{"type": "number"}}}
	}
	return convertNode(def, strict).(schema)
}

func convertNode(node any, strict bool) any {
	switch n := node.(type) {
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			out[i] = convertNode(v, strict)
		}
		return out
	case schema:
		if n["format"] == "int-or-string" {
			return schema{"oneOf": []any{schema{"type": "string"}, schema{"type": "integer"}}}
		}
		out := make(schema, len(n)+1)
		for k, v := range n {
			if k == "properties" || k == "definitions" {
				props := make(schema, len(v.(schema)))
				for p, s := range v.(schema) {
					props[p] = convertNode(s, strict)
				}
				out[k] = props
				continue
			}
			out[k] = convertNode(v, strict)
		}
		if t, ok := n["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
		if _, has := n["properties"]; strict && has && n["additionalProperties"] == nil {
			out["additionalProperties"] = false
		}
		return out
	}
	return node
}

// reachable returns the definitions that name refers to, directly or not.
func reachable(name string, defs map[string]schema) schema {
	found := schema{}
	var visit func(node any)
	visit = func(node any) {
		switch n := node.(type) {
		case []any:
			for _, v := range n {
				visit(v)
			}
		case schema:
			if ref, ok := n["$ref"].(string); ok {
				target := strings.TrimPrefix(ref, "#/definitions/")
				if _, seen := found[target]; !seen {
					found[target] = defs[target]
					visit(defs[target])
				}
			}
			for _, k := range sortedKeys(n) {
				visit(n[k])
			}
		}
	}
	visit(defs[name])
	return found
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
