// Package config is floorbench's configuration (docs/operations.md): where
// Temporal and the store are, the schedule root, what webhooks may reach,
// the limits, and the credentials of agents and generative backends, read
// from a YAML file, then FLOORBENCH_* environment variables, then flags.
// It opens the configured store; dialling Temporal is temporalclient's.
// It imports store, keys, limits, spec, backend, agent/proto, webhook and
// redact, nothing of Temporal or of the orchestration.
package config
