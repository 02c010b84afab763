package score

import (
	"fmt"
	"math"
	"strconv"

	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// Attributes are per-conversation labels to break results down by (speaker
// count, interaction type, SNR band, ...): conversation id -> name -> value.
type Attributes map[string]map[string]string

// ReadAttributes reads {"<conversation id>": {"<name>": string | number}}
// from a file of at most lim's input limit.
func ReadAttributes(path string, lim limits.Limits) (Attributes, error) {
	return jsonio.ReadFile(path, lim, ParseAttributes)
}

// ParseAttributes parses an attributes file's bytes.
func ParseAttributes(data []byte) (Attributes, error) {
	d := jsonio.NewDecoder(data)
	out := Attributes{}
	err := d.Object(func(id string) error {
		attrs := map[string]string{}
		out[id] = attrs
		return d.Object(func(name string) error {
			switch d.Peek() {
			case jsonio.String:
				v, err := d.String()
				attrs[name] = v
				return err
			case jsonio.Number:
				v, err := d.Float()
				if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
					err = fmt.Errorf("value %v is not finite", v)
				}
				attrs[name] = strconv.FormatFloat(v, 'g', -1, 64)
				if err != nil {
					return fmt.Errorf("conversation %s attribute %q: %w", redact.Name(id), name, err)
				}
				return nil
			}
			return fmt.Errorf("conversation %s attribute %q: want a string or a number", redact.Name(id), name)
		})
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Values returns attribute name's value for each id, in order; an id
// without it is an error naming both.
func (a Attributes) Values(ids []string, name string) ([]string, error) {
	out := make([]string, len(ids))
	for i, id := range ids {
		v, ok := a[id][name]
		if !ok {
			return nil, fmt.Errorf("conversation %s has no attribute %q", redact.Name(id), name)
		}
		out[i] = v
	}
	return out, nil
}
