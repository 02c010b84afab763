package cluster

import (
	"encoding/json"
	"fmt"
)

// ClaimsAnnotation is the annotation on the GPU worker Deployment that records
// which holders claim how many replicas, as a JSON object.
const ClaimsAnnotation = "floorbench.io/gpu-claims"

// claims maps a holder (a sweep's workflow id) to the replicas it needs.
type claims map[string]int32

func parseClaims(annotation string) (claims, error) {
	c := claims{}
	if annotation == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(annotation), &c); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", ClaimsAnnotation, err)
	}
	return c, nil
}

// annotation is the value to store, or nil to remove the annotation when no
// claim is left (a JSON merge patch deletes a key set to null).
func (c claims) annotation() *string {
	if len(c) == 0 {
		return nil
	}
	b, err := json.Marshal(map[string]int32(c)) // keys sorted: stable values
	if err != nil {
		panic(err) // a map of strings to integers always marshals
	}
	s := string(b)
	return &s
}

// size is the pool size the claims call for: their sum, at most maxReplicas
// and at least resting.
func (c claims) size(resting, maxReplicas int32) int32 {
	var sum int64
	for _, n := range c {
		sum += int64(n)
	}
	return int32(max(min(sum, int64(maxReplicas)), int64(resting)))
}
