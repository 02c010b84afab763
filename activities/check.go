package activities

import (
	"context"

	"github.com/floorbench/floorbench/internal/spec"
)

// CheckSpec checks a submitted sweep again where it runs, under the
// worker's own limits (package limits): a client that predates the checks
// of submit, or one with raised limits, cannot make a worker run a sweep
// that exhausts it. It runs as a local activity: it reads nothing.
func CheckSpec(_ context.Context, s spec.Sweep) error {
	if err := s.Check(); err != nil {
		return badInput("%v", err)
	}
	return nil
}
