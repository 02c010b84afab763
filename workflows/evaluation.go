package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/sweep"
)

// EvaluationInput asks for one system on one corpus.
type EvaluationInput struct {
	System      sweep.SystemRef
	Corpus      activities.CorpusPlan
	Queue       string // where inference runs
	CPUQueue    string
	Params      score.Params
	Resamples   int
	Seed        uint64
	Concurrency int
	Parent      string
	Next        int // where a continued-as-new run resumes inference
	// Transfer is where a corpus without dev data takes its thresholds;
	// with AwaitTransfer the workflow waits for the sweep's transferReady
	// signal (the source evaluation is stored) before evaluating.
	// TransferReady carries a signal received before continuing as new.
	Transfer                     *activities.Transfer
	AwaitTransfer, TransferReady bool
	// Batch is the number of conversations per Infer activity, fixed when
	// the workflow continues as new (0: not chosen yet).
	Batch int
	// Staged: the system's model stage runs in the sweep's ModelWorkflow;
	// the evaluation waits for the sweep's model-ready signal, then maps
	// the stored model outputs to tracks (MapFloor, on the CPU queue)
	// instead of inferring them (Infer). ModelReady carries a signal
	// received before continuing as new.
	Staged, ModelReady bool `json:",omitempty"`
}

// transferReady is the signal that tells an evaluation waiting for
// transferred thresholds that their source is stored; it carries the
// source's stored evaluation key.
const transferReady = "transfer-ready"

// EvaluationWorkflow makes the system's tracks on every conversation (in
// batches, one activity each, bounded): with a model stage (Staged), once
// the sweep signals that its outputs are stored, by mapping them on the
// CPU queue; else by inferring them on the system's queue. Then it
// evaluates: dev sweep and operating point, test at the frozen threshold,
// breakdowns and bootstrap intervals. It returns the stored evaluation's
// key.
func EvaluationWorkflow(ctx workflow.Context, in EvaluationInput) (string, error) {
	progress, err := newChildReporter(ctx)
	if err != nil {
		return "", err
	}
	convs := in.Corpus.Conversations
	if convs == nil {
		// Started by reference (childrenByReference): the list is read
		// from the stored manifest, once per run.
		var plan activities.CorpusPlan
		cpu := workflow.WithActivityOptions(ctx, activityOptions(in.CPUQueue, 10*time.Minute))
		if err := workflow.ExecuteActivity(cpu, (*activities.Activities).PlanStored,
			activities.PlanStoredInput{Name: in.Corpus.Name, Prefix: in.Corpus.Prefix}).Get(ctx, &plan); err != nil {
			return "", err
		}
		convs = plan.Conversations
	}
	if in.Batch == 0 { // started by anything but a sweep's plan
		in.Batch = activities.InferBatch(len(convs), in.Concurrency)
	}
	batches := in.Batches(convs)
	progress.plan(len(convs), min(len(convs), in.Next*in.Batch))
	if in.Staged && !in.ModelReady {
		workflow.GetSignalChannel(ctx, modelReady).Receive(ctx, nil)
		in.ModelReady = true
	}
	tracks := in.tracks(ctx)
	next, err := fanOut(ctx, in.Next, len(batches), in.Concurrency, func(i int) workflow.Future {
		return tracks(batches[i])
	}, func(i int) { progress.done(len(batches[i])) })
	if err != nil {
		return "", err
	}
	ready := workflow.GetSignalChannel(ctx, transferReady)
	if next < len(batches) {
		in.Next = next
		var key string
		if ready.ReceiveAsync(&key) {
			in = in.TransferStored(key)
		}
		return "", workflow.NewContinueAsNewError(ctx, EvaluationWorkflow, in)
	}
	if in.AwaitTransfer && !in.TransferReady {
		var key string
		ready.Receive(ctx, &key)
		in = in.TransferStored(key)
	}
	var key string
	cpu := workflow.WithActivityOptions(ctx, activityOptions(in.CPUQueue, 30*time.Minute))
	err = workflow.ExecuteActivity(cpu, (*activities.Activities).Evaluate, in.Evaluate()).Get(ctx, &key)
	return key, err
}

// tracks is how the evaluation makes one batch's tracks: mapping its model
// stage's outputs on the CPU queue (Staged), or inferring them on its
// system's queue.
func (in EvaluationInput) tracks(ctx workflow.Context) func(batch []string) workflow.Future {
	if in.Staged {
		mapping := workflow.WithActivityOptions(ctx, activityOptions(in.CPUQueue, 30*time.Minute))
		return func(batch []string) workflow.Future {
			return workflow.ExecuteActivity(mapping, (*activities.Activities).MapFloor, in.MapFloor(batch))
		}
	}
	infer := workflow.WithActivityOptions(ctx, activityOptions(in.Queue, 30*time.Minute))
	return func(batch []string) workflow.Future {
		return workflow.ExecuteActivity(infer, (*activities.Activities).Infer, in.Infer(batch))
	}
}

// MapFloor is the floor stage's activity input for one batch.
func (in EvaluationInput) MapFloor(batch []string) activities.FloorInput {
	return activities.FloorInput{System: in.System, Corpus: corpusRef(in.Corpus), Conversations: batch}
}

// TransferStored is the evaluation once its threshold source is stored
// under key ("": the key its input already names, as the transfer-ready
// signal of sweeps before transferByKey carries none).
func (in EvaluationInput) TransferStored(key string) EvaluationInput {
	in.TransferReady = true
	if key != "" && in.Transfer != nil {
		t := *in.Transfer
		t.Evaluation = key
		in.Transfer = &t
	}
	return in
}

// Batches cuts the corpus's conversations into the evaluation's batches.
func (in EvaluationInput) Batches(convs []string) [][]string { return Batches(convs, in.Batch) }

// Infer is the activity input for one batch; a batch of one keeps the
// single-conversation form of the executions recorded before batches.
func (in EvaluationInput) Infer(batch []string) activities.InferInput {
	if in.Batch == 1 {
		return activities.InferInput{System: in.System, Corpus: corpusRef(in.Corpus), Conversation: batch[0]}
	}
	return activities.InferInput{System: in.System, Corpus: corpusRef(in.Corpus), Conversations: batch}
}

// Evaluate is the input of the evaluation's Evaluate activity.
func (in EvaluationInput) Evaluate() activities.EvaluateInput {
	return activities.EvaluateInput{System: in.System, Corpus: corpusRef(in.Corpus), Params: in.Params,
		Resamples: in.Resamples, Seed: in.Seed, Transfer: in.Transfer}
}

// Batches cuts conversations into consecutive batches of size n.
func Batches(convs []string, n int) [][]string {
	var out [][]string
	for i := 0; i < len(convs); i += n {
		out = append(out, convs[i:min(len(convs), i+n)])
	}
	return out
}

// corpusRef is the corpus as an activity needs it: where it is stored and
// its hash, without the list of its conversations, which activities read
// from the stored manifest. Every Infer activity carrying the whole list
// made each input, and the history, grow with the corpus (140 KB per
// activity at 10,000 conversations).
func corpusRef(p activities.CorpusPlan) activities.CorpusPlan {
	p.Conversations = nil
	return p
}
