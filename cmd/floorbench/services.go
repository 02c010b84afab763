//go:build !floorbench_light

package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

// services are what a command connects to, the store and Temporal, each
// opened once and only when the command first asks for it, from the
// configuration its flags read (storeFlags or configFlags). A command that
// only reads the store never dials Temporal, and one whose own checks fail
// opens nothing.
type services struct {
	ctx    context.Context
	config func() (config.Config, error)
	cfg    *config.Config
	st     store.Store
	cl     temporalclient.Client
}

// withServices sets cmd's RunE to run with the services config
// describes; the Temporal client, if run dialled it, is closed after.
func withServices(cmd *cobra.Command, config func() (config.Config, error), run func(sv *services, args []string) error) *cobra.Command {
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		sv := &services{ctx: cmd.Context(), config: config}
		defer sv.close()
		return run(sv, args)
	}
	return cmd
}

// Config reads the configuration: file, then environment, then flags.
func (s *services) Config() (config.Config, error) {
	if s.cfg == nil {
		c, err := s.config()
		if err != nil {
			return c, err
		}
		s.cfg = &c
	}
	return *s.cfg, nil
}

// Store opens the configured store.
func (s *services) Store() (store.Store, error) {
	if s.st == nil {
		cfg, err := s.Config()
		if err != nil {
			return nil, err
		}
		if s.st, err = cfg.OpenStore(s.ctx); err != nil {
			return nil, err
		}
	}
	return s.st, nil
}

// Temporal dials the configured Temporal frontend.
func (s *services) Temporal() (temporalclient.Client, error) {
	if s.cl == nil {
		cfg, err := s.Config()
		if err != nil {
			return nil, err
		}
		if s.cl, err = temporalclient.Dial(s.ctx, cfg); err != nil {
			return nil, err
		}
	}
	return s.cl, nil
}

// Both opens the store, then dials Temporal: a store that cannot be
// opened is reported before an unreachable Temporal.
func (s *services) Both() (store.Store, temporalclient.Client, error) {
	st, err := s.Store()
	if err != nil {
		return nil, nil, err
	}
	cl, err := s.Temporal()
	if err != nil {
		return nil, nil, err
	}
	return st, cl, nil
}

func (s *services) close() {
	if s.cl != nil {
		s.cl.Close()
	}
}

// configFlags adds storeFlags and the Temporal connection flags, for the
// commands that contact Temporal (submit, status, watch, worker,
// quickstart).
func configFlags(cmd *cobra.Command) func() (config.Config, error) {
	read := storeFlags(cmd)
	f := cmd.Flags()
	address := f.String("temporal-address", "", "Temporal frontend host:port (env FLOORBENCH_TEMPORAL_ADDRESS)")
	namespace := f.String("namespace", "", "Temporal namespace (env FLOORBENCH_TEMPORAL_NAMESPACE)")
	return func() (config.Config, error) {
		c, err := read()
		if err != nil {
			return c, err
		}
		setFlag(cmd, "temporal-address", address, &c.TemporalAddress)
		setFlag(cmd, "namespace", namespace, &c.Namespace)
		return c, nil
	}
}
