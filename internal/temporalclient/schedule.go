package temporalclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/webhook"
	"github.com/floorbench/floorbench/workflows"
)

// Schedules run NightlyWorkflow on Temporal's own Schedules API
// (docs/architecture.md#workflows): Temporal keeps the calendar,
// skips a run while the previous one still runs, and starts runs missed
// while it or the workers were down when they return, within the catch-up
// window.

// scheduleIDPrefix keeps floorbench's schedules apart from others in the
// namespace; the runs a schedule starts are named by it and the scheduled
// time that Temporal appends.
const scheduleIDPrefix = "floorbench-nightly-"

// DefaultCatchupWindow is how late a missed run may still start.
const DefaultCatchupWindow = 12 * time.Hour

// ScheduleSettings are a schedule's settings (nightly owns them).
type ScheduleSettings = nightly.Settings

// ScheduleState is a schedule as Temporal describes it.
type ScheduleState struct {
	ScheduleSettings
	ID             string      `json:"schedule_id"`
	Paused         bool        `json:"paused"`
	Note           string      `json:"note,omitempty"`
	Overlap        string      `json:"overlap"`
	Actions        int         `json:"actions"`
	SkippedOverlap int         `json:"skipped_overlap"`
	MissedCatchup  int         `json:"missed_catchup_window"`
	Running        []string    `json:"running,omitempty"`
	Recent         []RunStart  `json:"recent_starts,omitempty"`
	Next           []time.Time `json:"next_runs,omitempty"`
}

// Masked is the state as it may be shown: the webhook URL masked
// (webhook.Mask). The real URL stays in the schedule, where the runs need
// it.
func (s ScheduleState) Masked() ScheduleState {
	if s.Notify != "" {
		s.Notify = webhook.Mask(s.Notify)
	}
	return s
}

// RunStart is one run a schedule started.
type RunStart struct {
	Scheduled  time.Time `json:"scheduled_time"`
	Started    time.Time `json:"actual_time"`
	WorkflowID string    `json:"workflow_id"`
	// State is the run's workflow state: running, completed, failed...
	State string `json:"state"`
}

// memoSettings is the memo key the settings are kept under: in the memo
// of the workflows the schedule's action starts, which an update can
// replace (a schedule's own memo cannot be updated; schedules created
// before update existed keep their settings there).
const memoSettings = "floorbench"

// scheduleSpec is when the settings say runs are due.
func scheduleSpec(s ScheduleSettings) client.ScheduleSpec {
	if s.Cron != "" {
		return client.ScheduleSpec{CronExpressions: []string{s.Cron}}
	}
	return client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: s.Every}}}
}

// scheduleAction starts NightlyWorkflow with the settings, and keeps them
// in its memo.
func scheduleAction(s ScheduleSettings) *client.ScheduleWorkflowAction {
	return &client.ScheduleWorkflowAction{
		ID:        scheduleIDPrefix + s.Name,
		Workflow:  workflows.NightlyWorkflow,
		Args:      []any{workflows.NightlyInput{Schedule: s.Name, SpecKey: s.SpecKey, Baseline: s.Baseline, Tolerance: s.Tolerance, Notify: s.Notify}},
		TaskQueue: s.TaskQueue,
		Memo:      map[string]any{memoSettings: s},
	}
}

// CreateSchedule creates the schedule of settings, paused (unpause it
// once its spec is stored): its action starts NightlyWorkflow with overlap
// policy skip and the catch-up window.
func CreateSchedule(ctx context.Context, cl client.Client, s ScheduleSettings) error {
	_, err := cl.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:            scheduleIDPrefix + s.Name,
		Spec:          scheduleSpec(s),
		Action:        scheduleAction(s),
		Overlap:       enums.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: s.CatchupWindow,
		Paused:        true,
	})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) || isAlreadyExists(err) {
		return fmt.Errorf("schedule %s already exists (delete it first, or pick another name)", s.Name)
	}
	if err != nil {
		return fmt.Errorf("schedule %s: %s", s.Name, serverMessage(err))
	}
	return nil
}

func isAlreadyExists(err error) bool {
	var exists *serviceerror.AlreadyExists
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &exists) || errors.As(err, &started)
}

// serverMessage is a Temporal error's message without the gRPC wrapping.
func serverMessage(err error) string {
	var invalid *serviceerror.InvalidArgument
	if errors.As(err, &invalid) {
		return invalid.Message
	}
	return err.Error()
}

