package config

import (
	"fmt"
	"os"

	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/spec"
)

// Credentials finds an agent's credential by the name a spec's
// credential_env gives: the environment variable of that name, else the
// config file's agent_credentials entry. The error names the variable,
// never a value.
func (c Config) Credentials() func(name string) (credential.Secret, error) {
	file := c.AgentCredentials
	return func(name string) (credential.Secret, error) {
		if v, ok := os.LookupEnv(name); ok && v != "" {
			return credential.Secret(v), nil
		}
		if v := file[name]; v != "" {
			return credential.Secret(v), nil
		}
		return "", fmt.Errorf("environment variable %s is not set, nor agent_credentials.%s in the config file", name, name)
	}
}

// CheckAgentCredentials makes sure every agent's credential can be found
// here before anything starts: one line naming the agent and the variable.
func CheckAgentCredentials(s *spec.Sweep, credentials func(name string) (credential.Secret, error)) error {
	for i, a := range s.Agents {
		if a.CredentialEnv == "" {
			continue
		}
		if _, err := credentials(a.CredentialEnv); err != nil {
			return fmt.Errorf("agents[%d] (%s).credential_env: %w", i, a.Name, err)
		}
	}
	return nil
}
