//go:build !floorbench_light

package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/temporalclient"
)

func init() { subcommands = append(subcommands, newScheduleCommand) }

func newScheduleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: fullOnly["schedule"],
		Long: `A schedule runs a sweep spec on Temporal's Schedules API (a cron expression
or an interval), compares each run's bundle with the baseline (the
schedule's previous successful run, or a pinned bundle) with paired
conversation bootstrap verdicts, stores verdict.json and verdict.md beside
the run, and can post the verdict to a webhook.

The spec is stored once; every run resolves it again on the worker, so a
system spec or model file replaced at the same path, a corpus folder
updated or a new worker version is picked up by the next run and recorded
in its manifest. Unchanged inputs reuse every stored corpus, track and
evaluation and give the same bundle. Verdicts: docs/protocol.md#paired-comparisons.`,
	}
	cmd.AddCommand(newScheduleCreateCommand(), newScheduleUpdateCommand(), newScheduleLsCommand(), newScheduleShowCommand(),
		newSchedulePauseCommand(true), newSchedulePauseCommand(false), newScheduleTriggerCommand(),
		newScheduleBackfillCommand(), newScheduleDeleteCommand(), newScheduleHistoryCommand())
	return cmd
}

// scheduleCommand is a command about schedules: it checks the schedule
// name, reads the configuration, opens the store, connects to Temporal and
// hands run both. Nothing is changed before every check has passed.
func scheduleCommand(cmd *cobra.Command, output *string, run func(ctx context.Context, cl temporalclient.Client, st store.Store, args []string) error) *cobra.Command {
	return configuredScheduleCommand(cmd, output, func(ctx context.Context, _ config.Config, cl temporalclient.Client, st store.Store, args []string) error {
		return run(ctx, cl, st, args)
	})
}

// configuredScheduleCommand is scheduleCommand whose run also gets the
// configuration (what it allows webhooks).
func configuredScheduleCommand(cmd *cobra.Command, output *string, run func(ctx context.Context, cfg config.Config, cl temporalclient.Client, st store.Store, args []string) error) *cobra.Command {
	config := configFlags(cmd)
	outputFlag(cmd, output, statusFormats)
	return withServices(cmd, config, func(sv *services, args []string) error {
		if len(args) > 0 {
			if err := nightly.CheckName(args[0]); err != nil {
				return err
			}
		}
		st, cl, err := sv.Both()
		if err != nil {
			return err
		}
		cfg, err := sv.Config()
		if err != nil {
			return err
		}
		return run(sv.ctx, cfg, cl, st, args)
	})
}
