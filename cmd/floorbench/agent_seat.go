package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/seated"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
)

func init() { agentSubcommands = append(agentSubcommands, newAgentSeatCommand) }

// agentSeatFlags are the flags of `agent seat`.
type agentSeatFlags struct {
	corpus, out, split, speakers, output, keyEnv string
	dryRun                                       bool
	o                                            seated.Options
	p                                            seated.Params
}

func newAgentSeatCommand() *cobra.Command {
	f := &agentSeatFlags{o: seated.DefaultOptions("", proto.Endpoint{}), p: seated.DefaultParams()}
	cmd := &cobra.Command{
		Use:   "seat --corpus DIR --protocol duplex|realtime --endpoint URL --agent NAME --out DIR",
		Short: "Seat a voice agent in a corpus's conversations and write its predictions for floorbench score",
		Long: `For each conversation and each seat (a speaker the agent stands in for), stream
the other channels summed to mono to the agent in real time over the protocol,
record what it says, and read its speech onsets off that audio as predictions
(docs/agents.md#seated-agents): an onset is an EOT prediction for every other
speaker and, when another speaker was speaking, an INT prediction for the
seat's speaker. Writes sessions/<conversation>--seat<k>/ (session.json,
output.wav), predictions-dev.json and predictions-test.json (the submission
format, for floorbench score and leaderboard) and seated.json. Seats already
recorded in --out are not played again; when every seat is recorded the agent
is not contacted and the predictions are derived again from the recordings.
A session that fails after --retries is recorded with its error; then no
predictions are written and the command fails naming every failed seat.`,
		Example: `  floorbench agent seat --corpus tiny/ --protocol duplex --endpoint ws://127.0.0.1:8765/ \
    --agent my-agent --out seated/my-agent --dry-run
  floorbench agent seat --corpus tiny/ --protocol realtime --endpoint wss://api.example.com/v1/realtime \
    --model m --credential-env AGENT_KEY --agent my-agent --out seated/my-agent --concurrency 8
  floorbench score --gold gold-test.json --predictions seated/my-agent/predictions-test.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	fs := cmd.Flags()
	o := &f.o
	fs.StringVar(&f.corpus, "corpus", "", "native corpus folder (generated MPTB, TurnBench or AMI)")
	fs.StringVar(&f.out, "out", "", "folder of the recordings and predictions; seats already recorded there are not played again")
	fs.StringVar(&f.split, "split", "all", "split to seat: dev, test or all")
	fs.StringVar(&f.speakers, "speakers", "all", "seats: all, or speaker numbers such as 1,2")
	agentEndpointFlags(fs, "the agent's name in recordings", &o.Agent, &o.Model, &f.keyEnv, &o.Endpoint)
	fs.IntVar(&o.Concurrency, "concurrency", limits.DefaultAgentSessions, "sessions open at once (the endpoint's limit)")
	fs.IntVar(&o.Retries, "retries", limits.DefaultSessionRetries, "retries of a failed session before the seat is recorded as failed")
	fs.Float64Var(&o.Tail, "tail", limits.DefaultSeatTailS, "seconds of silence sent after each conversation")
	fs.Float64Var(&f.p.Refractory, "refractory", f.p.Refractory, "seconds: an onset this soon after the last prediction of the same speaker and task is dropped")
	fs.BoolVar(&f.dryRun, "dry-run", false, "say how many sessions and how long they take, and play nothing")
	outputFlag(cmd, &f.output, resultFormats)
	for _, name := range []string{"corpus", "protocol", "endpoint", "agent"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func (f *agentSeatFlags) run(cmd *cobra.Command) error {
	job, err := f.job(commandLimits(cmd))
	if err != nil {
		return err
	}
	seats, err := job.Seats()
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.dryRun {
		return f.estimate(w, job, seats)
	}
	if f.out == "" {
		return fmt.Errorf("--out is required unless --dry-run")
	}
	prog := newCountProgress(cmd.ErrOrStderr(), "sessions")
	job.Options.Progress = prog.Set
	res, err := job.Run(cmd.Context())
	prog.Clear()
	if err != nil {
		return err
	}
	if f.output == "json" {
		return writeJSON(w, res)
	}
	return writeResult(w, f.output, linesPart(fmt.Sprintf("%d sessions of %s over %s: %d played, %d already recorded; operating point: %s; in %s",
		res.Seats, res.Agent, res.Protocol, res.Played, res.Resumed, res.OperatingPoint, f.out)), tablePart(predictionsTable(res)))
}

// job checks the flags in one line each, before anything starts, and
// makes the job.
func (f *agentSeatFlags) job(lim limits.Limits) (seated.Job, error) {
	ep := &f.o.Endpoint
	ep.Realtime.Model = f.o.Model
	if err := f.o.Check(); err != nil {
		return seated.Job{}, err
	}
	if err := setCredential(ep, f.keyEnv); err != nil {
		return seated.Job{}, err
	}
	ep.Limits = lim
	if err := f.p.Validate(); err != nil {
		return seated.Job{}, err
	}
	speakers, err := seated.ParseSpeakers(f.speakers)
	if err != nil {
		return seated.Job{}, err
	}
	split := f.split
	switch split {
	case "all":
		split = ""
	case "dev", "test":
	default:
		return seated.Job{}, fmt.Errorf("--split %q (want dev, test or all)", f.split)
	}
	c, err := corpus.Open(f.corpus, lim)
	if err != nil {
		return seated.Job{}, err
	}
	return seated.Job{Corpus: c, Split: split, Speakers: speakers, Options: f.o, Params: f.p, Out: f.out}, nil
}

// estimate prints how many sessions the job has, how many --out holds
// already, and how long the others take.
func (f *agentSeatFlags) estimate(w io.Writer, job seated.Job, seats []seated.Seat) error {
	convs := map[string]bool{}
	for _, s := range seats {
		convs[s.Conversation.ID] = true
	}
	pending := seats
	if f.out != "" {
		var err error
		if pending, err = seated.Pending(job.Corpus, seats, job.Options, f.out); err != nil {
			return err
		}
	}
	rate := f.o.Endpoint.Rate
	if rate == 0 {
		rate = 1
	}
	_, err := fmt.Fprintf(w, "%d sessions (%d conversations) to %s over %s, %d recorded already: at most %s at concurrency %d and rate %g\n",
		len(seats), len(convs), f.o.Agent, f.o.Endpoint.Protocol, len(seats)-len(pending), seated.Estimate(pending, f.o), f.o.Concurrency, rate)
	return err
}

// predictionsTable lists the predictions files a seated run wrote.
func predictionsTable(res *seated.Result) *report.Table {
	t := &report.Table{Header: []string{"split", "file", "conversations", "EOT predictions", "INT predictions", "sha256"}, Labels: 2}
	for _, p := range res.Predictions {
		t.Rows = append(t.Rows, []string{p.Split, p.File, fmt.Sprint(p.Conversations), fmt.Sprint(p.EOT), fmt.Sprint(p.INT), p.SHA256})
	}
	return t
}