// schedule is the handle of a named schedule that exists.
func schedule(ctx context.Context, cl client.Client, name string) (client.ScheduleHandle, *client.ScheduleDescription, error) {
	if err := nightly.CheckName(name); err != nil {
		return nil, nil, err
	}
	h := cl.ScheduleClient().GetHandle(ctx, scheduleIDPrefix+name)
	desc, err := h.Describe(ctx)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil, nil, fmt.Errorf("schedule %s: no such schedule (floorbench schedule ls lists them)", name)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("schedule %s: %w", name, err)
	}
	return h, desc, nil
}

// DescribeSchedule is a schedule's settings and Temporal's account of it.
func DescribeSchedule(ctx context.Context, cl client.Client, name string) (ScheduleState, error) {
	_, desc, err := schedule(ctx, cl, name)
	if err != nil {
		return ScheduleState{}, err
	}
	st := ScheduleState{ID: scheduleIDPrefix + name, Overlap: "skip",
		Actions: desc.Info.NumActions, SkippedOverlap: desc.Info.NumActionsSkippedOverlap, MissedCatchup: desc.Info.NumActionsMissedCatchupWindow,
		Next: desc.Info.NextActionTimes}
	if p := desc.Schedule.Policy; p != nil && p.Overlap != enums.SCHEDULE_OVERLAP_POLICY_SKIP {
		st.Overlap = strings.ToLower(strings.TrimPrefix(p.Overlap.String(), "SCHEDULE_OVERLAP_POLICY_"))
	}
	if s := desc.Schedule.State; s != nil {
		st.Paused, st.Note = s.Paused, s.Note
	}
	if st.ScheduleSettings, err = settings(desc); err != nil {
		return st, fmt.Errorf("schedule %s: settings: %w", name, err)
	}
	for _, r := range desc.Info.RunningWorkflows {
		st.Running = append(st.Running, r.WorkflowID)
	}
	for _, a := range desc.Info.RecentActions {
		rs := RunStart{Scheduled: a.ScheduleTime, Started: a.ActualTime}
		if a.StartWorkflowResult != nil {
			rs.WorkflowID = a.StartWorkflowResult.WorkflowID
			if d, err := cl.DescribeWorkflow(ctx, rs.WorkflowID, a.StartWorkflowResult.FirstExecutionRunID); err == nil {
				rs.State = stateName(d.Status)
			}
		}
		st.Recent = append(st.Recent, rs)
	}
	return st, nil
}

// settings are the settings a schedule keeps in its action's memo (or,
// created before update existed, in its own).
func settings(desc *client.ScheduleDescription) (ScheduleSettings, error) {
	var s ScheduleSettings
	p := desc.Memo.GetFields()[memoSettings]
	if a, ok := desc.Schedule.Action.(*client.ScheduleWorkflowAction); ok {
		if m, ok := a.Memo[memoSettings].(*commonpb.Payload); ok {
			p = m
		}
	}
	if p == nil {
		return s, nil
	}
	err := converter.GetDefaultDataConverter().FromPayload(p, &s)
	return s, err
}

// UpdateSchedule replaces a schedule's settings with s (the same name):
// when runs are due, the catch-up window and what each run starts with.
// Its paused state, its counts and its runs stay. A cron expression
// Temporal rejects changes nothing.
func UpdateSchedule(ctx context.Context, cl client.Client, s ScheduleSettings) error {
	h, _, err := schedule(ctx, cl, s.Name)
	if err != nil {
		return err
	}
	err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		sch := in.Description.Schedule
		spec := scheduleSpec(s)
		sch.Spec, sch.Action = &spec, scheduleAction(s)
		if sch.Policy == nil {
			sch.Policy = &client.SchedulePolicies{Overlap: enums.SCHEDULE_OVERLAP_POLICY_SKIP}
		}
		sch.Policy.CatchupWindow = s.CatchupWindow
		return &client.ScheduleUpdate{Schedule: &sch}, nil
	}})
	if err != nil {
		return fmt.Errorf("schedule %s: %s", s.Name, serverMessage(err))
	}
	return nil
}

