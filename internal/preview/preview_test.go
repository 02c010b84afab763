package preview_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/preview"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/internal/testenv"
)

// The preview of the fixture sweep names, before anything is stored, the
// keys the in-process run then stores: every evaluation key and the bundle
// id; afterwards the same preview finds every one of them stored. Corpora
// are named by their manifests' hashes; the corpus without dev data has as
// many conversations as its manifest lists.
func TestPreviewNamesWhatTheRunStores(t *testing.T) {
	ctx := context.Background()
	specYAML, dirs := sweepfixture.Spec(t)
	in := sweepfixture.Resolved(t, specYAML)
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	before, err := preview.Sweep(ctx, st, in, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	wantID, _ := in.Spec.WorkflowID()
	if before.WorkflowID != wantID || before.SpecHash != in.SpecHash || len(before.Systems) != 2 || before.Systems[1].Hash != in.Systems[1].Hash {
		t.Fatalf("preview %+v", before)
	}
	for i, c := range before.Corpora {
		if c.Source != "path" || c.Hash != sweepfixture.ManifestHash(t, dirs[i]) || c.Stored || c.Conversations != 2 {
			t.Errorf("corpus %+v before the run", c)
		}
	}
	if len(before.Evaluations) != 4 || before.Bundle.Stored || before.Bundle.ID == "" {
		t.Fatalf("before the run: %d evaluations, bundle %+v", len(before.Evaluations), before.Bundle)
	}
	for _, e := range before.Evaluations {
		if e.Stored {
			t.Errorf("%s on %s stored before the run", e.System, e.Corpus)
		}
	}

	id, err := inprocess.Run(ctx, in, &activities.Activities{Store: st, Scratch: t.TempDir()}, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	if id != before.Bundle.ID {
		t.Errorf("the run made bundle %s, the preview said %s", id, before.Bundle.ID)
	}
	stored, err := st.List(ctx, "evaluations/")
	if err != nil {
		t.Fatal(err)
	}
	var previewed []string
	for _, e := range before.Evaluations {
		previewed = append(previewed, e.Key)
	}
	slices.Sort(previewed)
	if !slices.Equal(previewed, stored) {
		t.Errorf("previewed evaluations %q, the run stored %q", previewed, stored)
	}

	after, err := preview.Sweep(ctx, st, in, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range after.Corpora {
		if !c.Stored {
			t.Errorf("corpus %s not stored after the run", c.Name)
		}
	}
	for _, e := range after.Evaluations {
		if !e.Stored {
			t.Errorf("%s on %s not stored after the run", e.System, e.Corpus)
		}
	}
	if !after.Bundle.Stored || after.Bundle.ID != id {
		t.Errorf("bundle after the run %+v, want %s stored", after.Bundle, id)
	}
}

// Once uploaded, the corpora are read from the store (source s3) with the
// same hashes and keys; a generated corpus not yet stored has no
// conversations to show; a store prefix without a corpus is an error
// naming the entry and the key.
func TestPreviewOfUploadedAndGeneratedCorpora(t *testing.T) {
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	local := sweepfixture.Resolved(t, specYAML)
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fromDirs, err := preview.Sweep(ctx, st, local, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	uploaded := sweepfixture.Resolved(t, specYAML)
	if err := activities.Upload(ctx, st, &uploaded, detect.Runtime{}); err != nil {
		t.Fatal(err)
	}
	fromStore, err := preview.Sweep(ctx, st, uploaded, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range fromStore.Corpora {
		if c.Source != "s3" || !c.Stored || c.Hash != fromDirs.Corpora[i].Hash || c.Conversations != fromDirs.Corpora[i].Conversations {
			t.Errorf("uploaded corpus %+v, from its folder %+v", c, fromDirs.Corpora[i])
		}
	}
	for i, e := range fromStore.Evaluations {
		if e.Key != fromDirs.Evaluations[i].Key {
			t.Errorf("%s on %s: key %s from the store, %s from the folder", e.System, e.Corpus, e.Key, fromDirs.Evaluations[i].Key)
		}
	}

	gen := sweepfixture.Resolved(t, "name: gen\ncorpora:\n  - {name: t, generate: {preset: tiny, seed: 9}}\nsystems:\n  - {name: rms, builtin: rms}\n")
	pv, err := preview.Sweep(ctx, st, gen, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	c := pv.Corpora[0]
	if c.Source != "generate" || c.Hash != activities.GeneratedCorpusHash("tiny", 9, backend.Config{}) || c.Stored || c.Conversations != 0 || pv.Evaluations[0].Stored {
		t.Errorf("generated corpus %+v, evaluation %+v", c, pv.Evaluations[0])
	}

	missing := sweepfixture.Resolved(t, "name: gone\ncorpora:\n  - {name: gone, s3: corpora/none}\nsystems:\n  - {name: rms, builtin: rms}\n")
	if _, err := preview.Sweep(ctx, st, missing, limits.Default()); err == nil ||
		!strings.Contains(err.Error(), "corpora[0] (gone): corpora/none/corpus.json is not in the store") {
		t.Errorf("a prefix without a corpus: %v", err)
	}
	if _, err := store.GetBytes(ctx, st, keys.Bundle(fromStore.Bundle.ID, "manifest.json")); err == nil {
		t.Error("previewing stored a bundle")
	}
}

// Before anything is generated, the preview estimates an agent's trials
// from its preset's planned scenarios and a seated agent's sessions from
// its corpora's planned conversations: tiny's 12 conversations of 2 to 5
// speakers are 42 seats, or 12 in speaker 1's seats; the estimate is
// their planned length and the handshake timeout at the concurrency.
func TestPreviewEstimatesAgentsBeforeGeneration(t *testing.T) {
	ctx := context.Background()
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in := sweepfixture.Resolved(t, `name: seated
corpora:
  - {name: t, generate: {preset: tiny, seed: 9}}
systems:
  - {name: rms, builtin: rms}
agents:
  - {name: both, protocol: duplex, endpoint: "ws://127.0.0.1:1/", concurrency: 4, scenarios: {preset: tiny-agent, seed: 1}, seated: {}}
  - {name: one, protocol: duplex, endpoint: "ws://127.0.0.1:1/", concurrency: 1, seated: {speakers: [1]}}
`)
	pv, err := preview.Sweep(ctx, st, in, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.Agents) != 1 || pv.Agents[0].SetStored || pv.Agents[0].Trials != 42 || pv.Agents[0].EstimateS <= 0 {
		t.Errorf("agents %+v: want one, its trials estimated from the planned set", pv.Agents)
	}
	if len(pv.Seated) != 2 {
		t.Fatalf("seated %+v", pv.Seated)
	}
	all, one := pv.Seated[0], pv.Seated[1]
	if all.Seats != 42 || all.Recorded != 0 || !all.Planned || len(all.Corpora) != 1 || all.Corpora[0].Corpus != "t" {
		t.Errorf("every seat: %+v", all)
	}
	if one.Seats != 12 || !one.Planned {
		t.Errorf("speaker 1's seats: %+v", one)
	}
	// Each tiny conversation is planned at 20 s: a seat is at most 20 s,
	// the planned overrun of 5 s, the tail of 0.5 s and the default
	// handshake timeout of 10 s to open (harness.SessionDeadline).
	if want := 12 * (20 + 5 + 0.5 + 10.0); one.EstimateS < want-1 || one.EstimateS > want+1 {
		t.Errorf("speaker 1's seats at concurrency 1 take %g s, want about %g", one.EstimateS, want)
	}
	if all.EstimateS >= one.EstimateS*42/12 {
		t.Errorf("42 seats at concurrency 4 take %g s, 12 at concurrency 1 %g s", all.EstimateS, one.EstimateS)
	}
}

// Once an agent's scenario set is stored the preview estimates its trials
// from the set itself, within the planned bound, and counts none recorded
// until one is played: a trial recorded as failed is played again by the
// next run. A seated agent in a corpus on disk has its seats from the
// corpus's own manifest, not planned.
func TestPreviewOfAStoredScenarioSet(t *testing.T) {
	testenv.Program(t, "espeak-ng", "speech")
	ctx := context.Background()
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, dirs := sweepfixture.Spec(t)
	in := sweepfixture.Resolved(t, "name: agent\ncorpora:\n  - {name: withdev, path: "+dirs[0]+"}\nsystems:\n  - {name: rms, builtin: rms}\n"+
		"agents:\n  - {name: a, protocol: duplex, endpoint: \"ws://127.0.0.1:1/\", concurrency: 2, scenarios: {preset: tiny-agent, seed: 1}, seated: {speakers: [1]}}\n")
	planned, err := preview.Sweep(ctx, st, in, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	acts := &activities.Activities{Store: st}
	a := in.Spec.Agents[0]
	set, err := acts.PrepareScenarios(ctx, activities.PrepareScenariosInput{Agent: a})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acts.RecordFailedTrial(ctx, activities.FailedTrialInput{
		Trial: activities.AgentTrialInput{Agent: a, Set: set.Prefix, Scenario: set.Scenarios[0]}, Error: "connection refused"}); err != nil {
		t.Fatal(err)
	}
	pv, err := preview.Sweep(ctx, st, in, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.Agents) != 1 || len(planned.Agents) != 1 {
		t.Fatalf("agents %+v, before the set %+v", pv.Agents, planned.Agents)
	}
	got, before := pv.Agents[0], planned.Agents[0]
	if !got.SetStored || got.Trials != len(set.Scenarios)*a.Repeats || got.Recorded != 0 {
		t.Errorf("agent with its set stored %+v", got)
	}
	if got.Estimate() <= 0 || got.Estimate() > before.Estimate() || got.Estimate() != time.Duration(got.EstimateS*float64(time.Second)) {
		t.Errorf("estimate %v from the set, %v planned", got.Estimate(), before.Estimate())
	}
	if len(pv.Seated) != 1 {
		t.Fatalf("seated %+v", pv.Seated)
	}
	if s := pv.Seated[0]; s.Planned || s.Seats != 2 || s.Recorded != 0 || s.Estimate() <= 0 || len(s.Corpora) != 1 || s.Corpora[0].Seats != 2 {
		t.Errorf("seated in a corpus on disk %+v", s)
	}
}
