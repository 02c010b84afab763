package activities

import (
	"context"

	"github.com/floorbench/floorbench/internal/spec"
)

// CheckSpec checks a submitted sweep again where it runs, under the
// worker's own limits (Activities.Limits): a client that predates the
// checks of submit, or one with raised limits, cannot make a worker run a
// sweep that exhausts it. It runs as a local activity: it reads nothing.
func (a *Activities) CheckSpec(_ context.Context, s spec.Sweep) error {
	if err := s.Check(a.limits()); err != nil {
		return badInput("%v", err)
	}
	return nil
}
