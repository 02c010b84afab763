// Package workflows holds floorbench's Temporal workflows: deterministic
// orchestration only (docs/architecture.md#workflows). They read like the plan of a sweep; all
// I/O happens in activities, and only store keys and hashes travel in
// payloads.
package workflows

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/spec"
)

// SweepInput is a resolved sweep: the normalised spec with every local
// corpus and system spec replaced by what workers need.
type SweepInput struct {
	Spec     spec.Sweep
	SpecHash string
	Systems  []activities.SystemRef
	// Corpora[i] is how corpus Spec.Corpora[i] is obtained.
	Corpora     []CorpusSource
	CodeVersion string
}

// CorpusSource is one corpus: generated (Generate), ingested from a local
// folder (Dir), or already in the store under Prefix.
type CorpusSource struct {
	Name     string
	Generate *spec.Generate
	Dir      string
	Hash     string // content hash of an ingested corpus
	Prefix   string
}

// SweepResult names the bundle a sweep produced.
type SweepResult struct {
	BundleID string
}

// corpusAudit is the version of the sweep that audits its generated
// corpora for trivial-rule shortcuts (package audit) alongside the
// evaluations and carries the audits into the bundle.
const corpusAudit = "corpus-audit"

// childrenByReference is the version of the sweep that starts each
// evaluation with its corpus by reference (prefix and hash, no list of
// conversations); the evaluation reads the list from the stored manifest.
// With the list in every child's input, the sweep's history grew with
// systems × conversations: 14 MB at 100 systems × 10,000 conversations,
// past Temporal's 10 MB warning.
const childrenByReference = "children-by-reference"

// checkSpec is the version of the sweep that checks its spec on the worker
// (activities.CheckSpec) before anything runs.
const checkSpec = "check-spec"

