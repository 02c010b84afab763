package activities

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// BenchmarkRunModelCorpus runs Silero's model stage (RunModel, batched as
// a worker batches it, under the default memory budget) over a native
// corpus already on disk: FLOORBENCH_BENCH_CORPUS names its folder,
// FLOORBENCH_BENCH_STORE a local store folder that keeps the ingested
// corpus between runs (remove its model-outputs folder to run the model
// again), FLOORBENCH_BENCH_CONVERSATIONS, if set, the number of the
// corpus's conversations to run (its first). Its peak RSS and CPU-s are
// the process's (docs/performance.md#streaming-model-stages):
//
//	go test -c -o /tmp/activities.test ./activities
//	FLOORBENCH_BENCH_CORPUS=/tmp/ls/mptb FLOORBENCH_BENCH_STORE=/tmp/bench-store \
//	  /usr/bin/time -f '%e s %U+%S CPU-s %M KB' /tmp/activities.test -test.run '^$' -test.bench RunModelCorpus -test.benchtime 1x
func BenchmarkRunModelCorpus(b *testing.B) {
	dir, root := os.Getenv("FLOORBENCH_BENCH_CORPUS"), os.Getenv("FLOORBENCH_BENCH_STORE")
	if dir == "" || root == "" {
		b.Skip("set FLOORBENCH_BENCH_CORPUS and FLOORBENCH_BENCH_STORE")
	}
	ctx := context.Background()
	st, err := store.NewLocal(root)
	if err != nil {
		b.Fatal(err)
	}
	rt := detect.RuntimeFromEnv()
	rt.Device = detect.DeviceCPU
	a := &Activities{Store: st, Runtime: rt, Scratch: b.TempDir(), Memory: NewMemoryBudget(DefaultMemoryBytes())}
	plan, err := a.IngestLocal(ctx, IngestInput{Name: filepath.Base(dir), Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	convs := plan.Conversations
	if n, err := strconv.Atoi(os.Getenv("FLOORBENCH_BENCH_CONVERSATIONS")); err == nil && n < len(convs) {
		convs = convs[:n]
	}
	sys, err := detect.Builtin("silero")
	if err != nil {
		b.Fatal(err)
	}
	yaml, err := sys.SpecYAML()
	if err != nil {
		b.Fatal(err)
	}
	hash, err := sys.Hash(rt)
	if err != nil {
		b.Fatal(err)
	}
	model, err := sys.ModelHash(rt)
	if err != nil {
		b.Fatal(err)
	}
	ref := sweep.SystemRef{Name: "silero", YAML: yaml, Hash: hash, ModelHash: model, NeedsModel: true}
	for b.Loop() {
		res, err := a.RunModel(ctx, ModelInput{System: ref, Corpus: plan, Conversations: convs})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Ran), "conversations")
	}
}