// ListSchedules describes every floorbench schedule, by name.
func ListSchedules(ctx context.Context, cl client.Client) ([]ScheduleState, error) {
	it, err := cl.ScheduleClient().List(ctx, client.ScheduleListOptions{PageSize: 100})
	if err != nil {
		return nil, err
	}
	var names []string
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, err
		}
		if name, ok := strings.CutPrefix(e.ID, scheduleIDPrefix); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := []ScheduleState{}
	for _, n := range names {
		st, err := DescribeSchedule(ctx, cl, n)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// PauseSchedule pauses (or with pause false, unpauses) a schedule.
func PauseSchedule(ctx context.Context, cl client.Client, name string, pause bool, note string) error {
	h, _, err := schedule(ctx, cl, name)
	if err != nil {
		return err
	}
	if pause {
		return h.Pause(ctx, client.SchedulePauseOptions{Note: note})
	}
	return h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: note})
}

// TriggerSchedule starts a run now, under the schedule's overlap policy:
// while a run is running, the trigger is skipped. Temporal names a
// scheduled run by its second, so a trigger within the second of the last
// run would be that run again: it waits for the next second first.
func TriggerSchedule(ctx context.Context, cl client.Client, name string) error {
	h, desc, err := schedule(ctx, cl, name)
	if err != nil {
		return err
	}
	if recent := desc.Info.RecentActions; len(recent) > 0 {
		last := recent[len(recent)-1].ScheduleTime.Truncate(time.Second)
		if wait := time.Until(last.Add(time.Second)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return h.Trigger(ctx, client.ScheduleTriggerOptions{})
}

// BackfillSchedule starts the runs due in [from, to], one after another
// (a backfill buffers its runs rather than skipping them), and returns how
// many. More than lim.BackfillRuns is refused before any starts, with the
// number it would start.
func BackfillSchedule(ctx context.Context, cl client.Client, namespace, name string, from, to time.Time, lim limits.Limits) (int, error) {
	if !from.Before(to) {
		return 0, fmt.Errorf("--from %s is not before --to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	h, _, err := schedule(ctx, cl, name)
	if err != nil {
		return 0, err
	}
	n, exact, err := dueRuns(ctx, cl, namespace, name, from, to, lim.BackfillRuns)
	if err != nil {
		return 0, err
	}
	field := fmt.Sprintf("schedule %s: a backfill from %s to %s", name, from.Format(time.RFC3339), to.Format(time.RFC3339))
	if err := lim.CheckBackfillRuns(field, n, !exact); err != nil {
		return n, err
	}
	return n, h.Backfill(ctx, client.ScheduleBackfillOptions{Backfill: []client.ScheduleBackfill{
		{Start: from, End: to, Overlap: enums.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL}}})
}

// matchingTimesPage is how many due times Temporal lists at most in one
// answer (its scheduler's maxListMatchingTimesCount).
const matchingTimesPage = 1000

// dueRuns counts the times the schedule was due in [from, to], as
// Temporal's own calendar says (its cron, interval, time zone and jitter).
// Past max+1 it stops listing and extrapolates from the times listed: n
// is then an estimate (exact false) and over max.
func dueRuns(ctx context.Context, cl client.Client, namespace, name string, from, to time.Time, max int) (n int, exact bool, err error) {
	start := from
	for {
		resp, err := cl.WorkflowService().ListScheduleMatchingTimes(ctx, &workflowservice.ListScheduleMatchingTimesRequest{
			Namespace: namespace, ScheduleId: scheduleIDPrefix + name, StartTime: timestamppb.New(start), EndTime: timestamppb.New(to)})
		if err != nil {
			return 0, false, fmt.Errorf("schedule %s: list its due times: %s", name, serverMessage(err))
		}
		times := resp.GetStartTime()
		n += len(times)
		if len(times) < matchingTimesPage {
			return n, true, nil
		}
		last := times[len(times)-1].AsTime()
		if n > max {
			covered := last.Sub(from)
			if covered <= 0 {
				return n, false, nil
			}
			return int(float64(n) * float64(to.Sub(from)) / float64(covered)), false, nil
		}
		start = last.Add(time.Nanosecond)
	}
}

// DeleteSchedule deletes a schedule; its runs and their records stay.
func DeleteSchedule(ctx context.Context, cl client.Client, name string) error {
	h, _, err := schedule(ctx, cl, name)
	if err != nil {
		return err
	}
	return h.Delete(ctx)
}
