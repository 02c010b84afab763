package activities

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/keys"
)

// onsetAgent hears speech from input frame 10 to frame 40 of every
// channel, whatever it hears.
type onsetAgent struct{ frame int }

func (a *onsetAgent) Hear(_, _ []float32) (proto.Decision, error) {
	a.frame++
	return proto.Decision{SpeechStarted: a.frame == 10, SpeechStopped: a.frame == 40}, nil
}

// Infer keeps a realtime-vad endpoint's answers in the store: another
// system on the same endpoint and settings (here, another INT rule), or a
// resumed sweep, reads them and connects to nobody.
func TestInferKeepsEndpointAnswersInTheStore(t *testing.T) {
	ctx := context.Background()
	a, rec, _ := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := proto.NewHandler(proto.RealtimeName, func() (proto.Agent, error) { return &onsetAgent{}, nil }, proto.ServerOptions{Rate: proto.MaxRate})
	if err != nil {
		t.Fatal(err)
	}
	var connections atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		connections.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	rec.take()

	params := map[string]string{"url": url, "rate": "50", "prefix_padding_ms": "0"}
	first := systemRef(t, "onset", detect.RealtimeVADFamily, detect.Runtime{}, params)
	in := InferInput{System: first, Corpus: plan, Conversation: plan.Conversations[0]}
	if err := a.Infer(ctx, in); err != nil {
		t.Fatal(err)
	}
	answers := 0
	for _, key := range rec.take() {
		if strings.HasPrefix(key, keys.ProviderAnswers) {
			answers++
		}
	}
	if n := connections.Load(); n == 0 || int64(answers) != n {
		t.Fatalf("%d connections stored %d answers; want one per channel", n, answers)
	}

	params["int_rule"] = "overlap"
	second := systemRef(t, "overlap", detect.RealtimeVADFamily, detect.Runtime{}, params)
	before := connections.Load()
	in.System = second
	if err := a.Infer(ctx, in); err != nil {
		t.Fatal(err)
	}
	if n := connections.Load() - before; n != 0 {
		t.Errorf("a second system on the same endpoint connected %d times; want none", n)
	}
	if puts := rec.take(); slices.ContainsFunc(puts, func(k string) bool { return strings.HasPrefix(k, keys.ProviderAnswers) }) {
		t.Errorf("the second system stored answers again: %q", puts)
	}
}