// SweepWorkflow runs a sweep (docs/architecture.md#workflows): check the spec, resolve every corpus, audit the
// generated ones, evaluate every system on every corpus in child
// workflows, aggregate one bundle.
func SweepWorkflow(ctx workflow.Context, in SweepInput) (SweepResult, error) {
	p := &Progress{Phase: "corpora", SystemsTotal: len(in.Systems) * len(in.Corpora), Systems: len(in.Systems)}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Progress, error) { return *p, nil }); err != nil {
		return SweepResult{}, err
	}
	// Sweeps recorded before progressByQuery count their children's
	// signals; later ones count finished children and let the client ask
	// the running ones.
	byQuery := workflow.GetVersion(ctx, progressByQuery, workflow.DefaultVersion, 1) != workflow.DefaultVersion
	deltas := workflow.GetSignalChannel(ctx, progressSignal)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var d progressDelta
			deltas.Receive(ctx, &d)
			p.ConversationsTotal += d.Planned
			p.TracksTotal += d.Planned * len(in.Systems)
			p.ConversationsGenerated += d.Generated
			p.TracksInferred += d.Inferred
		}
	})
	s := in.Spec
	self := workflow.GetInfo(ctx).WorkflowExecution.ID
	// Sweeps recorded before checkSpec start with their corpora.
	if workflow.GetVersion(ctx, checkSpec, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		if err := workflow.ExecuteLocalActivity(lctx, activities.CheckSpec, s).Get(ctx, nil); err != nil {
			return SweepResult{}, err
		}
	}

	plans := make([]activities.CorpusPlan, len(in.Corpora))
	var futures []workflow.ChildWorkflowFuture
	for _, c := range in.Corpora {
		name := "corpus-" + c.Name
		p.started(self+"/"+name, ChildCorpus)
		futures = append(futures, workflow.ExecuteChildWorkflow(childOptions(ctx, self, name),
			CorpusWorkflow, CorpusInput{Source: c, Queues: s.Queues, Concurrency: s.Concurrency, Parent: self}))
	}
	for i, f := range futures {
		if err := f.Get(ctx, &plans[i]); err != nil {
			return SweepResult{}, fmt.Errorf("corpus %s: %w", in.Corpora[i].Name, err)
		}
		p.finished(self + "/corpus-" + in.Corpora[i].Name)
		if byQuery {
			n := len(plans[i].Conversations)
			p.ConversationsTotal += n
			p.ConversationsGenerated += n
			p.TracksTotal += n * len(in.Systems)
		}
	}

	// Sweeps recorded before corpusAudit aggregate without audits.
	var audits []workflow.Future
	var auditRefs []activities.AuditRef
	if workflow.GetVersion(ctx, corpusAudit, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		actx := workflow.WithActivityOptions(ctx, activityOptions(s.Queues.CPU, time.Hour))
		for _, plan := range plans {
			if plan.Kind != corpus.KindMPTB {
				continue
			}
			auditRefs = append(auditRefs, activities.AuditRef{Corpus: plan.Name})
			audits = append(audits, workflow.ExecuteActivity(actx, (*activities.Activities).Audit,
				activities.AuditInput{Corpus: plan, Params: s.Params(), Resamples: s.Resamples(), Seed: s.Bootstrap.Seed}))
		}
	}

	p.Phase = "evaluation"
	release, err := acquireGPUs(ctx, in, len(plans))
	if err != nil {
		return SweepResult{}, err
	}
	defer release()
	// Every evaluation starts at once. One of a corpus without dev data
	// infers its tracks, then waits for its threshold source's evaluation
	// to be stored (the sweep signals it) and reads the operating points.
	sources := TransferSources(in.Spec, plans)
	n := len(plans)
	evals := make([]workflow.ChildWorkflowFuture, len(in.Systems)*n)
	evalKeys := make([]string, len(evals))
	// Evaluation i is system i/n on corpus i%n.
	evalName := func(i int) string { return "eval-" + in.Systems[i/n].Name + "-" + plans[i%n].Name }
	byReference := workflow.GetVersion(ctx, childrenByReference, workflow.DefaultVersion, 1) == 1
	for i := range evals {
		sys, plan := in.Systems[i/n], plans[i%n]
		if byReference {
			plan = corpusRef(plan)
		}
		ev := EvaluationInput{
			System: sys, Corpus: plan, Queue: queueFor(sys, s.Queues), CPUQueue: s.Queues.CPU,
			Params: s.Params(), Resamples: s.Resamples(), Seed: s.Bootstrap.Seed,
			Concurrency: s.Concurrency, Parent: self,
		}
		if src := sources[i%n]; src >= 0 {
			key := activities.EvaluationKey(activities.EvaluateInput{System: sys, Corpus: plans[src], Params: ev.Params, Resamples: ev.Resamples, Seed: ev.Seed})
			ev.Transfer, ev.AwaitTransfer = &activities.Transfer{Corpus: plans[src].Name, Evaluation: key}, true
		}
		p.started(self+"/"+evalName(i), ChildEvaluation)
		evals[i] = workflow.ExecuteChildWorkflow(childOptions(ctx, self, evalName(i)), EvaluationWorkflow, ev)
	}
	// Sources first: as each is stored, the evaluations waiting for it go on.
	for _, dependent := range []bool{false, true} {
		for i, f := range evals {
			if plans[i%n].NoDev != dependent {
				continue
			}
			if err := f.Get(ctx, &evalKeys[i]); err != nil {
				return SweepResult{}, err
			}
			p.finished(self + "/" + evalName(i))
			p.SystemsScored++
			if byQuery {
				p.TracksInferred += len(plans[i%n].Conversations)
			}
			for j := range evals {
				if j/n == i/n && sources[j%n] == i%n {
					if err := evals[j].SignalChildWorkflow(ctx, transferReady, nil).Get(ctx, nil); err != nil {
						return SweepResult{}, err
					}
				}
			}
		}
	}

	for i, f := range audits {
		if err := f.Get(ctx, &auditRefs[i].Key); err != nil {
			return SweepResult{}, fmt.Errorf("audit of corpus %s: %w", auditRefs[i].Corpus, err)
		}
	}

	p.Phase = "aggregation"
	meta := BundleMeta(in, plans)
	var id string
	actx := workflow.WithActivityOptions(ctx, activityOptions(s.Queues.CPU, 10*time.Minute))
	agg := activities.AggregateInput{Meta: meta, Evaluations: evalKeys, Audits: auditRefs}
	if err := workflow.ExecuteActivity(actx, (*activities.Activities).Aggregate, agg).Get(ctx, &id); err != nil {
		return SweepResult{}, err
	}
	p.Phase, p.BundleID = "done", id
	return SweepResult{BundleID: id}, nil
}

