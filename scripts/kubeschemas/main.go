// Command kubeschemas turns the OpenAPI v2 document of the Kubernetes API
// (api/openapi-spec/swagger.json in k8s.io/kubernetes) into one JSON schema
// per kind, laid out as kubeconform looks them up, so that rendered manifests
// are validated offline against the exact API version the tests run
// (docs/operations.md#tools):
//
//	OUT/vX.Y.Z-standalone/<kind>-<group>-<version>.json
//	OUT/vX.Y.Z-standalone-strict/...    objects closed: unknown fields fail
//
// Each file is standalone: the kind's definition plus, under "definitions",
// every definition it reaches. Usage:
//
//	go run ./scripts/kubeschemas -swagger swagger.json -version v1.37.2 -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/floorbench/floorbench/internal/atomicfile"
)

func main() {
	swagger := flag.String("swagger", "", "OpenAPI v2 document of the Kubernetes API")
	version := flag.String("version", "", "Kubernetes version the document describes, e.g. v1.37.2")
	out := flag.String("out", "", "directory that receives the schema directories")
	flag.Parse()
	if *swagger == "" || *out == "" || !strings.HasPrefix(*version, "v") {
		fmt.Fprintln(os.Stderr, "usage: kubeschemas -swagger FILE -version vX.Y.Z -out DIR")
		os.Exit(2)
	}
	if err := run(*swagger, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "kubeschemas:", err)
		os.Exit(1)
	}
}

func run(swaggerPath, version, out string) error {
	data, err := os.ReadFile(swaggerPath)
	if err != nil {
		return err
	}
	var doc struct {
		Definitions map[string]schema `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", swaggerPath, err)
	}
	for _, strict := range []bool{false, true} {
		dir := filepath.Join(out, version+"-standalone")
		if strict {
			dir += "-strict"
		}
		n, err := writeAtomically(dir, func(tmp string) (int, error) {
			return writeKinds(tmp, doc.Definitions, strict)
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "kubeschemas: %d schemas in %s\n", n, dir)
	}
	return nil
}

// writeAtomically fills a temporary directory and renames it to dir
// (atomicfile.ReplaceDir), so that an interrupted run never leaves a
// directory that looks complete.
func writeAtomically(dir string, fill func(tmp string) (int, error)) (int, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return 0, err
	}
	n := 0
	err := atomicfile.ReplaceDir(dir, ".kubeschemas-", func(tmp string) error {
		var err error
		n, err = fill(tmp)
		return err
	})
	return n, err
}

func writeKinds(dir string, defs map[string]schema, strict bool) (int, error) {
	converted := make(map[string]schema, len(defs))
	for name, def := range defs {
		converted[name] = convert(name, def, strict)
	}
	written := map[string]bool{}
	for _, name := range sortedKeys(defs) {
		for _, gvk := range groupVersionKinds(defs[name]) {
			file := gvk.fileName()
			if written[file] {
				continue // the same kind under another definition (e.g. WatchEvent)
			}
			written[file] = true
			standalone := schema{"$schema": "http://json-schema.org/draft-04/schema#"}
			for k, v := range converted[name] {
				standalone[k] = v
			}
			standalone["definitions"] = reachable(name, converted)
			b, err := json.MarshalIndent(standalone, "", "  ")
			if err != nil {
				return 0, err
			}
			if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
				return 0, err
			}
		}
	}
	return len(written), nil
}
