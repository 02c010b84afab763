package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/floorbench/floorbench/internal/redact"
)

// decodeConfig reads a config file's YAML over c. Unlike yaml.Unmarshal it
// refuses a key it does not know (a typo in store_dir must not silently
// use another store), and a value of the wrong type is named by its key
// and line only: the YAML decoder's own message quotes the value, which
// may be a secret. Every error is one line.
func decodeConfig(data []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file sets nothing
		}
		return yamlError(err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return yamlError(err)
		}
		return fmt.Errorf("line %d: a config file is one YAML document", next.Line)
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil // an empty document sets nothing
	}
	return decodeMapping(root, reflect.ValueOf(c).Elem(), "")
}

// yamlError is a YAML syntax error on one line; it quotes no value.
func yamlError(err error) error { return redact.YAML(err) }

// decodeMapping decodes a mapping node into the struct v, whose fields are
// named by their yaml tags; prefix is the path of v's keys ("limits.").
func decodeMapping(n *yaml.Node, v reflect.Value, prefix string) error {
	if n.Kind != yaml.MappingNode {
		if prefix == "" {
			return fmt.Errorf("line %d: want a mapping of keys to values", n.Line)
		}
		return fmt.Errorf("line %d: %s: want a mapping of keys to values", n.Line, strings.TrimSuffix(prefix, "."))
	}
	fields := map[string]reflect.Value{}
	for i := 0; i < v.NumField(); i++ {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			fields[tag] = v.Field(i)
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		f, ok := fields[k.Value]
		if !ok {
			return fmt.Errorf("line %d: unknown key %s", k.Line, redact.Name(key))
		}
		if seen[k.Value] {
			return fmt.Errorf("line %d: key %s given twice", k.Line, redact.Name(key))
		}
		seen[k.Value] = true
		if f.Kind() == reflect.Struct {
			if err := decodeMapping(val, f, key+"."); err != nil {
				return err
			}
			continue
		}
		if err := val.Decode(f.Addr().Interface()); err != nil {
			return fmt.Errorf("line %d: %s: want %s", val.Line, key, kindName(f.Kind()))
		}
	}
	return nil
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Map:
		return "a mapping of names to strings"
	}
	return "a string"
}