// BundleMeta is what identifies the bundle of a sweep over these corpora.
func BundleMeta(in SweepInput, plans []activities.CorpusPlan) bundle.Meta {
	canonical, _ := in.Spec.Canonical()
	m := bundle.Meta{Name: in.Spec.Name, SpecHash: in.SpecHash, Spec: canonical, CodeVersion: in.CodeVersion,
		Protocol: in.Spec.Params(), Resamples: in.Spec.Resamples(), Seed: in.Spec.Bootstrap.Seed}
	for _, p := range plans {
		m.Inputs = append(m.Inputs, bundle.InputRef{Kind: "corpus", Name: p.Name, Hash: p.Hash})
	}
	for _, s := range in.Systems {
		m.Inputs = append(m.Inputs, bundle.InputRef{Kind: "system", Name: s.Name, Hash: s.Hash})
	}
	return m
}

// TransferSources gives, per corpus, the corpus whose dev operating points
// it uses when it has none (-1: none, or it has its own): the spec's
// transfer_from, else the first generated corpus with dev data.
func TransferSources(s spec.Sweep, plans []activities.CorpusPlan) []int {
	out := make([]int, len(plans))
	fallback := slices.IndexFunc(plans, func(p activities.CorpusPlan) bool { return p.Kind == corpus.KindMPTB && !p.NoDev })
	for i, p := range plans {
		out[i] = -1
		if !p.NoDev {
			continue
		}
		out[i] = fallback
		if from := s.Corpora[i].TransferFrom; from != "" {
			out[i] = slices.IndexFunc(plans, func(q activities.CorpusPlan) bool { return q.Name == from && !q.NoDev })
		}
	}
	return out
}

// queueFor sends ONNX-model systems to the GPU queue (docs/architecture.md#task-queues).
func queueFor(sys activities.SystemRef, q spec.Queues) string {
	if sys.NeedsModel {
		return q.GPU
	}
	return q.CPU
}

func childOptions(ctx workflow.Context, parent, name string) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: parent + "/" + name,
		TaskQueue:  workflow.GetInfo(ctx).TaskQueueName,
	})
}

// maxAttempts bounds an activity's tries. Transient faults (a worker
// killed, the store restarting) heal in a few; an activity waiting for a
// worker uses none, so a queue without workers waits rather than fails.
const maxAttempts = 20

// activityOptions: transient faults retry with backoff, at most maxAttempts
// times; what retrying cannot heal (bad input, a corrupt stored object)
// fails at once. Long activities heartbeat while they work, so a dead
// worker is noticed within the heartbeat timeout and a live one is never
// timed out.
func activityOptions(queue string, timeout time.Duration) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        30 * time.Second,
			MaximumAttempts:        maxAttempts,
			NonRetryableErrorTypes: []string{"BadInput", "Corrupt"},
		},
	}
}

// acquireGPUs scales the GPU workers up for the ONNX systems' inference
// (one worker per GPU evaluation, bounded by the pool's maximum) and
// returns the cleanup that scales them back. The cleanup runs on a
// disconnected context, so a failed or cancelled sweep releases too.
func acquireGPUs(ctx workflow.Context, in SweepInput, corpora int) (func(), error) {
	n := 0
	for _, s := range in.Systems {
		if s.NeedsModel {
			n += corpora
		}
	}
	if n == 0 {
		return func() {}, nil
	}
	claim := activities.CapacityInput{Holder: workflow.GetInfo(ctx).WorkflowExecution.ID, Replicas: int32(n)}
	opts := activityOptions(in.Spec.Queues.CPU, 20*time.Minute)
	opts.HeartbeatTimeout = 0 // waiting for pods to become ready does not heartbeat
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), (*activities.Activities).AcquireGPU, claim).Get(ctx, nil)
	release := func() {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		_ = workflow.ExecuteActivity(workflow.WithActivityOptions(dctx, opts), (*activities.Activities).ReleaseGPU, claim).Get(dctx, nil)
	}
	if err != nil {
		release()
		return nil, err
	}
	return release, nil
}
