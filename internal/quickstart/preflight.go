package quickstart

import (
	"context"
	"fmt"

	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/spec"
)

// PreflightAgents opens one session with every agent and closes it, so
// that an endpoint that refuses, or a credential it rejects, is one line
// before anything starts. Where the sweep runs elsewhere (submit) the
// workers may reach endpoints this machine cannot, so only the
// quickstart, which runs here, preflights.
func PreflightAgents(ctx context.Context, s *spec.Sweep, credentials func(name string) (credential.Secret, error)) error {
	for i, a := range s.Agents {
		ep := a.ProtoEndpoint()
		if a.CredentialEnv != "" {
			secret, err := credentials(a.CredentialEnv)
			if err != nil {
				return fmt.Errorf("agents[%d] (%s).credential_env: %w", i, a.Name, err)
			}
			ep.Credential = secret
		}
		if err := harness.Preflight(ctx, ep); err != nil {
			return fmt.Errorf("agents[%d] (%s): %w", i, a.Name, err)
		}
	}
	return nil
}
